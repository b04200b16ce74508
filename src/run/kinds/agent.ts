// `agent` instances (T-2, D-40): the prompt template rendered from the input, then the named
// agent runner run in a fresh workspace with the prompt on stdin and SWITCHYARD_EFFORT. The
// output is what it wrote to $SWITCHYARD_OUTPUT (may be absent) plus `files`. Usage written to
// $SWITCHYARD_USAGE is charged to the run's budget, whether the turn passed or not.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AttemptContext, InstanceInput, Outcome } from "./context.js";
import { instanceEnv, prepareAttempt, processProblem, readOutput } from "./command.js";
import { runProcess } from "../process.js";
import { renderPrompt } from "../template.js";
import { checkEmits, isPlainObject } from "../values.js";
import type { Usage } from "../judge.js";
import type { TaskOf } from "../../plan/plan.js";

function readUsage(path: string): Usage | undefined {
  try {
    const u: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (!isPlainObject(u)) return undefined;
    const out: Usage = {};
    for (const f of ["input_tokens", "output_tokens", "cost_usd"] as const) {
      const v = u[f];
      if (typeof v === "number" && Number.isFinite(v) && v >= 0) out[f] = v;
    }
    return out;
  } catch {
    return undefined;
  }
}

export async function runAgent(ctx: AttemptContext<TaskOf<"agent">>, input: InstanceInput): Promise<Outcome> {
  const spec = ctx.task.agent;
  const runner = ctx.env.agentRunners[spec.runner];
  if (!runner) {
    const known = Object.keys(ctx.env.agentRunners);
    return {
      status: "failed",
      code: "agent-runner-missing",
      error: `agent-runner-missing: agent runner "${spec.runner}" is not configured (D-40); add [agents.${spec.runner}] command = [...] to the machine config${known.length ? ` (configured: ${known.join(", ")})` : ""}`,
    };
  }
  const files = await prepareAttempt(ctx.dir, input);
  const promptFile = `${ctx.dir}.prompt.txt`;
  const routes = new Set(ctx.env.plan.tasks.filter((t) => t.kind === "route").map((t) => t.name));
  writeFileSync(promptFile, renderPrompt(spec.prompt, input, routes));
  const usageFile = `${ctx.dir}.usage.json`;
  const env = instanceEnv(ctx, files, { ...runner.env, SWITCHYARD_EFFORT: spec.effort, SWITCHYARD_USAGE: usageFile });
  const r = await runProcess({
    argv: runner.command,
    cwd: files.workspace,
    env,
    logFile: files.log,
    stdinFile: promptFile,
    timeoutMs: ctx.task.timeout_seconds * 1000,
    signal: ctx.signal,
  });
  const usage = readUsage(usageFile);
  if (r.spawnError) {
    return {
      status: "failed",
      code: "agent-runner-failed",
      usage,
      error: `agent-runner-failed: agent runner "${spec.runner}" (${runner.command[0]}) could not be started: ${r.spawnError.code === "ENOENT" ? "no such file" : r.spawnError.code === "EACCES" ? "not executable" : r.spawnError.message} (D-40)`,
    };
  }
  const problem = processProblem(r, `agent runner "${spec.runner}"`, ctx, files.log);
  if (problem) return { ...problem, usage };
  const out = await readOutput(files.output, {}, `agent runner "${spec.runner}"`, true);
  if (out.status !== "passed") return { ...out, usage };
  const output = out.output as Record<string, unknown>;
  if (spec.files.length > 0) {
    const collected: Record<string, unknown> = {};
    for (const name of spec.files) {
      let text: string;
      try {
        text = readFileSync(join(files.workspace, name), "utf8");
      } catch {
        return { status: "failed", code: "agent-file-missing", usage, error: `agent-file-missing: the agent did not leave ${name} in its workspace (T-2)` };
      }
      if (name.endsWith(".json")) {
        try {
          collected[name] = JSON.parse(text);
        } catch (err) {
          return { status: "failed", code: "output-invalid", usage, error: `output-invalid: ${name} is not valid JSON: ${(err as Error).message} (T-2)` };
        }
      } else collected[name] = text;
    }
    output.files = collected;
  }
  const bad = checkEmits(output, ctx.task.emits);
  if (bad) return { status: "failed", code: "output-invalid", error: bad, usage };
  return { status: "passed", output, usage };
}
