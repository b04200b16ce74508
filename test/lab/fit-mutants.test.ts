// D-33, H-2: known answers, worked out by hand, for the fitting code's survivors of a mutation run:
// an ECE whose answers fall in two bands (each band's gap counts, weighted by its share), and
// isotonic fits where ties come after a violation has been pooled, a tie raises a block's mean, and
// a tie lowers the top block's mean to its neighbour's so that the two must pool.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ece, fit, type Observations } from "../../src/lab/fit.js";

const obs = (c: number[], y: number[]): Observations => ({ c: Float64Array.from(c), y: Uint8Array.from(y) });

test("H-2: ECE weighs each band's gap by its share: 0.1 agreed and 0.95 not is ½·0.9 + ½·0.95 = 0.925", () => {
  // One band for both would give |0.525 − 0.5| = 0.025.
  assert.ok(Math.abs(ece([0.1, 0.95], [1, 0]) - 0.925) < 1e-12);
});

test("D-33: isotonic pools ties first; a tie that agrees raises its block's mean", () => {
  // (0.2, 0) and (0.2, 1) are one block of mean ½, below (0.6, 1).
  assert.deepEqual(fit("isotonic", obs([0.2, 0.2, 0.6], [0, 1, 1])), { kind: "isotonic", x: [0.2, 0.6], y: [0.5, 1] });
  // 0.1 and 0.2 (both 0) pool into one block; the tie at 0.2 that agrees joins it (1/3); 0.3 twice is 1.
  assert.deepEqual(fit("isotonic", obs([0.1, 0.2, 0.2, 0.3, 0.3], [0, 0, 1, 1, 1])), {
    kind: "isotonic",
    x: [0.1, 0.2, 0.3],
    y: [1 / 3, 1 / 3, 1],
  });
});

test("D-33: isotonic compares block means: a tie that brings the top block's mean down to its neighbour's pools them", () => {
  // 0.1: 0, 1 (mean ½); 0.2: 1, then 0 (mean ½, equal: pooled, 2/4), then 0 again joins: 2/5 = 0.4.
  assert.deepEqual(fit("isotonic", obs([0.1, 0.1, 0.2, 0.2, 0.2], [0, 1, 1, 0, 0])), { kind: "isotonic", x: [0.1, 0.2], y: [0.4, 0.4] });
});
