// Small shared vocabulary of the rules: identifiers, labels, field references, declared types.

import type { Position } from "../lang/diagnostic.js";
import type { DeclRef } from "./declared.js";
import type { FieldType } from "./plan.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Whether a string is a Starlark identifier (letters, digits, underscore; not starting with a digit). */
export function isIdentifier(s: string): boolean {
  return IDENT.test(s);
}
/** Whether a string may be a question's label: an identifier of at most 64 characters. */
export function isLabel(s: string): boolean {
  return s.length <= 64 && IDENT.test(s);
}

/**
 * A label to suggest for text that cannot be one ("team-web" → "team_web"): trimmed, each run of
 * other characters one `_` (none at either end), `_` before a leading digit, at most 64
 * characters; "label" when nothing is left. The text itself belongs in the description.
 */
export function suggestLabel(text: string): string {
  const s = text
    .trim()
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (s === "") return "label";
  return (/^[0-9]/.test(s) ? `_${s}` : s).slice(0, 64);
}

/** Accepts `want` or the untyped "any". */
export function hasType(t: FieldType | undefined, ...want: FieldType[]): boolean {
  return t === "any" || (t !== undefined && want.includes(t));
}

/** A field reference as written in the playbook: `producer.field`. */
export function refText(r: DeclRef): string {
  return `${r.producer.name}.${r.field}`;
}

/** Whether two references name the same field of the same task (two undefined never do). */
export function sameField(a: DeclRef | undefined, b: DeclRef | undefined): boolean {
  return a !== undefined && b !== undefined && a.producer === b.producer && a.field === b.field;
}

/** Records one problem. */
export type Report = (code: string, message: string, pos: Position | undefined, hint?: string) => void;
