// D-33 (routing/calibrate.ts): the min_confidence test on the calibrated confidence, at and around
// the threshold. The map halves the confidence (isotonic through (0, 0) and (1, 0.5)), so the
// calibrated value of c is c / 2 exactly.

import { test } from "node:test";
import assert from "node:assert/strict";
import { calibrate } from "../../../src/decide/routing/calibrate.js";
import type { TypeSettings } from "../../../src/decide/config-types.js";
import type { ResolvedAnswer } from "../../../src/decide/answer.js";

const HALF = {
  mode: { kind: "model", provider: "local", model: "m" },
  calibration: { id: "cal-halfhalfhalf", map: { kind: "isotonic", x: [0, 1], y: [0, 0.5] } },
} as unknown as TypeSettings;

const answer = (confidence: number): ResolvedAnswer => ({
  label: "yes",
  probabilities: { yes: confidence, no: 1 - confidence },
  confidence,
  refused: false,
});

test("D-33: a calibrated confidence exactly at min_confidence keeps the model's label", () => {
  const c = calibrate(answer(0.8), HALF, 0.4);
  assert.equal(c.answer.confidence, 0.4);
  assert.equal(c.answer.label, "yes");
  assert.equal(c.raw, 0.8);
  assert.equal(c.id, "cal-halfhalfhalf");
  assert.deepEqual(c.answer.probabilities, { yes: 0.8, no: 1 - 0.8 });
});

test("D-33: a calibrated confidence just below min_confidence is uncertain, though the raw one is far above", () => {
  const c = calibrate(answer(0.8), HALF, 0.4 + 1e-9);
  assert.equal(c.answer.label, "uncertain");
  assert.equal(c.answer.confidence, 0.4);
  assert.equal(c.raw, 0.8);
});

test("D-33: the threshold is tested on the calibrated confidence, not the raw one", () => {
  // Raw 0.6 ≥ 0.5 would pass; calibrated 0.3 does not.
  assert.equal(calibrate(answer(0.6), HALF, 0.5).answer.label, "uncertain");
  // Raw 0.3 < 0.1? no; calibrated 0.15 ≥ 0.1: stands.
  assert.equal(calibrate(answer(0.3), HALF, 0.1).answer.label, "yes");
  assert.equal(calibrate(answer(0.3), HALF, 0.1).answer.confidence, 0.15);
});
