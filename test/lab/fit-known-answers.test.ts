// D-33 fitting, against known answers from scripts/reference-stats.py
// (test/fixtures/fit/reference.json): Platt and temperature fits equal scikit-learn's
// LogisticRegression on the same smoothed targets (checked there by SciPy's optimiser), the
// isotonic map equals scikit-learn's IsotonicRegression on a grid, ECE over the six bands (numpy)
// and Brier (scikit-learn) of the raw and the Platt-mapped confidences; plus edges worked out by
// hand (each band edge exactly and one hundredth below it, k-fold cross-validation).
// Tolerances: the logistic fits are iterative on both sides (Newton here, newton-cg there), each
// stopping at its own tolerance, so parameters agree to 1e-7, not to the last digit; the isotonic
// map, ECE and Brier are exact arithmetic on both sides: 1e-9 (ECE and Brier of the Platt map
// inherit the fit's 1e-7).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { brier, crossValidate, ece, fit, type Observations } from "../../src/lab/fit.js";
import { applyMap } from "../../src/decide/calibration-map.js";

interface Case {
  c: number[];
  y: number[];
  platt: { a: number; b: number };
  temperature_a: number;
  isotonic: { grid: number[]; map: number[] };
  ece_raw: number;
  brier_raw: number;
  ece_platt: number;
  brier_platt: number;
}
const ref = JSON.parse(readFileSync("test/fixtures/fit/reference.json", "utf8")) as Record<string, Case>;
const obs = (c: number[], y: number[]): Observations => ({ c: Float64Array.from(c), y: Uint8Array.from(y) });
const close = (actual: number, expected: number, what: string, tol: number) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} is not ${expected}`);

test("D-33: the Platt fit is scikit-learn's logistic regression on the smoothed targets; a < 0 falls back to the base rate", () => {
  assert.deepEqual(Object.keys(ref), ["rising", "steep", "falling"]);
  for (const [name, c] of Object.entries(ref)) {
    const map = fit("platt", obs(c.c, c.y));
    assert.equal(map.kind, "platt");
    if (map.kind !== "platt") continue;
    close(map.a, c.platt.a, `${name}: a`, 1e-7);
    close(map.b, c.platt.b, `${name}: b`, 1e-7);
  }
  // Falling agreement: a = 0 exactly, b = logit of the mean smoothed target (9 of 24 agree:
  // targets 10/11 and 1/17, mean (9·10/11 + 15/17)/24).
  const falling = fit("platt", obs(ref.falling!.c, ref.falling!.y));
  const mean = ((9 * 10) / 11 + 15 / 17) / 24;
  assert.deepEqual(falling.kind === "platt" && falling.a, 0);
  close(falling.kind === "platt" ? falling.b : NaN, Math.log(mean / (1 - mean)), "falling: b", 1e-9);
});

test("D-33: the temperature fit is 1/a of scikit-learn's logistic regression without intercept; a ≤ 1e-6 is t = 1e6", () => {
  for (const name of ["rising", "steep"]) {
    const c = ref[name]!;
    const map = fit("temperature", obs(c.c, c.y));
    assert.equal(map.kind, "temperature");
    if (map.kind === "temperature") close(1 / map.t, c.temperature_a, `${name}: 1/t`, 1e-7);
  }
  assert.deepEqual(fit("temperature", obs(ref.falling!.c, ref.falling!.y)), { kind: "temperature", t: 1e6 });
});

test("D-33: the isotonic map equals scikit-learn's IsotonicRegression on a grid of 201 confidences", () => {
  for (const [name, c] of Object.entries(ref)) {
    const map = fit("isotonic", obs(c.c, c.y));
    c.isotonic.grid.forEach((x, i) => close(applyMap(map, x), c.isotonic.map[i] as number, `${name}: map(${x})`, 1e-9));
  }
});

test("H-2: ECE over the six bands and Brier equal numpy's and scikit-learn's, raw and after the Platt map", () => {
  for (const [name, c] of Object.entries(ref)) {
    close(ece(c.c, c.y), c.ece_raw, `${name}: ECE`, 1e-9);
    close(brier(c.c, c.y), c.brier_raw, `${name}: Brier`, 1e-9);
    const platt = fit("platt", obs(c.c, c.y));
    const mapped = c.c.map((x) => applyMap(platt, x));
    close(ece(mapped, c.y), c.ece_platt, `${name}: ECE after Platt`, 1e-7);
    close(brier(mapped, c.y), c.brier_platt, `${name}: Brier after Platt`, 1e-7);
  }
});

test("D-33: isotonic pools adjacent violators and equal means into blocks; a block spans its lowest and highest confidence", () => {
  assert.deepEqual(fit("isotonic", obs([0.4, 0.1, 0.3, 0.2], [1, 0, 0, 1])), {
    kind: "isotonic",
    x: [0.1, 0.2, 0.3, 0.4],
    y: [0, 0.5, 0.5, 1],
  });
  // Equal means pool too: one block from 0.1 to 0.3.
  assert.deepEqual(fit("isotonic", obs([0.1, 0.2, 0.3], [1, 1, 1])), { kind: "isotonic", x: [0.1, 0.3], y: [1, 1] });
  // Ties are pooled first; a block of one confidence is one knot.
  assert.deepEqual(fit("isotonic", obs([0.3, 0.5, 0.3], [1, 1, 0])), { kind: "isotonic", x: [0.3, 0.5], y: [0.5, 1] });
  // A violation that reaches back over two blocks: 0, 1, 1 then 0, 0 → means 0 | 2/4 … pooled to 0 | 0.5 over 0.2–0.5.
  assert.deepEqual(fit("isotonic", obs([0.1, 0.2, 0.3, 0.4, 0.5], [0, 1, 1, 0, 0])), {
    kind: "isotonic",
    x: [0.1, 0.2, 0.5],
    y: [0, 0.5, 0.5],
  });
  assert.deepEqual(fit("isotonic", obs([0.6], [1])), { kind: "isotonic", x: [0.6], y: [1] });
});

test("H-2: ECE puts a confidence exactly at a band's lower edge in that band, and one hundredth below in the band before", () => {
  // Separate bands: (|c₁ − 1| + |c₂ − 0|)/2 = (1 − (e − 0.01) + e)/2 = 0.505; pooled it would be |e − 0.005 − 0.5|.
  for (const edge of [0.5, 0.7, 0.8, 0.9, 0.95]) close(ece([edge - 0.01, edge], [1, 0]), 0.505, `edge ${edge}`, 1e-12);
  // 1 is in the top band with 0.95; 0 in the bottom one.
  close(ece([0.95, 1], [1, 0]), Math.abs(0.975 - 0.5), "0.95 and 1", 1e-12);
  close(ece([0, 0.49], [1, 0]), Math.abs(0.245 - 0.5), "0 and 0.49", 1e-12);
  // A worked example: bands <0.5: {0.2: 0}; 0.5–0.7: {0.5: 1, 0.5: 0}; 0.7–0.8: {0.7: 1}; ≥0.95: {0.95: 1, 1: 1}.
  close(ece([0.5, 0.5, 0.7, 0.95, 1, 0.2], [1, 0, 1, 1, 1, 0]), (0.2 + 0 + 0.3 + 2 * 0.025) / 6, "worked", 1e-12);
  assert.equal(ece([0.3], [0]), 0.3);
});

test("Brier is the mean squared difference", () => {
  close(brier([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]), (0.01 + 0.64 + 0.09 + 0.36) / 4, "brier", 1e-15);
  assert.equal(brier([1, 0], [1, 0]), 0);
  assert.equal(brier([0.5], [1]), 0.25);
});

test("D-33: cross-validation predicts fold f (position mod k) from the others, and scores raw and held-out predictions", () => {
  // Fold 0 = {0.1: 0, 0.3: 0} is predicted from {0.2: 1, 0.4: 1} (a map of 1), fold 1 the other way (0).
  const cv = crossValidate("isotonic", obs([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]), 2);
  assert.equal(cv.folds, 2);
  close(cv.brier_before, 0.275, "brier before", 1e-15);
  assert.equal(cv.brier_after, 1);
  close(cv.ece_before, 0.25, "ece before", 1e-15);
  assert.equal(cv.ece_after, 1);
  // More folds than observations: the empty folds are skipped; each point is predicted from the other three.
  const loo = crossValidate("isotonic", obs([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]), 6);
  assert.equal(loo.folds, 6);
  // Held out: 0.1 from {0.2:1, 0.3:0, 0.4:1} → pooled 0.5 from 0.2 on, constant before → 0.5; 0.2 from {0.1:0, 0.3:0, 0.4:1} → 0;
  // 0.3 from {0.1:0, 0.2:1, 0.4:1} → 1; 0.4 from {0.1:0, 0.2:1, 0.3:0} → 0.5.
  close(loo.brier_after, (0.25 + 1 + 1 + 0.25) / 4, "leave one out", 1e-15);
});
