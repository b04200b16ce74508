// Reads pairs.jsonl one line at a time (H-1, H-3): a stream and readline, never the whole file.
// A crash can tear only the write in progress: the last line, or — when a later run appended
// after it — a fragment that the next pair was written onto, on the same line. A torn last line
// is skipped with a warning; a fragment before a whole pair is skipped with a warning and the
// pair counts. Any other invalid line is an error naming its line number (lab-invalid-pair).

import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { ShadowPair } from "../decide/pair.js";
import { CodedError, type ErrorDetails } from "../shared/coded-error.js";
import { isPlainObject } from "../shared/primitives.js";
import { messageOf } from "../shared/thrown.js";

/** Every pair line starts with this (pair-line.ts writes `lab` first): where a pair begins. */
const PAIR_START = '{"lab":';

/** A bad line in the middle of a pairs file: `file` and `line` (1-based) name it. */
export class PairsFileError extends CodedError {
  readonly file: string;
  readonly line: number;
  constructor(code: string, message: string, details: ErrorDetails & { file: string; line: number }) {
    super(code, message, details);
    this.file = details.file;
    this.line = details.line;
  }
}

const KINDS = new Set(["choice", "noul", "score"]);
const MAX_LISTED = 10;

/** Why a parsed line is not a shadow pair, or null when it is one (only what harvest relies on). */
function pairProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return "not a JSON object";
  const p = value;
  if (typeof p.type !== "string" || p.type === "") return "missing judgement type ('type')";
  if (typeof p.host_label !== "string") return "missing 'host_label'";
  if (p.kind !== undefined && p.kind !== "shadow" && p.kind !== "audit" && p.kind !== "reviewed")
    return "kind is not shadow, audit or reviewed";
  if (p.kind === "reviewed" && !(isPlainObject(p.reviewed) && typeof p.reviewed.label === "string")) return "reviewed.label is missing";
  const q = p.question;
  if (typeof q !== "object" || q === null) return "missing 'question'";
  if (!isPlainObject(q) || typeof q.kind !== "string" || !KINDS.has(q.kind)) return "question.kind is not choice, noul or score";
  if (!Array.isArray(q.labels) || !q.labels.every((l) => typeof l === "string")) return "question.labels is not a list of labels";
  const m = p.model;
  const s = p.skipped;
  if (m !== undefined) {
    if (typeof m !== "object" || m === null) return "'model' is not an object";
    if (!isPlainObject(m) || typeof m.label !== "string") return "model.label is missing";
    if (typeof m.confidence !== "number" || !(m.confidence >= 0 && m.confidence <= 1)) return "model.confidence is not a number in [0, 1]";
    if (typeof m.refused !== "boolean") return "model.refused is not true or false";
    if (typeof m.probabilities !== "object" || m.probabilities === null) return "model.probabilities is missing";
    return null;
  }
  if (s !== undefined) {
    if (!isPlainObject(s) || typeof s.reason !== "string") return "skipped.reason is missing";
    return null;
  }
  return "neither 'model' nor 'skipped'";
}

/** Whether a parsed line is a shadow pair: one `pairProblem` finds nothing wrong with. */
function isPair(value: unknown): value is ShadowPair {
  return pairProblem(value) === null;
}

/** What reading a pairs file found: how many lines it read, how many pairs it kept, and warnings for the lines it skipped. */
export interface ScanResult {
  /** Lines read, including skipped ones. */
  lines: number;
  pairs: number;
  warnings: string[];
}

/**
 * Calls `visit` for every pair of the file in order. A bad line is held back until the next line
 * arrives: if one does, the bad line was in the middle and is an error; if not, it was a torn
 * last line and becomes a warning.
 */
export async function scanPairs(file: string, visit: (pair: ShadowPair, line: number) => void): Promise<ScanResult> {
  const stream = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  const warnings: string[] = [];
  let lineNo = 0;
  let pairs = 0;
  let pending: { line: number; problem: string } | null = null;
  let torn = 0;
  try {
    for await (const text of rl) {
      lineNo++;
      if (pending !== null) {
        throw new PairsFileError(
          "lab-invalid-pair",
          `line ${pending.line} is not a valid shadow pair (${pending.problem}) and is not the last line, so it was not torn by a crash`,
          { file, line: pending.line, hint: `fix or delete line ${pending.line} (e.g. sed -i '${pending.line}d' FILE) and harvest again` },
        );
      }
      if (text.trim() === "") continue;
      let pair: ShadowPair | undefined;
      let problem: string | null;
      try {
        const value: unknown = JSON.parse(text);
        problem = pairProblem(value);
        if (isPair(value)) pair = value;
      } catch (err) {
        problem = `not JSON: ${messageOf(err)}`;
      }
      if (pair === undefined) {
        pair = pairAfterFragment(text);
        if (pair === undefined) {
          pending = { line: lineNo, problem: problem ?? "not a valid shadow pair" };
          continue;
        }
        // Listed one by one up to a few; beyond that only counted, so memory stays bounded.
        if (++torn <= MAX_LISTED)
          warnings.push(`${file}:${lineNo}: skipped a fragment torn by an interrupted write before the pair on that line`);
      }
      pairs++;
      visit(pair, lineNo);
    }
  } finally {
    rl.close();
    stream.destroy();
  }
  if (torn > MAX_LISTED) warnings.push(`${file}: skipped ${torn - MAX_LISTED} more fragments torn by interrupted writes`);
  if (pending !== null) {
    warnings.push(`${file}:${pending.line}: skipped the torn last line (${pending.problem})`);
  }
  return { lines: lineNo, pairs, warnings };
}

/** The whole pair a later write appended onto a torn fragment, if the line ends with one. */
function pairAfterFragment(text: string): ShadowPair | undefined {
  const at = text.lastIndexOf(PAIR_START);
  if (at <= 0) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(at));
    return isPair(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
