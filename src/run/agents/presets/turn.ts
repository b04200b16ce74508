// One preset turn, read back: the tool's own report comes first — its stdout
// (size-capped) through the preset's reader, its stderr (the tail of the instance log, where a tool
// such as Gemini CLI prints its error) and its exit status — and only then the exit status alone.
// A tool that reports its own error fails the turn as agent-output-invalid with the tool's name,
// its message and the exit status, its usage still charged; a tool that exits non-zero without a
// report fails as agent-runner-failed with the end of its stderr. Cost comes from the tool or the
// runner's price table.

import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { AgentRunnerConfig } from "../agent-runner-config.js";
import type { Usage } from "../../store/index.js";
import { presetOf, withCost } from "./invocation.js";
import { READERS, type ToolError, type ToolOutput, type TurnReport } from "./read-output.js";

/** More than this on stdout is not a turn report (a runaway tool): the instance fails. */
const MAX_STDOUT_BYTES = 32 * 1024 * 1024;
/** How much of the end of the log is read as the tool's stderr. */
const STDERR_TAIL_BYTES = 256 * 1024;

/** A preset turn's result: the report, or an error coded as invalid output or a failed runner. */
export type PresetTurn =
  | { ok: true; report: TurnReport }
  | { ok: false; code: "agent-output-invalid" | "agent-runner-failed"; error: string; usage?: Usage; toolError?: ToolError };

/** The last `limit` bytes of a file ("" when it cannot be read). */
export function fileTail(path: string, limit: number): string {
  try {
    const size = statSync(path).size;
    const start = Math.max(0, size - limit);
    const fd = openSync(path, "r");
    try {
      const buf = Buffer.alloc(size - start);
      const n = readSync(fd, buf, 0, buf.length, start);
      return buf.subarray(0, n).toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return "";
  }
}

/** A tool's stderr for a message: its last line starting "error" (a usage error), else its last lines. */
export function stderrEnd(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const error = lines.filter((l) => /^(\S+: )?(error|fatal)\b/i.test(l)).pop();
  const text = error ?? lines.slice(-3).join(" ");
  return text.length > 400 ? `…${text.slice(-400)}` : text;
}

/** How a process ended, for a message. */
export function howItEnded(exit: number | null, signal?: string | null): string {
  return signal ? `was killed by ${signal}` : `exited with status ${exit}`;
}

/**
 * Reads the turn's stdout file and the stderr in its log; `runner` must have a preset other
 * than generic.
 */
export function readPresetTurn(
  runner: AgentRunnerConfig,
  stdoutFile: string,
  logFile: string,
  exit: number | null,
  signal: string | null,
): PresetTurn {
  const who = `agent runner "${runner.name}" (${presetOf(runner).tool})`;
  let stdout: string;
  try {
    const size = statSync(stdoutFile).size;
    if (size > MAX_STDOUT_BYTES)
      return {
        ok: false,
        code: "agent-output-invalid",
        error: `${who} printed ${size} bytes on stdout, more than the ${MAX_STDOUT_BYTES} a turn report may have (stdout: ${stdoutFile})`,
      };
    stdout = fileTail(stdoutFile, MAX_STDOUT_BYTES);
  } catch {
    stdout = "";
  }
  return readPresetOutput(runner, { stdout, stderr: fileTail(logFile, STDERR_TAIL_BYTES), exit }, who, {
    where: ` (stdout: ${stdoutFile}, log: ${logFile})`,
    signal,
  });
}

/**
 * Reads what the tool left, through its preset's reader; `who` starts a message, `where` ends it.
 * The tool's own report is read before its exit status is looked at.
 */
export function readPresetOutput(
  runner: AgentRunnerConfig,
  out: ToolOutput,
  who: string,
  opts: { where?: string; signal?: string | null } = {},
): PresetTurn {
  const where = opts.where ?? "";
  const reader = READERS[presetOf(runner).output as keyof typeof READERS];
  const read = reader(out);
  const ended = howItEnded(out.exit, opts.signal);
  if (read.ok) {
    const report = { ...read.report, usage: withCost(read.report.usage, runner) };
    if (out.exit === 0 && !opts.signal) return { ok: true, report };
    const err = stderrEnd(out.stderr);
    return {
      ok: false,
      code: "agent-runner-failed",
      error: `${who} ${ended} after reporting a finished turn${err ? `; its stderr ends: ${err}` : ""}${where}`,
      usage: report.usage,
    };
  }
  const usage = read.usage ? withCost(read.usage, runner) : undefined;
  if (read.toolError)
    return {
      ok: false,
      code: "agent-output-invalid",
      error: `${who} reported an error and ${ended}: ${read.toolError.message}${where}`,
      toolError: read.toolError,
      ...(usage ? { usage } : {}),
    };
  if (out.exit !== 0 || opts.signal) {
    const err = stderrEnd(out.stderr);
    return {
      ok: false,
      code: "agent-runner-failed",
      error: `${who} ${ended} without a turn report (it ${read.error})${err ? `; its stderr ends: ${err}` : ""}${where}`,
      ...(usage ? { usage } : {}),
    };
  }
  return { ok: false, code: "agent-output-invalid", error: `${who} ${read.error}${where}`, ...(usage ? { usage } : {}) };
}
