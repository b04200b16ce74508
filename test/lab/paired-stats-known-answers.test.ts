// The paired comparison's statistics and the audit sample against known answers from
// scripts/reference-stats.py (test/fixtures/stats/reference.json): McNemar's exact p-value from
// statsmodels (a binomial tail: exact, so to 1e-9), Newcombe's paired interval from the paper's
// formula over statsmodels' Wilson intervals (to 1e-9), and the audit points from Python's hashlib.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mcnemarExact, pairedDifference } from "../../src/lab/paired-stats.js";
import { auditSampled } from "../../src/decide/audit.js";

interface Reference {
  mcnemar: { b: number; c: number; p: number }[];
  paired: { table: [[number, number], [number, number]]; d: number; lo: number; hi: number }[];
  audit: { seed: string; run: string; task: string; question: string; fractions: number[]; keys: (string | null)[]; points: number[] };
}
const ref = JSON.parse(readFileSync("test/fixtures/stats/reference.json", "utf8")) as Reference;
const close = (actual: number | undefined, expected: number, what: string, tol = 1e-9) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol, `${what}: ${actual} is not ${expected}`);

test("McNemar's exact test equals statsmodels' mcnemar(exact=True), from no discordant pairs to 1300", () => {
  assert.ok(ref.mcnemar.length >= 10);
  for (const c of ref.mcnemar) close(mcnemarExact(c.b, c.c), c.p, `mcnemar(${c.b}, ${c.c})`, 1e-9 * Math.max(1, c.p));
  // By hand: 0 against 5 is 2·(1/2)⁵ = 1/16; 1 against 1 is min(1, 2·3/4) = 1.
  assert.equal(mcnemarExact(0, 5), 1 / 16);
  assert.equal(mcnemarExact(1, 1), 1);
  assert.equal(mcnemarExact(0, 0), 1);
  // Very many discordant pairs do not underflow to 0 nor overflow: 5000 against 5000 is 1.
  assert.ok(Math.abs(mcnemarExact(5000, 5000) - 1) < 1e-9);
  assert.ok(mcnemarExact(4000, 5000) > 0 && mcnemarExact(4000, 5000) < 1e-20);
});

test("the paired interval of B − A is Newcombe's method 10 for paired data", () => {
  assert.ok(ref.paired.length >= 8);
  for (const c of ref.paired) {
    const [[both, onlyA], [onlyB, neither]] = c.table;
    const r = pairedDifference({ both, onlyA, onlyB, neither });
    const what = `paired ${JSON.stringify(c.table)}`;
    close(r?.d, c.d, `${what}: d`, 1e-12);
    close(r?.lo, c.lo, `${what}: lo`);
    close(r?.hi, c.hi, `${what}: hi`);
  }
  assert.equal(pairedDifference({ both: 0, onlyA: 0, onlyB: 0, neither: 0 }), null);
});

test("D-34: the audit sample at 10 %, 25 % and 50 % is exactly the keys whose hashlib point is below the fraction", () => {
  const a = ref.audit;
  assert.equal(a.keys.length, 202);
  for (const fraction of a.fractions) {
    const expected = a.keys.filter((_, i) => (a.points[i] as number) < fraction);
    const sampled = a.keys.filter((k) => auditSampled(fraction, a.run, a.task, k, a.question, a.seed));
    assert.deepEqual(sampled, expected, `fraction ${fraction}`);
    // The sample's size is near the fraction (a sanity check on the fixture itself).
    assert.ok(Math.abs(expected.length / a.keys.length - fraction) < 0.1);
  }
  // At each key's own point it is not sampled; one step above, it is.
  for (const [i, key] of a.keys.entries()) {
    const point = a.points[i] as number;
    assert.equal(auditSampled(point, a.run, a.task, key, a.question, a.seed), false);
    assert.equal(auditSampled(point + 2 ** -48, a.run, a.task, key, a.question, a.seed), true);
  }
});
