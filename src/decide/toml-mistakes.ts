// Two TOML mistakes a person makes in the machine config, said in words with the fix: a key or
// table written twice (TOML's own message names neither the key nor the earlier line — the usual
// cause is a suggested line pasted under the old one), and a judgement type with dots written
// without quotes, which TOML reads as nested tables instead of one type.

import { itemAt } from "../shared/checked-index.js";

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const ASSIGNMENT = /^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-.\s])+?)\s*=/;

/** A key written twice: its text, and the line (1-based) that defined it first, when found. */
export interface Redefinition {
  key: string;
  table?: string;
  first?: number;
}

function normalise(key: string): string {
  return key.replace(/\s*\.\s*/g, ".").trim();
}

/**
 * What TOML's "trying to redefine an already defined table or value" at `line` (1-based) is
 * about: the table header or key written there, and the earlier line with the same header, or the
 * same key in the same table.
 */
export function findRedefinition(text: string, line: number): Redefinition | undefined {
  const lines = text.split(/\r?\n/);
  const here = lines[line - 1];
  if (here === undefined) return undefined;
  const header = HEADER.exec(here);
  if (header) {
    const name = normalise(itemAt(header, 1));
    const first = lines.slice(0, line - 1).findIndex((l) => normalise(HEADER.exec(l)?.[1] ?? "\u0000") === name);
    return { key: `[${name}]`, ...(first >= 0 ? { first: first + 1 } : {}) };
  }
  const assignment = ASSIGNMENT.exec(here);
  if (!assignment) return undefined;
  const key = normalise(itemAt(assignment, 1));
  const tableOf = (n: number) => {
    for (let i = n; i >= 0; i--) {
      const h = HEADER.exec(itemAt(lines, i));
      if (h) return normalise(itemAt(h, 1));
    }
    return "";
  };
  const table = tableOf(line - 1);
  const first = lines
    .slice(0, line - 1)
    .findIndex((l, i) => normalise(ASSIGNMENT.exec(l)?.[1] ?? "\u0000") === key && tableOf(i) === table);
  return { key, ...(table ? { table } : {}), ...(first >= 0 ? { first: first + 1 } : {}) };
}

/** The message and hint for a redefinition. */
export function redefinitionWords(r: Redefinition): { message: string; hint: string } {
  const where = r.table ? ` in [${r.table}]` : "";
  const first = r.first !== undefined ? ` (first on line ${r.first})` : "";
  return {
    message: `${r.key}${where} is written twice${first}: TOML allows each key and table once`,
    hint:
      r.first !== undefined && r.key.startsWith("[")
        ? `move the keys under this header into the ${r.key} on line ${r.first}, and delete this header`
        : r.first !== undefined
          ? `replace line ${r.first} with this line (or delete this one) — a line pasted under the old one replaces nothing`
          : "keep one of the two definitions and delete the other",
  };
}

/** One judgement type found written without quotes: its whole name and what it is set to. */
export interface UnquotedType {
  type: string;
  value: unknown;
}

function isTable(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === "object" && !Array.isArray(x) && !(x instanceof Date);
}

/**
 * `[decisions.types]` entry `name` whose value is a table without a `mode`, holding tables or
 * mode strings: the types an unquoted `a.b.c = …` made, by their whole names. Empty when the
 * entry is not that (a real table entry, or a mistake of another kind).
 */
export function unquotedTypes(name: string, value: unknown, entryKeys: readonly string[]): UnquotedType[] {
  if (!isTable(value) || Object.keys(value).some((k) => entryKeys.includes(k))) return [];
  const out: UnquotedType[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string" || (isTable(v) && Object.hasOwn(v, "mode"))) out.push({ type: `${name}.${k}`, value: v });
    else if (isTable(v)) {
      const inner = unquotedTypes(`${name}.${k}`, v, entryKeys);
      if (inner.length === 0) return [];
      out.push(...inner);
    } else return [];
  }
  return out;
}
