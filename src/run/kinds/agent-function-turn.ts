// An agent turn whose runner is a function (agents/agent-function.ts): the same workspace, prompt,
// timeout, cancel, `files`, `emits` check and usage charging as a command runner's turn, with the
// function called in-process. A function that throws fails the attempt (the task's retries apply);
// one that is still running when the run is cancelled is recorded as interrupted and runs again on
// resume; a turn that passed is recorded and never runs again. A turn `switchyard test` replays
// from a cassette (AgentRunnerConfig.replay) is answered here too, with the same checks.

import { join } from "node:path";
import type { AgentFunction, AgentTurn, AgentUsage, ReplayedTurn, TurnReplay } from "../agents/index.js";
import type { TaskOf } from "../../plan/plan.js";
import { failedOutcome, type AttemptContext, type InstanceInput, type Outcome } from "./context.js";
import { fileRules, rejected, type AttemptFiles } from "./command.js";
import { readUntrustedFile, parseUntrustedJson } from "../process/index.js";
import { checkEmits, errorText, isPlainObject } from "../values/index.js";
import type { Usage } from "./judge.js";

const USAGE_FIELDS = ["input_tokens", "cached_input_tokens", "output_tokens", "cost_usd"] as const;

/** The reported usage's finite, non-negative numbers (usage is advisory, as from a command). */
function cleanUsage(u: AgentUsage | undefined): Usage | undefined {
  if (!isPlainObject(u)) return undefined;
  const out: Usage = {};
  for (const f of USAGE_FIELDS) {
    const v = u[f];
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) out[f] = v;
  }
  return out;
}

/** Reads the files the task declares from the workspace, as for a command runner's turn. */
async function collectFiles(ctx: AttemptContext<TaskOf<"agent">>, files: AttemptFiles, names: string[]) {
  const collected: Record<string, unknown> = {};
  for (const name of names) {
    const text = await readUntrustedFile(join(files.workspace, name), fileRules(ctx, files, `the agent's file ${name}`));
    if (text === undefined) return { missing: name };
    collected[name] = name.endsWith(".json") ? parseUntrustedJson(text, name) : text;
  }
  return { collected };
}

/** The turn as a function runner (or a replay) receives it. */
function turnOf(ctx: AttemptContext<TaskOf<"agent">>, input: InstanceInput, files: AttemptFiles, prompt: string): AgentTurn {
  const spec = ctx.task.agent;
  return {
    run: ctx.env.run,
    task: ctx.recordTask,
    key: ctx.key,
    runner: spec.runner,
    prompt,
    effort: spec.effort,
    input,
    workspace: files.workspace,
  };
}

/** Runs one turn of a function runner: called with the rendered prompt, under the task's timeout and the run's cancel. */
export async function functionTurn(
  ctx: AttemptContext<TaskOf<"agent">>,
  input: InstanceInput,
  files: AttemptFiles,
  fn: AgentFunction,
  prompt: string,
): Promise<Outcome> {
  const spec = ctx.task.agent;
  const timeout = AbortSignal.timeout(ctx.task.timeout_seconds * 1000);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let result: Awaited<ReturnType<AgentFunction>>;
  try {
    result = await fn(turnOf(ctx, input, files, prompt), signal);
  } catch (err) {
    if (ctx.signal.aborted) return { status: "interrupted" };
    if (timeout.aborted)
      return failedOutcome("timeout", `agent runner "${spec.runner}" (a function) did not finish within ${ctx.task.timeout_seconds} s`);
    return failedOutcome("agent-runner-failed", `agent runner "${spec.runner}" (a function) threw: ${errorText(err)}`);
  }
  if (ctx.signal.aborted) return { status: "interrupted" };
  const usage = cleanUsage(isPlainObject(result) ? (result.usage as AgentUsage | undefined) : undefined);
  if (!isPlainObject(result) || !isPlainObject(result.output))
    return failedOutcome("agent-output-invalid", `agent runner "${spec.runner}" (a function) must resolve with { output: {...} }`, usage);
  return finishTurn(ctx, files, result.output, usage);
}

/**
 * A turn answered in the engine's process by the runner's replay (`switchyard test`): its output
 * and the files it left go through the same `files` and `emits` checks as a function's; undefined
 * when the replay hands the turn to the runner itself (a live miss).
 */
export async function replayedTurn(
  ctx: AttemptContext<TaskOf<"agent">>,
  input: InstanceInput,
  files: AttemptFiles,
  replay: TurnReplay,
  prompt: string,
): Promise<Outcome | undefined> {
  let answer: ReplayedTurn;
  try {
    answer = await replay({ ...turnOf(ctx, input, files, prompt), inputFile: files.input });
  } catch (err) {
    // As a runner program that crashed would: the attempt fails, the run goes on.
    return failedOutcome("agent-runner-failed", `the replay of agent runner "${ctx.task.agent.runner}" failed: ${errorText(err)}`);
  }
  if (answer.status === "live") return undefined;
  if (ctx.signal.aborted) return { status: "interrupted" };
  const usage = cleanUsage(answer.usage);
  if (answer.status === "failed") return failedOutcome(answer.code, answer.message, usage);
  return finishTurn(ctx, files, answer.output, usage);
}

/** The turn's output with the files the task declares, checked against `emits`. */
async function finishTurn(
  ctx: AttemptContext<TaskOf<"agent">>,
  files: AttemptFiles,
  given: Record<string, unknown>,
  usage: Usage | undefined,
): Promise<Outcome> {
  const spec = ctx.task.agent;
  const output: Record<string, unknown> = { ...given };
  if (spec.files.length > 0) {
    let got;
    try {
      got = await collectFiles(ctx, files, spec.files);
    } catch (err) {
      return { ...rejected(err), usage };
    }
    if (got.missing !== undefined)
      return failedOutcome("agent-file-missing", `the agent did not leave ${got.missing} in its workspace (T-2)`, usage);
    output.files = got.collected;
  }
  const bad = checkEmits(output, ctx.task.emits);
  if (bad) return failedOutcome("output-invalid", bad, usage);
  return { status: "passed", output, ...(usage ? { usage } : {}) };
}
