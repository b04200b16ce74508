// Diagnostics: the one shape every user-facing error takes, from the scanner to the run engine.
// Rendered as `FILE:LINE:COL: error[CODE]: message`, then the source line and a caret (L-15).

import { CodedError, type Position } from "../shared/coded-error.js";
export type { Position };

/** A diagnostic's severity: an error stops the file from running; a warning does not. */
export type Severity = "error" | "warning";

/** One frame of a Starlark call stack, as a runtime error reports it. */
export interface StackFrame {
  name: string; // function name, or "<toplevel>"
  pos: Position;
}

/** A problem found in a source file, printed as `FILE:LINE:COL: error[CODE]: message` with an optional help line. */
export interface Diagnostic {
  severity: Severity;
  code: string; // stable, kebab-case, documented in the code catalog (switchyard explain CODE)
  message: string;
  pos?: Position; // absent for errors with no place in a source file
  hint?: string; // a "help:" line: how to fix it
  stack?: StackFrame[]; // innermost last, for runtime errors
}

/** One entry of a layer's code catalog (each layer's codes.ts), for `switchyard explain` and docs/errors.md. */
export interface CodeEntry {
  code: string;
  /** The rule the code enforces (docs/reference/). */
  rule?: string;
  summary: string;
  /** A paragraph: what it means and how to fix it. */
  explain: string;
  /**
   * The command was pointed at the wrong thing (a path that is not a pack, a playbook name the
   * pack lacks) or the machine config is wrong, rather than a playbook being broken: exit 2.
   */
  usage?: true;
}

/**
 * An error carrying one or more diagnostics; thrown across layers, printed by the CLI. Its code,
 * hint and position are the first diagnostic's. It is the one error whose constructor takes a
 * list rather than (code, message, details): several mistakes are reported together (L-15).
 */
export class DiagnosticError extends CodedError {
  readonly diagnostics: Diagnostic[];
  /**
   * The message is the list as text, each line with its code (there may be several codes); with
   * `sources`, the full rendering (position, source line, caret, call stack), for errors that
   * reach people as text only, such as a run's record of a failed evaluate call.
   */
  constructor(diagnostics: Diagnostic | Diagnostic[], sources?: SourceLookup) {
    const list = Array.isArray(diagnostics) ? diagnostics : [diagnostics];
    const first = list[0];
    super(
      first?.code ?? "internal-error",
      list.map((d) => (sources ? formatDiagnostic(d, sources) : `${d.code}: ${d.message}`)).join("\n"),
      {
        ...(first?.hint !== undefined ? { hint: first.hint } : {}),
        ...(first?.pos !== undefined ? { pos: first.pos } : {}),
      },
    );
    this.diagnostics = list;
  }
}

/** An error diagnostic; the shorthand every layer uses to report a problem at a position. */
export function errorAt(code: string, message: string, pos?: Position, hint?: string): Diagnostic {
  return { severity: "error", code, message, pos, hint };
}

/** Sort by file, line, column, then code, so output is stable across runs. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => {
    const fa = a.pos?.file ?? "";
    const fb = b.pos?.file ?? "";
    if (fa !== fb) return fa < fb ? -1 : 1;
    const la = a.pos?.line ?? 0;
    const lb = b.pos?.line ?? 0;
    if (la !== lb) return la - lb;
    const ca = a.pos?.col ?? 0;
    const cb = b.pos?.col ?? 0;
    if (ca !== cb) return ca - cb;
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}

/** Looks up a source file's text by the name used in positions; undefined when unknown. */
export type SourceLookup = (file: string) => string | undefined;

/** The diagnostic as a person reads it: the located message, the source line with a caret when the text is known, the hint, and the call stack. */
export function formatDiagnostic(d: Diagnostic, sources?: SourceLookup): string {
  const where = d.pos ? `${d.pos.file}:${d.pos.line}:${d.pos.col}: ` : "";
  const out = [`${where}${d.severity}[${d.code}]: ${d.message}`];
  if (d.pos && sources) {
    const text = sources(d.pos.file);
    if (text !== undefined) {
      const line = text.split(/\r?\n/)[d.pos.line - 1];
      if (line !== undefined) {
        const gutter = String(d.pos.line);
        out.push(`${gutter} | ${line}`);
        out.push(`${" ".repeat(gutter.length)} | ${" ".repeat(Math.max(0, d.pos.col - 1))}^`);
      }
    }
  }
  if (d.stack && d.stack.length > 0) {
    out.push("call stack (most recent call last):");
    for (const f of d.stack) out.push(`  ${f.pos.file}:${f.pos.line}:${f.pos.col}: in ${f.name}`);
  }
  if (d.hint) out.push(`help: ${d.hint}`);
  return out.join("\n");
}

/** The nearest name by edit distance, for "did you mean …" hints; undefined when nothing is close. */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(1, Math.floor(Math.max(name.length, best.length) / 3));
  return bestDist <= limit ? best : undefined;
}

/** Edit distance counting a swap of two neighbours as one edit ("wrok" → "work"), as people type. */
function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0); // row i - 2
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j); // row i - 1
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}
