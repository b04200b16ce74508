// A commit in one round trip. The store's commits are several statements (events, projections,
// the queue's jobs, marks), and the `pg` client sends one and waits for its answer before the
// next: on two busy cores each wait costs 2–6 ms, and the coordinator is blocked for all of them
// (42 % of a 3,000-instance run, measured). So a transaction whose statements can be written as
// plain SQL is sent as one simple-protocol query, BEGIN to COMMIT, each parameter written as a
// quoted literal the way the client itself would send it (text, untyped: the server infers the
// type from the context as it does for a parameter). A statement text the scan cannot vouch for
// (dollar quoting, comments, E'' strings) keeps the statement-by-statement path.

import pg from "pg";

/** One statement of a transaction: its text and its parameters ($1, $2, …). */
export interface Statement {
  text: string;
  values?: unknown[];
}

/** An array parameter as pg sends it: `{"a","b",NULL}` (one level: the store sends no nested arrays). */
function arrayText(items: readonly unknown[]): string | null {
  const parts: string[] = [];
  for (const e of items) {
    if (e === null || e === undefined) parts.push("NULL");
    else if (typeof e === "string" || typeof e === "number" || typeof e === "bigint" || typeof e === "boolean")
      parts.push(`"${String(e).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`);
    else return null;
  }
  return `{${parts.join(",")}}`;
}

/** One parameter as a literal: the text pg would send for it, quoted; null for a kind not handled here. */
function literal(v: unknown): string | null {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "string") return pg.escapeLiteral(v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return pg.escapeLiteral(String(v));
  // A Buffer arrives on the connection's thread as a Uint8Array (structured clone).
  if (v instanceof Uint8Array) return `'\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex")}'`;
  if (Array.isArray(v)) {
    const t = arrayText(v);
    return t === null ? null : pg.escapeLiteral(t);
  }
  return null;
}

/** The text with $N replaced by its literal outside quotes; null when the text is not plain enough to scan. */
function inline(text: string, values: readonly unknown[]): string | null {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      // A quoted string or identifier; a doubled quote inside is part of it.
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(ch, j);
        if (k < 0) return null;
        if (text[k + 1] === ch) j = k + 2;
        else {
          j = k + 1;
          break;
        }
      }
      if (ch === "'" && i > 0 && /[eEbBxXuU&]/.test(text[i - 1]!)) return null; // E'…', B'…', U&'…'
      out += text.slice(i, j);
      i = j;
    } else if (ch === "$") {
      const m = /^\$(\d+)/.exec(text.slice(i, i + 12));
      if (!m) return null; // dollar quoting
      const n = Number(m[1]);
      if (n < 1 || n > values.length) return null;
      const lit = literal(values[n - 1]);
      if (lit === null) return null;
      out += lit;
      i += m[0].length;
    } else if ((ch === "-" && text[i + 1] === "-") || (ch === "/" && text[i + 1] === "*")) {
      return null;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** BEGIN; the statements; COMMIT — as one query text, or null when a statement cannot be inlined. */
export function inlinedTransaction(statements: readonly Statement[]): string | null {
  const parts = ["BEGIN"];
  for (const s of statements) {
    const t = inline(s.text, s.values ?? []);
    if (t === null) return null;
    parts.push(t.trim().replace(/;\s*$/, ""));
  }
  parts.push("COMMIT");
  return parts.join(";\n");
}
