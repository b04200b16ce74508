// What an agent CLI left for one turn and how a reader reports it: the shapes every preset's
// reader returns, and the helpers they share to read a tool's own error report (its message, its
// HTTP status, a rate limit and the delay it asks for) and the usage it charged.

import { isPlainObject } from "../../values/index.js";
import type { Usage } from "../../store/index.js";

/** What an agent turn reported: its reply, turns, usage and cost. */
export interface TurnReport {
  reply: string;
  turns?: number;
  usage: Usage;
  /** Tools the agent asked for and was refused (Claude Code's `permission_denials`). */
  refused?: Array<{ tool: string; input: unknown }>;
}

/** What the tool left for one turn: stdout, stderr (the tail of the instance log) and exit status. */
export interface ToolOutput {
  stdout: string;
  stderr: string;
  /** null when it was killed by a signal. */
  exit: number | null;
}

/** The tool's own report that the turn failed (its message, in its words). */
export interface ToolError {
  message: string;
  /** Set when the error is a rate limit or an overload (HTTP 429/529): worth retrying later. */
  rateLimit?: { delayMs?: number };
}

/**
 * A failed reading keeps the usage the tool did report: a failed turn is paid for too. With
 * `toolError`, the tool ran and reported the failure itself; without, its output is not a report.
 */
export type TurnReading = { ok: true; report: TurnReport } | { ok: false; error: string; usage?: Usage; toolError?: ToolError };

/** A usage object, or undefined when the tool reported none of it. */
export const reported = (u: Usage): Usage | undefined => (Object.keys(u).length > 0 ? u : undefined);

/** A token or cost count as the tool gave it, when it is a finite number at least 0. */
export const count = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined);

/** Adds a count to a usage field, leaving the field absent when there is no count. */
export function sumInto(u: Usage, field: keyof Usage, v: number | undefined): void {
  if (v !== undefined) u[field] = (u[field] ?? 0) + v;
}

/** A tool's stdout parsed as one JSON value, or why it cannot be (nothing printed, not JSON). */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const t = text.trim();
  if (t === "") return { ok: false, error: "printed nothing on stdout" };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch (err) {
    return { ok: false, error: `printed output that is not valid JSON (${(err as Error).message}); it may have been cut short` };
  }
}

const RATE_LIMITED = /\b(429|529)\b|rate[ _-]?limit|too many requests|overloaded|resource[ _]exhausted/i;
const DELAYS: ReadonlyArray<[RegExp, number]> = [
  [/retry[ _-]?after["':\s]*(\d+(?:\.\d+)?)\s*(ms\b)?/i, 1000],
  [/(?:try again|retry) in (\d+(?:\.\d+)?)\s*(ms\b)?/i, 1000],
  [/"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/, 1000],
];

/**
 * The tool's error, flagged as a rate limit when its HTTP status (or, lacking one, its text) says
 * 429, 529, "rate limit", "too many requests", "overloaded" or RESOURCE_EXHAUSTED; the delay it
 * asks for (Retry-After, "try again in 20s", Google's retryDelay) when it names one.
 */
export function toolError(message: string, status?: number): ToolError {
  const limited = status !== undefined ? status === 429 || status === 529 : RATE_LIMITED.test(message);
  if (!limited) return { message };
  for (const [re, unit] of DELAYS) {
    const m = re.exec(message);
    if (m) return { message, rateLimit: { delayMs: Math.round(Number(m[1]) * (m[2] ? 1 : unit)) } };
  }
  return { message, rateLimit: {} };
}

/** A tool's text cut to 500 characters for a message. */
export const clip = (text: string): string => (text.length > 500 ? `${text.slice(0, 500)}…` : text);

/** A JSON error body inside a message (`{"error": {"message": …}}`) read down to its message. */
export function innerMessage(text: string): string {
  try {
    const j: unknown = JSON.parse(text);
    if (isPlainObject(j) && isPlainObject(j.error) && typeof j.error.message === "string") return j.error.message;
  } catch {
    // not JSON: the text is the message
  }
  return text;
}

/** The reading of a turn the tool itself reported as failed, keeping its usage. */
export function failedByTool(err: ToolError, usage: Usage): TurnReading {
  return {
    ok: false,
    error: `reported an error: ${clip(err.message)}`,
    toolError: { ...err, message: clip(err.message) },
    usage: reported(usage),
  };
}

/**
 * The error object Gemini CLI (and Qwen Code, forked from it) prints on stderr: `{"session_id", "error": {"type", "message", "code"}}`,
 * pretty-printed from a line holding only "{" (possibly "[ERROR] {") to one holding only "}".
 */
export function stderrErrorObject(stderr: string): Record<string, unknown> | undefined {
  const lines = stderr.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^(\[ERROR\] )?\{\s*$/.test(lines[i]!)) continue;
    const end = lines.indexOf("}", i + 1);
    if (end < 0) break;
    try {
      const j: unknown = JSON.parse(["{", ...lines.slice(i + 1, end + 1)].join("\n"));
      if (isPlainObject(j) && isPlainObject(j.error)) return j.error;
    } catch {
      // not the error object: look further
    }
    i = end;
  }
  return undefined;
}
