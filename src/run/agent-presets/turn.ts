// One preset turn's stdout, read back (issue 12): size-capped, parsed by the preset's reader,
// with cost from the tool or the runner's price table.

import { readFileSync, statSync } from "node:fs";
import type { AgentRunnerConfig } from "../agent-runner-config.js";
import type { Usage } from "../judge.js";
import { presetOf, withCost } from "./invocation.js";
import { READERS, type TurnReport } from "./read-output.js";

/** More than this on stdout is not a turn report (a runaway tool): the instance fails. */
const MAX_STDOUT_BYTES = 32 * 1024 * 1024;

export type PresetTurn = { ok: true; report: TurnReport } | { ok: false; error: string; usage?: Usage };

/** Reads the turn's stdout file; `runner` must have a preset other than generic. */
export function readPresetTurn(runner: AgentRunnerConfig, stdoutFile: string): PresetTurn {
  const who = `agent runner "${runner.name}" (${presetOf(runner).tool})`;
  let text: string;
  try {
    const size = statSync(stdoutFile).size;
    if (size > MAX_STDOUT_BYTES)
      return { ok: false, error: `${who} printed ${size} bytes on stdout, more than the ${MAX_STDOUT_BYTES} a turn report may have` };
    text = readFileSync(stdoutFile, "utf8");
  } catch {
    text = "";
  }
  return readPresetOutput(runner, text, `${who}`, ` (stdout: ${stdoutFile})`);
}

/** Reads what the tool printed, through its preset's reader; `who` starts an error, `where` ends it. */
export function readPresetOutput(runner: AgentRunnerConfig, text: string, who: string, where = ""): PresetTurn {
  const reader = READERS[presetOf(runner).output as keyof typeof READERS];
  const read = reader(text);
  if (!read.ok) return { ok: false, error: `${who} ${read.error}${where}`, ...(read.usage ? { usage: withCost(read.usage, runner) } : {}) };
  return { ok: true, report: { ...read.report, usage: withCost(read.report.usage, runner) } };
}
