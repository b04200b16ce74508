// Audited turn-on (D-34): a turned-on type with `audit = f` also asks the host about a fraction f
// of its decisions, chosen by a seeded hash of (run, task, key, question) — never Math.random —
// so the same decision is always in or out of the sample: a resumed run re-asking a decision
// that crashed mid-way audits it again exactly when the first attempt would have.

import { createHash } from "node:crypto";

/** The engine's seed. Changing it draws a different sample; it is part of the rule, not config. */
const AUDIT_SEED = "switchyard-audit-1";

/** The decision's position in [0, 1): the first 48 bits of SHA-256 over the seed and its ids. */
function auditPoint(seed: string, run: string, task: string, key: string | null, question: string): number {
  const h = createHash("sha256")
    .update([seed, run, task, key === null ? "\u0001" : key, question].join("\u0000"))
    .digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/** Whether the host is asked about this decision as well. */
export function auditSampled(
  fraction: number,
  run: string,
  task: string,
  key: string | null,
  question: string,
  seed = AUDIT_SEED,
): boolean {
  // `fraction > 0` only spares the hash: a point is in [0, 1), never below a fraction ≤ 0 (so its two
  // equivalent mutants are listed in stryker/equivalents.json, which names them one by one).
  return fraction > 0 && auditPoint(seed, run, task, key, question) < fraction;
}
