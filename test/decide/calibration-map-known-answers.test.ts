// D-33: applying and checking a calibration map, at the edges — a confidence exactly at a knot, at
// a vertical step, at the ends and outside them; the logit's clamp at 1e-6; the sigmoid far out —
// and every message of the file check word for word. Values worked out by hand; the id's digest
// with Python's hashlib.

import { test } from "node:test";
import assert from "node:assert/strict";
import { applyMap, calibrationId, checkCalibrationFile, logit, type TypeCalibration } from "../../src/decide/calibration-map.js";

const close = (actual: number, expected: number, what: string, tol = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} is not ${expected}`);

test("D-33: logit is log(c / (1 − c)), with c clamped to [1e-6, 1 − 1e-6]", () => {
  assert.equal(logit(0.5), 0);
  close(logit(0.75), Math.log(3), "logit(0.75)");
  close(logit(0.2), -Math.log(4), "logit(0.2)");
  const edge = Math.log(1e-6 / (1 - 1e-6));
  assert.equal(logit(0), edge);
  assert.equal(logit(-3), edge);
  assert.equal(logit(1e-6), edge);
  assert.equal(logit(1), Math.log((1 - 1e-6) / (1 - (1 - 1e-6))));
  assert.equal(logit(7), logit(1));
  // Just inside the clamp the value is the unclamped one.
  close(logit(2e-6), Math.log(2e-6 / (1 - 2e-6)), "logit(2e-6)");
});

test("D-33: platt is σ(a·logit(c) + b) and temperature σ(logit(c) / t)", () => {
  // logit(0.75) = ln 3: σ(2 ln 3) = 9/10; σ(ln 3 − ln 3) = 1/2; σ(ln 3 / 2) = √3/(1 + √3).
  close(applyMap({ kind: "platt", a: 2, b: 0 }, 0.75), 0.9, "platt a=2");
  close(applyMap({ kind: "platt", a: 1, b: -Math.log(3) }, 0.75), 0.5, "platt b=-ln3");
  close(applyMap({ kind: "platt", a: 0, b: Math.log(4) }, 0.1), 0.8, "platt a=0");
  close(applyMap({ kind: "platt", a: 1, b: 0 }, 0.2), 0.2, "platt identity below 1/2");
  close(applyMap({ kind: "temperature", t: 2 }, 0.75), Math.sqrt(3) / (1 + Math.sqrt(3)), "temperature 2");
  close(applyMap({ kind: "temperature", t: 0.5 }, 0.25), 0.1, "temperature 1/2");
  // Far out the sigmoid neither overflows (σ(800) = 1, not NaN) nor rounds a tiny value to 0 (σ(−740) = e^−740).
  assert.equal(applyMap({ kind: "platt", a: 0, b: 800 }, 0.5), 1);
  assert.equal(applyMap({ kind: "platt", a: 0, b: -740 }, 0.5), Math.exp(-740));
  assert.ok(Math.exp(-740) > 0);
});

test("D-33: isotonic is piecewise linear through its knots, constant outside them, the upper value at a vertical step", () => {
  const map = { kind: "isotonic" as const, x: [0.2, 0.4, 0.4, 0.8], y: [0.1, 0.3, 0.6, 0.9] };
  assert.equal(applyMap(map, 0), 0.1);
  assert.equal(applyMap(map, 0.2), 0.1);
  close(applyMap(map, 0.3), 0.2, "between the first two knots");
  assert.equal(applyMap(map, 0.4), 0.6);
  close(applyMap(map, 0.6), 0.75, "between the last two knots");
  assert.equal(applyMap(map, 0.8), 0.9);
  assert.equal(applyMap(map, 1), 0.9);
  // A step at the first knot: at it and before it, y[0] (constant up to x[0]).
  const first = { kind: "isotonic" as const, x: [0.2, 0.2, 0.6], y: [0.1, 0.3, 0.7] };
  assert.equal(applyMap(first, 0.2), 0.1);
  assert.equal(applyMap(first, 0.19), 0.1);
  close(applyMap(first, 0.4), 0.5, "after the step");
  // At the last knot exactly its y, not y[lo] + (y[hi] − y[lo]) (0.3 + 0.6 = 0.9000000000000001).
  const last = { kind: "isotonic" as const, x: [0.1, 0.5], y: [0.3, 0.9] };
  assert.equal(applyMap(last, 0.5), 0.9);
  close(applyMap(last, 0.3), 0.6, "middle");
  // Many knots: the search finds the right segment.
  const x = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
  const many = { kind: "isotonic" as const, x, y: x.map((v) => v * v) };
  for (let i = 0; i < 9; i++) close(applyMap(many, x[i]! + 0.05), (x[i]! ** 2 + x[i + 1]! ** 2) / 2, `segment ${i}`);
  assert.equal(applyMap({ kind: "isotonic", x: [0.5], y: [0.7] }, 0.5), 0.7);
  assert.equal(applyMap({ kind: "isotonic", x: [0.5], y: [0.7] }, 0.9), 0.7);
});

test("D-33: a map's id is cal- and 12 hex digits of SHA-256 over [type, model, method, pairs digest, map]", () => {
  const entry = {
    type: "t.gate.q",
    model: "sys1/jev",
    method: "platt",
    pairs: { count: 40, digest: "sha256:abc" },
    baseline: { answered: 40, agree: 30 },
    cv: { folds: 5, ece_before: 0, ece_after: 0, brier_before: 0, brier_after: 0 },
    map: { kind: "platt", a: 1.5, b: -0.25 },
  } satisfies Omit<TypeCalibration, "id">;
  assert.equal(calibrationId(entry), "cal-a174e114dcc2");
  // The count, baseline and cross-validation are not part of it.
  assert.equal(
    calibrationId({ ...entry, pairs: { count: 1, digest: "sha256:abc" }, baseline: { answered: 1, agree: 1 } }),
    "cal-a174e114dcc2",
  );
});

function file(map: unknown, extra: Record<string, unknown> = {}) {
  return {
    version: 1,
    created: "",
    lab: null,
    pairs_file: "p",
    deduplicated: true,
    types: { "t.q": { id: "cal-1", model: "m/x", map, ...extra } },
  };
}
const problem = (value: unknown) => {
  const r = checkCalibrationFile(value);
  return "error" in r ? r.error : null;
};

test("D-33: a calibration file's check names what is wrong, word for word", () => {
  for (const v of [null, [], "x", 3]) assert.equal(problem(v), "it is not a JSON object");
  assert.equal(problem({ version: 2, types: {} }), "its version is 2, this switchyard reads version 1");
  assert.equal(problem({ version: "1", types: {} }), `its version is "1", this switchyard reads version 1`);
  assert.equal(problem({ types: {} }), "its version is undefined, this switchyard reads version 1");
  assert.equal(problem({ version: 1 }), "it has no 'types'");
  assert.equal(problem({ version: 1, types: null }), "it has no 'types'");
  assert.equal(problem({ version: 1, types: "x" }), "it has no 'types'");
  assert.equal(problem({ version: 1, types: { a: null } }), `the entry for "a" has no id or model`);
  assert.equal(problem({ version: 1, types: { a: 3 } }), `the entry for "a" has no id or model`);
  assert.equal(problem({ version: 1, types: { a: { model: "m" } } }), `the entry for "a" has no id or model`);
  assert.equal(problem({ version: 1, types: { a: { id: "i", model: 3 } } }), `the entry for "a" has no id or model`);
  const valid = file({ kind: "platt", a: 0, b: -1 });
  assert.equal(checkCalibrationFile(valid), valid);
  assert.equal(problem({ version: 1, types: {} }), null);
});

test("D-33: a map's check: platt a ≥ 0, temperature t > 0, isotonic lists of equal non-zero length, in [0, 1], monotone", () => {
  const e = (what: string) => `the entry for "t.q": ${what}`;
  assert.equal(problem(file(undefined)), e("its map is missing"));
  assert.equal(problem(file(null)), e("its map is missing"));
  assert.equal(problem(file("platt")), e("its map is missing"));
  const platt = e("its platt map needs numbers a ≥ 0 and b");
  assert.equal(problem(file({ kind: "platt", a: 0, b: 0 })), null);
  assert.equal(problem(file({ kind: "platt", a: -1e-9, b: 0 })), platt);
  assert.equal(problem(file({ kind: "platt", a: "1", b: 0 })), platt);
  assert.equal(problem(file({ kind: "platt", a: 1 })), platt);
  assert.equal(problem(file({ kind: "platt", a: 1, b: Infinity })), platt);
  assert.equal(problem(file({ kind: "platt", a: Number.NaN, b: 0 })), platt);
  const temp = e("its temperature map needs a number t > 0");
  assert.equal(problem(file({ kind: "temperature", t: 1e-9 })), null);
  assert.equal(problem(file({ kind: "temperature", t: 0 })), temp);
  assert.equal(problem(file({ kind: "temperature", t: -1 })), temp);
  assert.equal(problem(file({ kind: "temperature", t: "2" })), temp);
  assert.equal(problem(file({ kind: "temperature", t: Infinity })), temp);
  const lists = e("its isotonic map needs lists x and y of the same, non-zero length");
  assert.equal(problem(file({ kind: "isotonic", x: [0.5], y: [0.5] })), null);
  assert.equal(problem(file({ kind: "isotonic", x: [], y: [] })), lists);
  assert.equal(problem(file({ kind: "isotonic", x: [0.1, 0.2], y: [0.5] })), lists);
  assert.equal(problem(file({ kind: "isotonic", x: "0.1", y: [0.5] })), lists);
  assert.equal(problem(file({ kind: "isotonic", x: [0.1], y: "0.5" })), lists);
  assert.equal(problem(file({ kind: "isotonic", y: [0.5] })), lists);
  assert.equal(problem(file({ kind: "isotonic", x: [0, 0.5, 0.5, 1], y: [0, 0, 1, 1] })), null);
  assert.equal(problem(file({ kind: "isotonic", x: [0, 0.5], y: [0, 1 + 1e-9] })), e("its isotonic map has a bad point 1"));
  assert.equal(problem(file({ kind: "isotonic", x: [0, 0.5], y: [-1e-9, 1] })), e("its isotonic map has a bad point 0"));
  assert.equal(problem(file({ kind: "isotonic", x: [0, "0.5"], y: [0, 1] })), e("its isotonic map has a bad point 1"));
  assert.equal(problem(file({ kind: "isotonic", x: [0, 0.5], y: [0, null] })), e("its isotonic map has a bad point 1"));
  assert.equal(problem(file({ kind: "isotonic", x: [0.5, 0.4], y: [0, 1] })), e("its isotonic map is not monotone"));
  assert.equal(problem(file({ kind: "isotonic", x: [0.4, 0.5], y: [0.6, 0.5] })), e("its isotonic map is not monotone"));
  assert.equal(problem(file({ kind: "bins" })), e(`its map kind "bins" is not isotonic, platt or temperature`));
  assert.equal(problem(file({})), e(`its map kind undefined is not isotonic, platt or temperature`));
});
