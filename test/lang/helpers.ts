// Shared helpers for the language tests: run a snippet, evaluate one expression, catch its error.

import { execFile, repr, type Diagnostic, type ExecOptions, type Value } from "../../src/lang/index.js";

export function run(
  src: string,
  options: ExecOptions = {},
): { out: string[]; globals: Map<string, Value>; diagnostics: Diagnostic[]; ok: boolean } {
  const out: string[] = [];
  const r = execFile("test.star", src, { print: (m) => out.push(m), ...options });
  return { out, ...r };
}

/** repr() of an expression's value; throws with the diagnostics when evaluation fails. */
export function ev(expr: string, prelude = ""): string {
  const r = run(`${prelude}\n__x = ${expr}\n`);
  if (!r.ok) throw new Error(`${expr}: ${r.diagnostics.map((d) => `${d.code}: ${d.message}`).join("; ")}`);
  return repr(r.globals.get("__x")!);
}

/** The single error a snippet produces: "code line:col message". */
export function err(src: string): { code: string; at: string; message: string; all: Diagnostic[] } {
  const r = run(src);
  if (r.ok) throw new Error(`expected an error from:\n${src}`);
  const d = r.diagnostics[0];
  return { code: d!.code, at: d!.pos ? `${d!.pos.line}:${d!.pos.col}` : "", message: d!.message, all: r.diagnostics };
}
