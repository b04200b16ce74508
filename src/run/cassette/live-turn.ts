// A missed agent turn run for real (`switchyard test --allow-live`), from inside the
// cassette's runner program. A `command` runner speaks switchyard's own protocol: it is started
// with the prompt on stdin and the turn's environment, and writes $SWITCHYARD_OUTPUT and
// $SWITCHYARD_USAGE itself. A preset runner (Claude Code, Codex, Gemini CLI, …) is started as the
// engine starts it — the preset's argv for the turn's effort, the prompt passed the preset's way,
// the preset's environment — and its report is read by the preset's own reader; the reply, turns,
// refused tools and usage (with cost) are then written in the protocol's files, so the engine
// records the turn as it records a preset turn of `switchyard run`, and `--update` writes it into
// the cassette like any recorded one.

import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import type { Effort } from "../../plan/plan.js";
import { invocation, presetOf, readPresetTurn, runnerEnv, type AgentRunnerConfig } from "../agents/index.js";
import { isPlainObject } from "../values/index.js";
import { itemAt } from "../../shared/checked-index.js";

/** The turn's protocol files, as the engine named them ($SWITCHYARD_OUTPUT, $SWITCHYARD_USAGE). */
export interface TurnFiles {
  output: string;
  usage: string;
}

/** A live turn may print this much on stderr before it is cut (its log keeps the rest out). */
const MAX_STDERR_BYTES = 64 * 1024 * 1024;

function say(text: string): void {
  process.stderr.write(`switchyard cassette runner: ${text}\n`);
}

/** The attempt's file stem ($SWITCHYARD_OUTPUT is STEM.output.json): where the turn's own files go, outside its workspace. */
function stemOf(outputFile: string): string {
  return outputFile.endsWith(".output.json") ? outputFile.slice(0, -".output.json".length) : outputFile;
}

/** What the tool itself wrote to $SWITCHYARD_OUTPUT (a preset tool usually writes nothing). */
function writtenOutput(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const v: unknown = JSON.parse(readFileSync(file, "utf8"));
    return isPlainObject(v) ? v : {};
  } catch {
    return {};
  }
}

/** A preset runner's turn, started and read as the engine does, its report written in the protocol's files. */
function runPreset(runner: AgentRunnerConfig, prompt: string, workspace: string, files: TurnFiles): number {
  const outputFile = files.output;
  const stem = stemOf(outputFile);
  const promptFile = `${stem}.prompt.txt`;
  writeFileSync(promptFile, prompt);
  const effort = (process.env.SWITCHYARD_EFFORT ?? "medium") as Effort;
  const call = invocation(runner, effort, prompt, promptFile);
  const stdoutFile = `${stem}.stdout.txt`;
  const stderrFile = `${stem}.stderr.txt`;
  const out = openSync(stdoutFile, "w");
  let r: ReturnType<typeof spawnSync>;
  try {
    r = spawnSync(itemAt(call.argv, 0), call.argv.slice(1), {
      cwd: workspace,
      ...(call.promptOnStdin ? { input: prompt } : {}),
      stdio: [call.promptOnStdin ? "pipe" : "ignore", out, "pipe"],
      env: { ...process.env, ...runnerEnv(runner) },
      maxBuffer: MAX_STDERR_BYTES,
    });
  } finally {
    closeSync(out);
  }
  const stderr = r.stderr ?? Buffer.alloc(0);
  writeFileSync(stderrFile, stderr);
  process.stderr.write(stderr);
  if (r.error) {
    say(`agent runner "${runner.name}" (${runner.command[0]}) could not be started: ${r.error.message}`);
    return 1;
  }
  const turn = readPresetTurn(runner, stdoutFile, stderrFile, r.status, r.signal);
  const usage = turn.ok ? turn.report.usage : turn.usage;
  if (usage) writeFileSync(files.usage, JSON.stringify(usage));
  if (!turn.ok) {
    say(`${turn.code}: ${turn.error}`);
    return 1;
  }
  const output = writtenOutput(outputFile);
  output.reply = turn.report.reply;
  if (turn.report.turns !== undefined) output.turns = turn.report.turns;
  if (turn.report.refused) output.refused_tools = turn.report.refused;
  writeFileSync(outputFile, JSON.stringify(output));
  return 0;
}

/** --allow-live: runs a missed turn with the configured runner; returns the exit status for the engine. */
export function runLive(runner: AgentRunnerConfig, prompt: string, workspace: string, files: TurnFiles): number {
  if (presetOf(runner).output !== "switchyard") return runPreset(runner, prompt, workspace, files);
  const r = spawnSync(itemAt(runner.command, 0), runner.command.slice(1), {
    cwd: workspace,
    input: prompt,
    stdio: ["pipe", "inherit", "inherit"],
    env: { ...process.env, ...runner.env },
  });
  if (r.error) say(`the live runner could not be started: ${r.error.message}`);
  return r.status ?? 1;
}
