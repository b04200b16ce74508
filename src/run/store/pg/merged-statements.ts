// Statements that ride with a commit are many of one kind: a queue job per started instance, a
// folded mark per batch of reports, a lab pair per decision. Sent one by one, each is a round
// trip inside the transaction that blocks the coordinator (3.4 ms per add_job measured: 3,000
// jobs cost 10 s of a 17 s run). A statement marked `merge` takes only array parameters;
// merged, all of one text become one statement at the place of the first, each parameter the
// concatenation of theirs in order, so a commit costs a round trip per kind, not per item.

import type { Statement } from "./sync-pg-worker.js";

/** A statement of a commit; with `merge`, every value is an array and the text reads them as such (`unnest($1::text[])`). */
export interface MergeableStatement extends Statement {
  merge?: boolean;
}

/** The statements with every group of mergeable ones of the same text as one. */
export function mergeStatements(statements: readonly MergeableStatement[]): Statement[] {
  const out: Statement[] = [];
  const groups = new Map<string, unknown[][]>();
  for (const s of statements) {
    if (!s.merge) {
      out.push({ text: s.text, ...(s.values ? { values: s.values } : {}) });
      continue;
    }
    const values = s.values ?? [];
    if (!values.every(Array.isArray)) throw new TypeError(`a merged statement takes only array parameters: ${s.text.slice(0, 80)}`);
    const group = groups.get(s.text);
    if (group) {
      if (group.length !== values.length)
        throw new TypeError(`merged statements differ in their number of parameters: ${s.text.slice(0, 80)}`);
      values.forEach((v, i) => group[i]!.push(...(v as unknown[])));
      continue;
    }
    const fresh = values.map((v) => [...(v as unknown[])]);
    groups.set(s.text, fresh);
    out.push({ text: s.text, values: fresh });
  }
  return out;
}
