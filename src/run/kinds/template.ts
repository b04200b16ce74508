// Agent prompt templates (T-2): `{{key}}`, `{{inputs.DEP}}` and `{{inputs.DEP.FIELD}}` are
// replaced from the instance's input, strings as they are and other values as JSON. The compiler
// rejects placeholders naming undeclared dependencies or fields; at run time a missing value
// (a dependency that did not pass under a settled join) renders as `null`.
//
// A route's field is its question (T-10), and everywhere else `route.question` means the label
// so `{{inputs.ROUTE.QUESTION}}` renders the label; `{{inputs.ROUTE}}` is the whole
// decision record as JSON (label, probabilities, confidence per question).
//
// Inside a revise body (T-5; the compiler allows them nowhere else) `{{round}}` is the round
// being run, 1 for the first, and `{{feedback}}` the reviewer's `feedback` from the round before:
// a string as it is, other values as JSON, and empty text in round 1 or when the reviewer emitted
// none, so a prompt reads naturally in every round.

import { isPlainObject } from "../values/index.js";
import { inputJson } from "./shared-json.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

/** Strings as they are; other values as JSON, each dependency's output serialised once per run. */
function show(v: unknown): string {
  if (typeof v === "string") return v;
  return inputJson.dependency(v === undefined ? null : v);
}

/** `routes`: the names of the dependencies that are routes (their outputs are decision records). */
export function renderPrompt(
  template: string,
  input: { key?: string; inputs: Record<string, unknown>; feedback?: unknown; round?: number },
  routes: ReadonlySet<string> = new Set(),
): string {
  return template.replace(PLACEHOLDER, (whole, path: string) => {
    const parts = path.split(".");
    if (parts.length === 1) {
      if (parts[0] === "key") return input.key ?? "";
      // A revise body's input carries round and feedback from round 2 on (T-5).
      if (parts[0] === "round") return String(input.round ?? 1);
      if (parts[0] === "feedback") return input.feedback === undefined || input.feedback === null ? "" : show(input.feedback);
    }
    if (parts[0] !== "inputs" || parts.length < 2) return whole;
    let v: unknown = input.inputs;
    for (const p of parts.slice(1)) {
      v = isPlainObject(v) ? v[p] : undefined;
    }
    if (parts.length === 3 && routes.has(parts[1]) && isPlainObject(v) && typeof v.label === "string") return v.label;
    return show(v);
  });
}
