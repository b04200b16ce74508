// Step 1 of a judgement (routing/targets.ts): where each question goes, checked against plans
// written out by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { needsHost, planTargets, settingsFor } from "../../../src/decide/routing/targets.js";
import type { JudgementMode, TypeSettings } from "../../../src/decide/config-types.js";
import { machine, noul, on, request, shadow } from "../router-support.js";

const HOST: JudgementMode = { kind: "host" };
const CAL = {
  id: "cal-000000000001",
  type: "t",
  model: "local/m",
  method: "isotonic" as const,
  pairs: { count: 0, digest: "" },
  map: { kind: "isotonic" as const, x: [0, 1], y: [0, 0.5] },
  file: "c.json",
} as unknown as NonNullable<TypeSettings["calibration"]>;

function plan(
  modes: Record<string, JudgementMode>,
  settings: Record<string, TypeSettings> = {},
  qs = [noul("a", "ta", 0.6), noul("b", "tb", 0.6), noul("c", "tc", 0.6)],
) {
  return planTargets(
    request(qs),
    (type) => modes[type] ?? HOST,
    (type) => settings[type],
  );
}

test("D-11: host questions go to the host only; turned-on questions sharing a model go in one batch; another model is its own batch", () => {
  const t = plan({ ta: HOST, tb: on("local", "m1"), tc: on("local", "m1") });
  assert.deepEqual(
    t.forHost.map((q) => q.id),
    ["a"],
  );
  assert.deepEqual([...t.turnedOn.keys()], ["local/m1"]);
  assert.deepEqual(
    t.turnedOn.get("local/m1")!.questions.map((q) => q.id),
    ["b", "c"],
  );
  assert.equal(t.shadows.size, 0);
  const two = plan({ ta: on("local", "m1"), tb: on("local", "m2"), tc: on("other", "m1") });
  assert.deepEqual([...two.turnedOn.keys()], ["local/m1", "local/m2", "other/m1"]);
  assert.deepEqual(two.forHost, []);
});

test("H-1: a shadow question goes to the host and to its shadow model, not to the turned-on batches", () => {
  const t = plan({ ta: shadow("local", "m1"), tb: on("local", "m1") });
  assert.deepEqual(
    t.forHost.map((q) => q.id),
    ["a", "c"],
  );
  assert.deepEqual(
    t.shadows.get("local/m1")!.questions.map((q) => q.id),
    ["a"],
  );
  assert.deepEqual(
    t.turnedOn.get("local/m1")!.questions.map((q) => q.id),
    ["b"],
  );
  assert.equal(t.modes.get("a")!.kind, "shadow");
  assert.equal(t.modes.get("c")!.kind, "host");
});

test("D-33: the config's min_confidence replaces the playbook's; a calibrated type is asked with threshold 0 and keeps the config's for later", () => {
  const t = plan(
    { ta: on("local", "m"), tb: on("local", "m"), tc: on("local", "m") },
    {
      ta: { mode: on("local", "m"), min_confidence: 0.25 },
      tb: { mode: on("local", "m"), min_confidence: 0.75, calibration: CAL },
      tc: { mode: on("local", "m"), calibration: CAL },
    },
  );
  const asked = t.turnedOn.get("local/m")!.questions;
  assert.deepEqual(
    asked.map((q) => [q.id, q.min_confidence]),
    [
      ["a", 0.25],
      ["b", 0],
      ["c", 0],
    ],
  );
  assert.deepEqual(
    [...t.calibrations].map(([id, c]) => [id, c.min_confidence]),
    [
      ["b", 0.75],
      ["c", 0.6],
    ],
  );
  assert.equal(t.calibrations.has("a"), false);
  // What the record will hold: the threshold applied, the config's or else the playbook's (0.6).
  assert.deepEqual(Object.fromEntries(t.thresholds), { a: 0.25, b: 0.75, c: 0.6 });
});

test("D-34: audit = 1 asks the host about every turned-on question as well; audit = 0 about none", () => {
  const all = plan(
    { ta: on("local", "m"), tb: on("local", "m"), tc: HOST },
    { ta: { mode: on("local", "m"), audit: 1 }, tb: { mode: on("local", "m"), audit: 0 } },
  );
  assert.deepEqual([...all.audited], ["a"]);
  assert.deepEqual(
    all.forHost.map((q) => q.id),
    ["a", "c"],
  );
  assert.deepEqual(
    all.turnedOn.get("local/m")!.questions.map((q) => q.id),
    ["a", "b"],
  );
});

test("a shadow type's audit and calibration settings are ignored: only turned-on questions are audited or calibrated", () => {
  const t = plan({ ta: shadow("local", "m") }, { ta: { mode: shadow("local", "m"), audit: 1, calibration: CAL, min_confidence: 0.3 } });
  assert.equal(t.audited.size, 0);
  assert.equal(t.calibrations.size, 0);
  assert.equal(t.shadows.get("local/m")!.questions[0]!.min_confidence, 0.3);
});

test("needsHost: only when a host or shadow question is asked; audit questions alone do not need the host", () => {
  const q = noul("a", "t");
  assert.equal(needsHost({ forHost: [], audited: new Set() }), false);
  assert.equal(needsHost({ forHost: [q], audited: new Set(["a"]) }), false);
  assert.equal(needsHost({ forHost: [q], audited: new Set() }), true);
  assert.equal(needsHost({ forHost: [q, noul("b", "t")], audited: new Set(["a"]) }), true);
});

test("D-33: a table entry's settings apply while the type runs in their mode; a --decide to another mode drops them", () => {
  const settings: TypeSettings = { mode: on("local", "m"), audit: 0.5 };
  const config = machine({});
  config.decisions.settings = { t: settings };
  assert.equal(settingsFor(config, {}, "t"), settings);
  assert.equal(settingsFor(config, { t: on("local", "m") }, "t"), settings);
  assert.equal(settingsFor(config, { t: on("local", "m2") }, "t"), undefined);
  assert.equal(settingsFor(config, { t: shadow("local", "m") }, "t"), undefined);
  assert.equal(settingsFor(config, { other: HOST }, "t"), settings);
  assert.equal(settingsFor(config, {}, "u"), undefined);
});
