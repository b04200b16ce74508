// The lab's statistics (docs/lab.md) against known answers: reference values from statsmodels and
// scikit-learn (scripts/reference-stats.py wrote test/fixtures/stats/reference.json), and small
// cases worked out by hand, at the edges each formula has (n = 0, one level, no counts, no
// expected disagreement). Every reference here is a closed formula evaluated in double precision,
// and the engine's z is the references' own 0.975 quantile, so figures agree to 1e-9.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cohenKappa, meanLevelDistance, newcombe, quadraticKappa, wilson } from "../../src/lab/stats.js";

interface KappaCase {
  counts: number[][];
  kappa: number | null;
  se: number | null;
  lo: number | null;
  hi: number | null;
}
interface Reference {
  wilson: { k: number; n: number; lo: number; hi: number }[];
  newcombe: { k1: number; n1: number; k2: number; n2: number; d: number; lo: number; hi: number }[];
  cohen: KappaCase[];
  quadratic: KappaCase[];
}
const ref = JSON.parse(readFileSync("test/fixtures/stats/reference.json", "utf8")) as Reference;

const close = (actual: number | null, expected: number, what: string, tol = 1e-9) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tol, `${what}: ${actual} is not ${expected}`);

test("wilson: the score interval equals statsmodels' at 95 %", () => {
  assert.ok(ref.wilson.length >= 8);
  for (const c of ref.wilson) {
    const w = wilson(c.k, c.n);
    close(w.lo, c.lo, `wilson(${c.k}, ${c.n}).lo`);
    close(w.hi, c.hi, `wilson(${c.k}, ${c.n}).hi`);
  }
});

test("wilson: by hand — 0 of 0 is [0, 1]; 0 of n starts at 0, n of n ends at 1 (to rounding, never past it); z = 1 for 1 of 2", () => {
  assert.deepEqual(wilson(0, 0), { lo: 0, hi: 1 });
  assert.deepEqual(wilson(3, -1), { lo: 0, hi: 1 });
  assert.equal(wilson(0, 10).lo, 0);
  close(wilson(10, 10).hi, 1, "wilson(10, 10).hi", 1e-15);
  assert.ok(wilson(10, 10).hi <= 1);
  // k = 1, n = 2, z = 1: centre = (1/2 + 1/4) / (3/2) = 1/2; half = (2/3)·√(1/8 + 1/16) = (2/3)·√(3/16) = √3/6.
  const w = wilson(1, 2, 1);
  close(w.lo, 0.5 - Math.sqrt(3) / 6, "lo");
  close(w.hi, 0.5 + Math.sqrt(3) / 6, "hi");
  // n = 1: p = 1, z = 1 → centre = (1 + 1/2)/2 = 3/4, half = (1/2)·√(0 + 1/4) = 1/4: [1/2, 1].
  assert.deepEqual(wilson(1, 1, 1), { lo: 0.5, hi: 1 });
  assert.deepEqual(wilson(0, 1, 1), { lo: 0, hi: 0.5 });
});

test("newcombe: the hybrid score interval of p1 − p2 equals statsmodels' (Newcombe 1998, method 10)", () => {
  assert.ok(ref.newcombe.length >= 8);
  for (const c of ref.newcombe) {
    const r = newcombe(c.k1, c.n1, c.k2, c.n2);
    const what = `newcombe(${c.k1}/${c.n1} − ${c.k2}/${c.n2})`;
    close(r.d, c.d, `${what}.d`, 1e-12);
    close(r.lo, c.lo, `${what}.lo`);
    close(r.hi, c.hi, `${what}.hi`);
  }
  // Newcombe's own table (1998, method 10), to four places: 56/70 − 48/80 is 0.0524 … 0.3339.
  const a = newcombe(56, 70, 48, 80);
  assert.equal(a.lo.toFixed(4), "0.0524");
  assert.equal(a.hi.toFixed(4), "0.3339");
});

test("newcombe: by hand with z = 1 — 1 of 1 against 0 of 1 is d = 1, [1 − √(1/4 + 1/4), 1]", () => {
  // wilson(1, 1, 1) = [1/2, 1] and wilson(0, 1, 1) = [0, 1/2]: lo = 1 − √((1 − 1/2)² + (1/2 − 0)²), hi = 1 + √(0 + 0).
  const r = newcombe(1, 1, 0, 1, 1);
  assert.equal(r.d, 1);
  close(r.lo, 1 - Math.sqrt(0.5), "lo");
  assert.equal(r.hi, 1);
  // The other way round: d = −1, [−1, −1 + √(1/2)].
  const s = newcombe(0, 1, 1, 1, 1);
  assert.equal(s.d, -1);
  assert.equal(s.lo, -1);
  close(s.hi, -1 + Math.sqrt(0.5), "hi");
});

test("quadraticKappa: equals scikit-learn's cohen_kappa_score(weights='quadratic')", () => {
  const defined = ref.quadratic.filter((c) => c.kappa !== null);
  assert.ok(defined.length >= 8);
  for (const c of defined) close(quadraticKappa(c.counts), c.kappa as number, `kappa of ${JSON.stringify(c.counts)}`, 1e-12);
});

test("cohenKappa: plain and quadratic-weighted kappa, standard error and 95 % interval equal statsmodels' cohens_kappa", () => {
  for (const [weighting, cases] of [
    ["plain", ref.cohen],
    ["quadratic", ref.quadratic],
  ] as const) {
    assert.ok(cases.length >= 9 && cases.some((c) => c.kappa === null));
    for (const c of cases) {
      const what = `${weighting} kappa of ${JSON.stringify(c.counts)}`;
      const r = cohenKappa(c.counts, weighting);
      if (c.kappa === null) {
        assert.equal(r, null, what);
        continue;
      }
      close(r?.kappa ?? null, c.kappa, what);
      close(r?.se ?? null, c.se as number, `${what}: se`);
      close(r?.lo ?? null, c.lo as number, `${what}: lo`);
      close(r?.hi ?? null, c.hi as number, `${what}: hi`);
    }
  }
});

test("cohenKappa: by hand — [[10, 2], [3, 15]] is 288/438; no counts, or one level, is null", () => {
  // pₒ = 25/30; margins rows 12, 18 and columns 13, 17: pₑ = (12·13 + 18·17)/900 = 462/900; κ = (pₒ − pₑ)/(1 − pₑ) = 288/438.
  close(
    cohenKappa([
      [10, 2],
      [3, 15],
    ])?.kappa ?? null,
    288 / 438,
    "2×2",
  );
  assert.equal(cohenKappa([]), null);
  // One level: every answer agrees by construction (its weight is 1, plain or quadratic), so pₑ = 1 and κ is undefined.
  assert.equal(cohenKappa([[7]], "plain"), null);
  assert.equal(cohenKappa([[7]], "quadratic"), null);
  assert.equal(
    cohenKappa([
      [0, 0],
      [0, 0],
    ]),
    null,
  );
});

test("quadraticKappa: by hand — two levels is Cohen's kappa; null with one level, no counts, or no expected disagreement", () => {
  // rows 12, 18; columns 13, 17; N = 30: observed disagreement 2 + 3 = 5, expected (12·17 + 18·13)/30 = 14.6.
  close(
    quadraticKappa([
      [10, 2],
      [3, 15],
    ]),
    1 - 5 / 14.6,
    "2×2",
  );
  close(
    quadraticKappa([
      [3, 0],
      [0, 2],
    ]),
    1,
    "perfect agreement",
  );
  assert.equal(quadraticKappa([[7]]), null);
  assert.equal(quadraticKappa([]), null);
  assert.equal(
    quadraticKappa([
      [0, 0],
      [0, 0],
    ]),
    null,
  );
  // Every answer in one cell: both margins sit on one level, so no disagreement is expected.
  assert.equal(
    quadraticKappa([
      [3, 0],
      [0, 0],
    ]),
    null,
  );
  // Three levels, weights 0, 1/4, 1: rows 2, 0, 2 and columns 2, 0, 2, N = 4 → expected = (2·2·1 + 2·2·1)/4 = 2,
  // observed = 2 (two counts two levels apart, weight 1) → κ = 0.
  close(
    quadraticKappa([
      [1, 0, 1],
      [0, 0, 0],
      [1, 0, 1],
    ]),
    0,
    "independent",
  );
  close(
    quadraticKappa([
      [2, 0, 0],
      [0, 0, 0],
      [0, 0, 2],
    ]),
    1,
    "diagonal",
  );
  // rows 3, 1; columns 1, 3; N = 4: observed 2, expected (3·3 + 1·1)/4 = 2.5 → 1 − 2/2.5 = 0.2.
  close(
    quadraticKappa([
      [1, 2],
      [0, 1],
    ]),
    0.2,
    "asymmetric",
  );
});

test("meanLevelDistance: by hand — mean |host − model| over the counts; null when there are none", () => {
  assert.equal(
    meanLevelDistance([
      [1, 2],
      [3, 4],
    ]),
    0.5,
  );
  assert.equal(
    meanLevelDistance([
      [0, 0, 4],
      [0, 0, 0],
      [1, 0, 0],
    ]),
    2,
  );
  assert.equal(
    meanLevelDistance([
      [5, 1, 0],
      [2, 7, 1],
      [0, 3, 9],
    ]),
    7 / 28,
  );
  assert.equal(
    meanLevelDistance([
      [0, 0],
      [0, 0],
    ]),
    null,
  );
  assert.equal(meanLevelDistance([]), null);
  assert.equal(meanLevelDistance([[4]]), 0);
});
