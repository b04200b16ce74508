// Value helpers shared by the instance kinds: output validation against `emits` (T-12) and the
// deterministic serialisation of a route's state.

import type { FieldType } from "../../plan/plan.js";

import { isPlainObject } from "../../shared/primitives.js";

export { isPlainObject };

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

function matches(type: FieldType, v: unknown): boolean {
  switch (type) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "bool":
      return typeof v === "boolean";
    case "list":
      return Array.isArray(v);
    case "object":
      return isPlainObject(v);
    case "any":
      return true;
  }
}

/**
 * Checks an output against the declared fields (T-12): the output must be an object and every
 * declared field present with its type. Extra fields are kept. Returns the problem, or null.
 */
export function checkEmits(output: unknown, emits: Record<string, FieldType>): string | null {
  if (!isPlainObject(output)) return `the output must be a JSON object, got ${typeOf(output)} (T-12)`;
  for (const [field, type] of Object.entries(emits)) {
    if (!(field in output)) {
      const declared = Object.keys(emits).join(", ");
      return `declared field "${field}" is missing from the output (declared: ${declared}) (T-12)`;
    }
    if (!matches(type, output[field])) {
      return `field "${field}" should be ${type} but is ${typeOf(output[field])} (T-12)`;
    }
  }
  return null;
}

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = v[k];
      // defineProperty: plain assignment of "__proto__" would set the prototype and drop the key.
      if (x === undefined) continue;
      if (k === "__proto__") Object.defineProperty(out, k, { value: sortKeys(x), enumerable: true, writable: true, configurable: true });
      else out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** A short description of an error for records: the message, never a stack. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
