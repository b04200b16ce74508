// The agent runner `switchyard test` puts in place of every configured one. It is a
// program of switchyard's own runner protocol (docs/agents.md), so the engine runs it as it runs
// any agent: the same workspace or git worktree, environment, timeout, output and file checks,
// usage charged to the budget, records and resume. It answers the turn from the cassette: writes
// the recorded output to $SWITCHYARD_OUTPUT, the declared files into the workspace, the usage to
// $SWITCHYARD_USAGE, and applies a worktree agent's patch where the agent would have left it.
// A turn the cassette does not hold is a miss: recorded with why, then run by the real runner when
// --allow-live gave one (SWITCHYARD_CASSETTE_LIVE, live-turn.ts), else failed, so nothing outside
// is contacted.

import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { AgentAnswer } from "./format.js";
import { agentRequestOf, elementView } from "./identity.js";
import { agentMiss, answerFor, oversOf, recordedFor, recordAgentHit, recordMiss } from "./replay-index.js";
import { runDirOfWorkspace } from "./run-paths.js";
import type { AgentRunnerConfig } from "../agents/index.js";

/** Exit status of a miss with no live runner: the engine records the turn failed. */
const MISS_EXIT = 3;

function env(name: string): string {
  const v = process.env[name];
  if (v === undefined) {
    process.stderr.write(`switchyard cassette runner: ${name} is not set; this program is started by \`switchyard test\`\n`);
    process.exit(2);
  }
  return v;
}

/** Writes what the agent left: declared files, output, usage, and the worktree patch applied. */
function leave(answer: AgentAnswer, workspace: string): number {
  for (const [name, value] of Object.entries(answer.files ?? {})) {
    const path = resolve(workspace, name);
    if (!path.startsWith(workspace + sep)) continue; // a declared file is inside the workspace (the compiler checks names)
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof value === "string" && !name.endsWith(".json") ? value : JSON.stringify(value, null, 2));
  }
  if (answer.usage) writeFileSync(env("SWITCHYARD_USAGE"), JSON.stringify(answer.usage));
  if (answer.patch !== undefined) {
    const r = spawnSync("git", ["apply", "--whitespace=nowarn", "--binary", "-"], {
      cwd: workspace,
      input: answer.patch,
      encoding: "utf8",
    });
    if (r.status !== 0) {
      process.stderr.write(
        `switchyard cassette runner: the recorded patch does not apply to this worktree: ${(r.stderr || r.error?.message || "").trim()}\n`,
      );
      return 1;
    }
  }
  if (answer.status === "failed") {
    process.stderr.write(`the recorded turn failed: ${answer.code ? `${answer.code}: ` : ""}${answer.error ?? ""}\n`);
    return 1;
  }
  writeFileSync(env("SWITCHYARD_OUTPUT"), JSON.stringify(answer.output ?? {}));
  return 0;
}

async function main(): Promise<number> {
  const index = env("SWITCHYARD_CASSETTE_INDEX");
  const workspace = resolve(env("SWITCHYARD_WORKSPACE"));
  const run = env("SWITCHYARD_RUN");
  const task = env("SWITCHYARD_TASK");
  const prompt = readFileSync(0, "utf8");
  const input = JSON.parse(readFileSync(env("SWITCHYARD_INPUT"), "utf8")) as { key?: string };
  const key = typeof input.key === "string" ? input.key : null;
  const part = /-(r\d+-(?:body|review))$/.exec(basename(workspace))?.[1];
  const runDir = runDirOfWorkspace(workspace, run) ?? join(workspace, "..");
  const req = agentRequestOf(prompt, elementView(input, key, oversOf(index)[task]), runDir);
  const hit = answerFor(index, req.request);
  if (hit?.kind === "agent") {
    recordAgentHit(index);
    return leave(hit.answer, workspace);
  }
  const why = agentMiss(recordedFor(index, task, key, part), req);
  recordMiss(index, { kind: "agent", task, key, ...(part !== undefined ? { part } : {}), ...why });
  const live = process.env.SWITCHYARD_CASSETTE_LIVE;
  // Loaded only for a live miss: the presets' modules would cost every replayed turn their load time.
  if (live)
    return (await import("./live-turn.js")).runLive(JSON.parse(live) as AgentRunnerConfig, prompt, workspace, {
      output: env("SWITCHYARD_OUTPUT"),
      usage: env("SWITCHYARD_USAGE"),
    });
  process.stderr.write(`cassette-miss: the cassette has no answer for this turn: ${why.why}; nothing was run (--allow-live runs it)\n`);
  return MISS_EXIT;
}

process.exitCode = await main();
