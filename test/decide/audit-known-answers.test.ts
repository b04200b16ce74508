// D-34: whether a decision is audited is its point — the first 48 bits of SHA-256 over the seed and
// its ids, joined by NUL (an unmapped key as \u0001) — below the fraction. The points here were
// computed with Python's hashlib, independently of the code under test:
//   int.from_bytes(sha256("\0".join([seed, run, task, key, question]).encode()).digest()[:6], "big")

import { test } from "node:test";
import assert from "node:assert/strict";
import { auditSampled } from "../../src/decide/audit.js";

/** ("switchyard-audit-1", "run-1", "gate", "k1", "q") */
const KEYED = 45274183228325 / 2 ** 48; // 0.16084621005179045
/** ("switchyard-audit-1", "run-1", "gate", null → "\u0001", "q") */
const UNMAPPED = 122222064002284 / 2 ** 48; // 0.43421999863214467
/** ("other-seed", "run-1", "gate", "k1", "q") */
const OTHER_SEED = 148704130810965 / 2 ** 48; // 0.5283031996262544
const ULP = 2 ** -48;

test("D-34: a decision is sampled when its point is below the fraction — at exactly its point it is not, one step above it is", () => {
  assert.equal(auditSampled(KEYED, "run-1", "gate", "k1", "q"), false);
  assert.equal(auditSampled(KEYED + ULP, "run-1", "gate", "k1", "q"), true);
  assert.equal(auditSampled(1, "run-1", "gate", "k1", "q"), true);
  assert.equal(auditSampled(0, "run-1", "gate", "k1", "q"), false);
  assert.equal(auditSampled(-1, "run-1", "gate", "k1", "q"), false);
});

test("D-34: an unmapped decision (key null) hashes \\u0001 in the key's place", () => {
  assert.equal(auditSampled(UNMAPPED, "run-1", "gate", null, "q"), false);
  assert.equal(auditSampled(UNMAPPED + ULP, "run-1", "gate", null, "q"), true);
  // The empty key is another decision, at 0.11037979339225856: inside 0.12, where the unmapped one is not.
  assert.equal(auditSampled(0.12, "run-1", "gate", "", "q"), true);
  assert.equal(auditSampled(0.12, "run-1", "gate", null, "q"), false);
});

test("D-34: the seed is part of the point", () => {
  assert.equal(auditSampled(OTHER_SEED, "run-1", "gate", "k1", "q", "other-seed"), false);
  assert.equal(auditSampled(OTHER_SEED + ULP, "run-1", "gate", "k1", "q", "other-seed"), true);
  // With the engine's seed the same ids sit at 0.1608…, inside a fraction of 0.2; with the other seed they are outside it.
  assert.equal(auditSampled(0.2, "run-1", "gate", "k1", "q"), true);
  assert.equal(auditSampled(0.2, "run-1", "gate", "k1", "q", "other-seed"), false);
});
