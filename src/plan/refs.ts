// Small shared vocabulary of the rules: identifiers, labels, field references, declared types.

import type { Position } from "../lang/diagnostic.js";
import type { DeclRef } from "./declared.js";
import type { FieldType } from "./plan.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
export function isIdentifier(s: string): boolean {
  return IDENT.test(s);
}
export function isLabel(s: string): boolean {
  return s.length <= 64 && IDENT.test(s);
}

/** Accepts `want` or the untyped "any". */
export function hasType(t: FieldType | undefined, ...want: FieldType[]): boolean {
  return t === "any" || (t !== undefined && want.includes(t));
}

export function refText(r: DeclRef): string {
  return `${r.producer.name}.${r.field}`;
}

export function sameField(a: DeclRef | undefined, b: DeclRef | undefined): boolean {
  return a !== undefined && b !== undefined && a.producer === b.producer && a.field === b.field;
}

/** Records one problem. */
export type Report = (code: string, message: string, pos: Position | undefined, hint?: string) => void;
