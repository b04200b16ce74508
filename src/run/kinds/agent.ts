// `agent` instances (T-2, D-40): the prompt template rendered from the input, then the named
// agent runner run in a fresh workspace with SWITCHYARD_EFFORT, the prompt passed the way its
// preset says (stdin for generic). The output is what it wrote to $SWITCHYARD_OUTPUT (may be
// absent) plus `files`, and for a preset the tool's `reply` and `turns`. Usage — written to
// $SWITCHYARD_USAGE, or read from the tool's own output by its preset — is charged
// to the run's budget, whether the turn passed or not. A preset's own report is read before its
// exit status: a tool that says why it failed is recorded with its words.

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  failedOutcome,
  type AttemptContext,
  type InstanceInput,
  type Outcome,
  type RateLimited,
  type RunnerConcurrency,
} from "./context.js";
import {
  fileRules,
  instanceEnv,
  prepareAttempt,
  processProblem,
  readOutput,
  rejected,
  writingRunFiles,
  type AttemptFiles,
} from "./command.js";
import { inWorktree } from "./agent-worktree.js";
import { functionTurn, replayedTurn } from "./agent-function-turn.js";
import { runProcess, type ProcessResult } from "../process/index.js";
import { renderPrompt } from "./template.js";
import { checkEmits, isPlainObject } from "../values/index.js";
import type { Usage } from "./judge.js";
import { invocation, presetOf, runnerEnv, withCost, type AgentRunnerConfig } from "../agents/index.js";
import { readPresetTurn, type PresetTurn } from "../agents/index.js";
import { CodedError } from "../../shared/coded-error.js";
import { limiterFor, type RunnerLimiter } from "../agents/index.js";
import { readUntrustedFile } from "../process/index.js";
import { parseUntrustedJson } from "../process/index.js";
import type { TaskOf } from "../../plan/plan.js";

/**
 * What the agent reported in $SWITCHYARD_USAGE (undefined when absent or malformed: usage is
 * advisory). A file that must not be read at all (a FIFO, a symlink out of the workspace, too
 * large) fails the turn: an UntrustedFileError is thrown.
 */
async function readUsage(path: string, ctx: AttemptContext, files: AttemptFiles): Promise<Usage | undefined> {
  const text = await readUntrustedFile(path, fileRules(ctx, files, "$SWITCHYARD_USAGE", true));
  if (text === undefined) return undefined;
  try {
    const u: unknown = parseUntrustedJson(text, "$SWITCHYARD_USAGE");
    if (!isPlainObject(u)) return undefined;
    const out: Usage = {};
    for (const f of ["input_tokens", "cached_input_tokens", "output_tokens", "cost_usd"] as const) {
      const v = u[f];
      if (typeof v === "number" && Number.isFinite(v) && v >= 0) out[f] = v;
    }
    return out;
  } catch {
    return undefined;
  }
}

/** A rate limit halves the runner's concurrency and says when to try again; a passed turn may raise it. */
function pace(limiter: RunnerLimiter, runner: string, turn: PresetTurn) {
  if (!turn.ok && turn.toolError?.rateLimit) {
    const l = limiter.limited(turn.toolError.rateLimit.delayMs);
    return { rateLimit: { runner, delay_ms: l.delay_ms, concurrency: l.limit } };
  }
  if (!turn.ok) return {};
  const p = limiter.passed();
  return p.changed ? { raised: { runner, limit: p.limit } } : {};
}

/** Runs one agent attempt: in a worktree when the task asks for one, else in a scratch workspace. */
export function runAgent(ctx: AttemptContext<TaskOf<"agent">>, input: InstanceInput): Promise<Outcome> {
  if (ctx.task.agent.workspace === "worktree") return inWorktree(ctx, input, (files) => agentTurn(ctx, input, files));
  return agentTurn(ctx, input);
}

/** One agent turn: the runner's launch, the usage it reports, then its reply and output. */
async function agentTurn(ctx: AttemptContext<TaskOf<"agent">>, input: InstanceInput, prepared?: AttemptFiles): Promise<Outcome> {
  const spec = ctx.task.agent;
  const runner = ctx.env.agentRunners[spec.runner];
  if (!runner) {
    const known = Object.keys(ctx.env.agentRunners);
    return failedOutcome(
      "agent-runner-missing",
      `agent runner "${spec.runner}" is not configured (D-40); add [agents.${spec.runner}] command = [...] to the machine config${known.length ? ` (configured: ${known.join(", ")})` : ""}`,
    );
  }
  const files = prepared ?? (await prepareAttempt(ctx.dir, input));
  const prompt = writePrompt(ctx, input);
  // A replayed turn (`switchyard test`) is answered in-process; a live miss goes on to the runner itself.
  if (runner.replay) {
    const replayed = await replayedTurn(ctx, input, files, runner.replay, prompt);
    if (replayed) return replayed;
  }
  // A runner given as code (the library API) is called in-process, with the same files and checks.
  if (runner.turn) return functionTurn(ctx, input, files, runner.turn, prompt);
  const { r, turn, paced, usageFile } = await launchTurn(ctx, runner, files, prompt);
  // What the tool reported is charged even when the turn failed (an error result still cost money).
  let written: Usage | undefined;
  if (!turn) {
    try {
      written = await readUsage(usageFile, ctx, files);
    } catch (err) {
      if (r.aborted) return { status: "interrupted" };
      return rejected(err);
    }
  }
  const usage = turn ? (turn.ok ? turn.report.usage : turn.usage) : written && withCost(written, runner);
  if (r.spawnError) {
    const why = r.spawnError.code === "ENOENT" ? "no such file" : r.spawnError.code === "EACCES" ? "not executable" : r.spawnError.message;
    return failedOutcome(
      "agent-runner-failed",
      `agent runner "${spec.runner}" (${runner.command[0]}) could not be started: ${why} (D-40)`,
      usage,
    );
  }
  // Killed by switchyard (timeout, cancel): what it printed is no report. Else a preset's report
  // (or its absence) says why before the exit status does.
  const problem = !turn || r.aborted || r.timedOut ? processProblem(r, `agent runner "${spec.runner}"`, ctx, files.log) : null;
  if (problem) return { ...problem, usage };
  if (turn && !turn.ok) {
    const failed = failedOutcome(turn.code, turn.error, usage);
    return paced.rateLimit ? { ...failed, rateLimit: paced.rateLimit } : failed;
  }
  const out = await agentOutput(ctx, files, turn, usage);
  return out.status === "passed" && paced.raised ? { ...out, runnerConcurrency: paced.raised } : out;
}

/** A launched turn: how its process ended, a preset's report, and the runner's pacing after it. */
interface LaunchedTurn {
  r: ProcessResult;
  turn: PresetTurn | undefined;
  paced: { rateLimit?: RateLimited; raised?: RunnerConcurrency };
  /** Where the runner may write its usage ($SWITCHYARD_USAGE). */
  usageFile: string;
}

/** Renders the turn's prompt and writes it beside the attempt (`.prompt.txt`, as recorded). */
function writePrompt(ctx: AttemptContext<TaskOf<"agent">>, input: InstanceInput): string {
  const routes = new Set(ctx.env.plan.tasks.filter((t) => t.kind === "route").map((t) => t.name));
  const prompt = renderPrompt(ctx.task.agent.prompt, input, routes);
  writingRunFiles(dirname(ctx.dir), () => writeFileSync(`${ctx.dir}.prompt.txt`, prompt));
  return prompt;
}

/** Runs the agent runner on the written prompt, under its rate-limit state when it has a preset. */
async function launchTurn(
  ctx: AttemptContext<TaskOf<"agent">>,
  runner: AgentRunnerConfig,
  files: AttemptFiles,
  prompt: string,
): Promise<LaunchedTurn> {
  const spec = ctx.task.agent;
  const promptFile = `${ctx.dir}.prompt.txt`;
  const usageFile = `${ctx.dir}.usage.json`;
  const env = instanceEnv(ctx, files, { ...runnerEnv(runner), SWITCHYARD_EFFORT: spec.effort, SWITCHYARD_USAGE: usageFile });
  const preset = presetOf(runner);
  const call = invocation(runner, spec.effort, prompt, promptFile);
  const stdoutFile = preset.output === "switchyard" ? undefined : `${ctx.dir}.stdout.txt`;
  // A preset runner's turns share its rate-limit state (agent-rate-limits.ts): a slot under its
  // concurrency is held while the tool runs and its report is read.
  const limiter =
    stdoutFile !== undefined
      ? limiterFor(ctx.env.run, runner.name, ctx.env.plan.settings.concurrency, (runner.rate_limit_quiet_seconds ?? 60) * 1000)
      : undefined;
  await limiter?.acquire(ctx.signal);
  try {
    const r = await runProcess({
      argv: call.argv,
      cwd: files.workspace,
      env,
      logFile: files.log,
      stdinFile: call.promptOnStdin ? promptFile : undefined,
      stdoutFile,
      timeoutMs: ctx.task.timeout_seconds * 1000,
      signal: ctx.signal,
      ...(ctx.groups ? { groups: ctx.groups } : {}),
    });
    const turn = stdoutFile && !r.spawnError ? readPresetTurn(runner, stdoutFile, files.log, r.code, r.signal) : undefined;
    const paced = limiter && turn && !r.aborted && !r.timedOut ? pace(limiter, runner.name, turn) : {};
    return { r, turn, paced, usageFile };
  } finally {
    limiter?.release();
  }
}

/** The turn's output: what it wrote to $SWITCHYARD_OUTPUT, a preset's reply and turns, and its `files` (T-2). */
async function agentOutput(
  ctx: AttemptContext<TaskOf<"agent">>,
  files: AttemptFiles,
  turn: PresetTurn | undefined,
  usage: Usage | undefined,
): Promise<Outcome> {
  const spec = ctx.task.agent;
  const who = `agent runner "${spec.runner}"`;
  const out = await readOutput(files.output, {}, who, true, undefined, fileRules(ctx, files, `${who}'s $SWITCHYARD_OUTPUT`, true));
  if (out.status !== "passed") return { ...out, usage };
  // readOutput passes only a JSON object (or {} for an absent file).
  if (!isPlainObject(out.output)) throw new CodedError("internal-error", `${who}'s output passed as ${typeof out.output}, not an object`);
  const output = out.output;
  if (turn?.ok) {
    output.reply = turn.report.reply;
    if (turn.report.turns !== undefined) output.turns = turn.report.turns;
    if (turn.report.refused) output.refused_tools = turn.report.refused;
  }
  if (spec.files.length > 0) {
    const collected: Record<string, unknown> = {};
    for (const name of spec.files) {
      let text: string | undefined;
      try {
        text = await readUntrustedFile(join(files.workspace, name), fileRules(ctx, files, `the agent's file ${name}`));
        if (text !== undefined) collected[name] = name.endsWith(".json") ? parseUntrustedJson(text, name) : text;
      } catch (err) {
        return { ...rejected(err), usage };
      }
      if (text === undefined) return failedOutcome("agent-file-missing", `the agent did not leave ${name} in its workspace (T-2)`, usage);
    }
    output.files = collected;
  }
  const bad = checkEmits(output, ctx.task.emits);
  if (bad) return failedOutcome("output-invalid", bad, usage);
  return { status: "passed", output, usage };
}
