// Step 3 of a judgement (routing/outcomes.ts): which turned-on answers stand, which fall back to
// the host and with what reason (D-31), which are calibrated (D-33).

import { test } from "node:test";
import assert from "node:assert/strict";
import { triageOutcomes, type ModelOutcome } from "../../../src/decide/routing/outcomes.js";
import type { Calibration } from "../../../src/decide/routing/targets.js";
import type { TypeSettings } from "../../../src/decide/config-types.js";

const HALF = {
  mode: { kind: "model", provider: "p", model: "m" },
  calibration: { id: "cal-half", map: { kind: "isotonic", x: [0, 1], y: [0, 0.5] } },
} as unknown as TypeSettings;

const ok = (confidence: number, refused = false): ModelOutcome => ({
  ok: true,
  answer: { label: refused ? "uncertain" : "yes", probabilities: { yes: confidence, no: 1 - confidence }, confidence, refused },
  latency_ms: 5,
  usage: null,
});

test("D-31: a failed model falls back with 'WHY: REASON'; an answer without a calibration stands untouched", () => {
  const outcomes = new Map<string, ModelOutcome>([
    ["a", { ok: false, why: "window", reason: "state is 9000 tokens" }],
    ["b", { ok: false, why: "error", reason: "HTTP 500" }],
    ["c", ok(0.9)],
  ]);
  const t = triageOutcomes(outcomes, new Map(), false);
  assert.deepEqual(
    [...t.fallbackReasons],
    [
      ["a", "window: state is 9000 tokens"],
      ["b", "error: HTTP 500"],
    ],
  );
  assert.equal(t.calibrated.size, 0);
});

test("D-31: a refusal falls back only with fallback_on_refusal; without it, it stands and is not calibrated", () => {
  const outcomes = new Map([["a", ok(0, true)]]);
  const cal = new Map<string, Calibration>([["a", { settings: HALF, min_confidence: 0 }]]);
  const on = triageOutcomes(outcomes, cal, true);
  assert.deepEqual([...on.fallbackReasons], [["a", "refusal: the model refused to answer and fallback_on_refusal is set"]]);
  assert.equal(on.calibrated.size, 0);
  const off = triageOutcomes(outcomes, cal, false);
  assert.equal(off.fallbackReasons.size, 0);
  assert.equal(off.calibrated.size, 0);
});

test("D-33: an answer of a calibrated type is mapped and tested against its own threshold, at and one step past it", () => {
  const outcomes = new Map([
    ["at", ok(0.8)],
    ["below", ok(0.8)],
  ]);
  const cal = new Map<string, Calibration>([
    ["at", { settings: HALF, min_confidence: 0.4 }],
    ["below", { settings: HALF, min_confidence: 0.41 }],
  ]);
  const t = triageOutcomes(outcomes, cal, false);
  assert.equal(t.fallbackReasons.size, 0);
  assert.deepEqual(
    [...t.calibrated].map(([id, c]) => [id, c.answer.label, c.answer.confidence, c.raw]),
    [
      ["at", "yes", 0.4, 0.8],
      ["below", "uncertain", 0.4, 0.8],
    ],
  );
});
