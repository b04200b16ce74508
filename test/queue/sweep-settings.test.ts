// The sweeper's two settings for tests and operators: $SWITCHYARD_QUEUE_SWEEP_MS (its interval,
// 100 to 60000 ms, else 2000) and $SWITCHYARD_QUEUE_ORPHAN_GRACE_S (the grace for a pool no live
// worker registered, 1 to 3600 s, else 30). A value out of range or not a whole number is ignored
// (docs/distributed.md); that they take effect in a worker is test/queue/two-stores'.

import { test } from "node:test";
import assert from "node:assert/strict";
import { sweepIntervalMs, unregisteredLockGraceSeconds } from "../../src/run/queue/names.js";

const SETTINGS = [
  { name: "SWITCHYARD_QUEUE_SWEEP_MS", read: sweepIntervalMs, fallback: 2000, min: 100, max: 60000 },
  { name: "SWITCHYARD_QUEUE_ORPHAN_GRACE_S", read: unregisteredLockGraceSeconds, fallback: 30, min: 1, max: 3600 },
];

for (const { name, read, fallback, min, max } of SETTINGS)
  test(`${name}: a whole number from ${min} to ${max}; unset, malformed or out of range gives ${fallback}`, () => {
    const at = (v?: string) => read(v === undefined ? {} : { [name]: v });
    assert.equal(at(), fallback);
    assert.equal(at(String(min)), min);
    assert.equal(at(String(min - 1)), fallback);
    assert.equal(at(String(max)), max);
    assert.equal(at(String(max + 1)), fallback);
    assert.equal(at(` ${min + 1} `), min + 1);
    for (const bad of ["", "-5", "1.5", "1e3", `${min}ms`, "abc"]) assert.equal(at(bad), fallback, JSON.stringify(bad));
  });
