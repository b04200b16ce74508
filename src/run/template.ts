// Agent prompt templates (T-2): `{{key}}`, `{{inputs.DEP}}` and `{{inputs.DEP.FIELD}}` are
// replaced from the instance's input, strings as they are and other values as JSON. The compiler
// rejects placeholders naming undeclared dependencies or fields; at run time a missing value
// (a dependency that did not pass under a settled join) renders as `null`.
//
// A route's field is its question (T-10), and everywhere else `route.question` means the label
// so `{{inputs.ROUTE.QUESTION}}` renders the label; `{{inputs.ROUTE}}` is the whole
// decision record as JSON (label, probabilities, confidence per question).

import { isPlainObject } from "./values.js";
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
  input: { key?: string; inputs: Record<string, unknown> },
  routes: ReadonlySet<string> = new Set(),
): string {
  return template.replace(PLACEHOLDER, (whole, path: string) => {
    const parts = path.split(".");
    if (parts[0] === "key" && parts.length === 1) return input.key ?? "";
    if (parts[0] !== "inputs" || parts.length < 2) return whole;
    let v: unknown = input.inputs;
    for (const p of parts.slice(1)) {
      v = isPlainObject(v) ? v[p] : undefined;
    }
    if (parts.length === 3 && routes.has(parts[1]) && isPlainObject(v) && typeof v.label === "string") return v.label;
    return show(v);
  });
}
