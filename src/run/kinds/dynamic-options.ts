// Dynamic choices (Q-30 … Q-32): the options of a choice come per element from a dependency's
// field. The engine resolves them into an ordinary choice before the decision layer sees the
// question. A bad option list fails that element's decision only, before any request.

import type { ResolvedOption } from "./judge.js";
import { isPlainObject } from "../values/index.js";
import { UNCERTAIN } from "../../plan/plan.js";
import { suggestLabel } from "../../plan/refs.js";
import { CodedError } from "../../shared/coded-error.js";

const MAX_DYNAMIC_OPTIONS = 64;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A dynamic choice's option list that cannot be used (Q-30 … Q-32). */
export class OptionsError extends CodedError {}

/** Resolves one element's option list (`where` names the field and key for messages). */
export function resolveOptions(list: unknown, where: string): ResolvedOption[] {
  if (!Array.isArray(list)) throw new OptionsError("dynamic-options", `${where} is not a list of options (Q-31)`);
  // Bounded before any entry is read.
  if (list.length > MAX_DYNAMIC_OPTIONS) {
    throw new OptionsError("dynamic-options", `${where} has ${list.length} options, more than ${MAX_DYNAMIC_OPTIONS} (Q-31)`);
  }
  const out: ResolvedOption[] = [];
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    let value: unknown;
    let description = "";
    if (typeof entry === "string") value = entry;
    else if (
      isPlainObject(entry) &&
      typeof entry.value === "string" &&
      (entry.description === undefined || typeof entry.description === "string")
    ) {
      value = entry.value;
      description = (entry.description as string | undefined) ?? "";
    } else {
      throw new OptionsError(
        "dynamic-options",
        `entry ${i} of ${where} is malformed; an entry is a label string or {"value": label, "description": text} (Q-31)`,
      );
    }
    const label = value as string;
    if (!IDENT.test(label) || label.length > 64) {
      throw new OptionsError(
        "dynamic-options",
        `entry ${i} of ${where} has the label ${JSON.stringify(label)}, which is not an identifier (Q-31, Q-4); ` +
          `give the entry as {"value": ${JSON.stringify(suggestLabel(label))}, "description": ${JSON.stringify(label)}}: the value is the label the model answers with (letters, digits and _, at most 64), the description says what it means`,
      );
    }
    if (label === UNCERTAIN) throw new OptionsError("dynamic-options", `entry ${i} of ${where} is "uncertain", which is reserved (Q-31)`);
    if (seen.has(label)) return; // duplicates collapse to the first entry
    seen.add(label);
    out.push({ value: label, description });
  });
  if (out.length < 2) {
    throw new OptionsError("dynamic-options", `${where} has ${out.length} distinct option(s); a choice needs at least 2 (Q-31)`);
  }
  return out;
}
