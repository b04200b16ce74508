import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveAll, resolveAnswer, noulDistribution } from "../../src/decide/answer.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";
import { choiceQ, noulQ, scoreQ } from "../support/decide-fixtures.js";

const abc = choiceQ("team", { billing: "Payments", technical: "Bugs", other: "" });

function failsWith(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof DecisionFailure, `expected DecisionFailure, got ${String(e)}`);
    assert.match(e.message, pattern);
    assert.equal(e.code, "invalid-answer");
    return true;
  });
}

test("Q-10: the answer is the most probable label, confidence its probability (Q-11)", () => {
  const a = resolveAnswer(abc, { probabilities: { billing: 0.2, technical: 0.7, other: 0.1 } });
  assert.equal(a.label, "technical");
  assert.equal(a.confidence, 0.7);
  assert.equal(a.refused, false);
  assert.deepEqual(a.probabilities, { billing: 0.2, technical: 0.7, other: 0.1 });
  assert.equal(a.expected_level, undefined);
});

test("Q-10: ties go to the first label in declared order", () => {
  assert.equal(resolveAnswer(abc, { probabilities: { other: 0.4, technical: 0.4, billing: 0.2 } }).label, "technical");
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 1 / 3, technical: 1 / 3, other: 1 / 3 } }).label, "billing");
});

test("Q-10: a sum within 1e-3 of 1 is kept as given; further off it is normalised", () => {
  const near = resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.3, other: 0.2005 } });
  assert.equal(near.probabilities.other, 0.2005);
  const off = resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.5, other: 1 } });
  assert.deepEqual(off.probabilities, { billing: 0.25, technical: 0.25, other: 0.5 });
  assert.equal(off.label, "other");
  assert.equal(off.confidence, 0.5);
  const low = resolveAnswer(abc, { probabilities: { billing: 0.1, technical: 0.3, other: 0 } });
  assert.ok(Math.abs(low.probabilities.technical! - 0.75) < 1e-12);
});

test("Q-10: invalid distributions fail, naming what was wrong", () => {
  failsWith(() => resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.5 } }), /label 'other' missing/);
  failsWith(
    () => resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.5, other: 0, biling: 0 } }),
    /'biling', a label not asked about.*did you mean 'billing'/,
  );
  failsWith(
    () => resolveAnswer(abc, { probabilities: { billing: -0.1, technical: 0.6, other: 0.5 } }),
    /probability of 'billing' is -0.1, negative/,
  );
  failsWith(() => resolveAnswer(abc, { probabilities: { billing: Number.NaN, technical: 0.6, other: 0.4 } }), /'billing' is NaN/);
  failsWith(() => resolveAnswer(abc, { probabilities: { billing: 1.2, technical: 0, other: 0 } }), /'billing' is 1.2, above 1/);
  failsWith(() => resolveAnswer(abc, { probabilities: { billing: Infinity, technical: 0, other: 0 } }), /'billing' is Infinity/);
  failsWith(
    () => resolveAnswer(abc, { probabilities: { billing: "0.5" as unknown as number, technical: 0, other: 0 } }),
    /'billing' is string "0.5", not a number/,
  );
  failsWith(() => resolveAnswer(abc, { probabilities: { billing: 0, technical: 0, other: 0 } }), /sum to 0/);
  failsWith(() => resolveAnswer(abc, {}), /question 'team' \(choice\).*has no probabilities/);
});

test("Q-11: below min_confidence the label is uncertain, probabilities and confidence kept", () => {
  const q = choiceQ("team", { billing: "", technical: "" }, 0.8);
  const a = resolveAnswer(q, { probabilities: { billing: 0.75, technical: 0.25 } });
  assert.equal(a.label, "uncertain");
  assert.equal(a.confidence, 0.75);
  assert.equal(resolveAnswer(q, { probabilities: { billing: 0.8, technical: 0.2 } }).label, "billing");
});

test("Q-11: a refusal is uncertain, recorded as refused, probabilities as given or {}", () => {
  assert.deepEqual(resolveAnswer(abc, { refused: true }), { label: "uncertain", probabilities: {}, confidence: 0, refused: true });
  const given = resolveAnswer(abc, { refused: true, probabilities: { billing: 0.9 } });
  assert.deepEqual(given.probabilities, { billing: 0.9 });
  assert.equal(given.refused, true);
});

test("Q-12: noul P(yes) gives {yes: p, no: 1 - p}; a bad P(yes) is named", () => {
  const q = noulQ("urgent");
  const a = resolveAnswer(q, { probabilities: noulDistribution(0.3) });
  assert.equal(a.label, "no");
  assert.ok(Math.abs(a.confidence - 0.7) < 1e-12);
  assert.equal(resolveAnswer(q, { probabilities: noulDistribution(0.5) }).label, "yes"); // tie → first declared
  failsWith(() => resolveAnswer(q, { probabilities: noulDistribution(1.5) }), /'yes' is 1.5, above 1/);
  failsWith(() => resolveAnswer(q, { probabilities: noulDistribution(null) }), /'yes' is null/);
});

test("Q-12: score answers carry per-level probabilities and the expected level", () => {
  const q = scoreQ("severe", { low: "", medium: "", high: "" });
  const a = resolveAnswer(q, { probabilities: { low: 0.1, medium: 0.3, high: 0.6 } });
  assert.equal(a.label, "high");
  assert.ok(Math.abs(a.expected_level! - 1.5) < 1e-12);
  const u = resolveAnswer({ ...q, min_confidence: 0.7 }, { probabilities: { low: 0.1, medium: 0.3, high: 0.6 } });
  assert.equal(u.label, "uncertain");
  assert.ok(Math.abs(u.expected_level! - 1.5) < 1e-12);
});

test("D-22: resolveAll fails a question the response does not answer, naming it", () => {
  const q2 = noulQ("urgent");
  assert.throws(
    () =>
      resolveAll([abc, q2], { answers: { team: { probabilities: { billing: 1, technical: 0, other: 0 } } }, usage: null, latency_ms: 1 }),
    /no answer for question 'urgent' \(noul\)/,
  );
});
