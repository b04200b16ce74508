// Q-10 … Q-12 at their limits: a sum 2^-10 from 1 is kept and 2^-9 from 1 is normalised (the
// tolerance is 1e-3); a confidence exactly at min_confidence keeps its label, one step below is
// uncertain; 0 and 1 are probabilities, just outside them is not; every message word for word.

import { test } from "node:test";
import assert from "node:assert/strict";
import { answerFor, resolveAll, resolveAnswer } from "../../src/decide/answer.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";
import { choiceQ, noulQ, scoreQ } from "../support/decide-fixtures.js";

const abc = choiceQ("team", { billing: "", technical: "", other: "" });

function fails(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof DecisionFailure);
    assert.equal(e.code, "invalid-answer");
    assert.equal(e.message, message);
    return true;
  });
}
const invalid = (what: string) => `Q-10: the answer to question 'team' (choice) is invalid: ${what}`;

test("Q-10: a sum 2^-10 above 1 is kept as given; 2^-9 above 1 is normalised", () => {
  const kept = resolveAnswer(abc, { probabilities: { billing: 0.25, technical: 0.5 + 2 ** -10, other: 0.25 } });
  assert.deepEqual(kept.probabilities, { billing: 0.25, technical: 0.5 + 2 ** -10, other: 0.25 });
  const keptBelow = resolveAnswer(abc, { probabilities: { billing: 0.25, technical: 0.5 - 2 ** -10, other: 0.25 } });
  assert.equal(keptBelow.probabilities.technical, 0.5 - 2 ** -10);
  const sum = 1 + 2 ** -9;
  const scaled = resolveAnswer(abc, { probabilities: { billing: 0.25, technical: 0.5 + 2 ** -9, other: 0.25 } });
  assert.deepEqual(scaled.probabilities, { billing: 0.25 / sum, technical: (0.5 + 2 ** -9) / sum, other: 0.25 / sum });
  assert.equal(scaled.confidence, (0.5 + 2 ** -9) / sum);
  const low = resolveAnswer(abc, { probabilities: { billing: 0.1, technical: 0.2, other: 0.1 } });
  assert.deepEqual(low.probabilities, { billing: 0.25, technical: 0.5, other: 0.25 });
  assert.equal(low.label, "technical");
});

test("Q-11: a confidence exactly at min_confidence keeps its label; one step below it is uncertain", () => {
  const q = choiceQ("team", { billing: "", technical: "", other: "" }, 0.5);
  assert.equal(resolveAnswer(q, { probabilities: { billing: 0.25, technical: 0.5, other: 0.25 } }).label, "technical");
  const below = resolveAnswer(q, { probabilities: { billing: 0.25 + 2 ** -12, technical: 0.5 - 2 ** -12, other: 0.25 } });
  assert.equal(below.label, "uncertain");
  assert.equal(below.confidence, 0.5 - 2 ** -12);
  assert.equal(below.refused, false);
});

test("Q-10: only a strictly greater probability displaces an earlier label", () => {
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 0.3, technical: 0.4, other: 0.3 } }).label, "technical");
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 0.4, technical: 0.2, other: 0.4 } }).label, "billing");
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 0.2, technical: 0.2, other: 0.6 } }).label, "other");
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 0, technical: 0, other: 1 } }).label, "other");
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 1, technical: 0, other: 0 } }).confidence, 1);
});

test("Q-10: a probability is a number from 0 to 1; each other value is named word for word", () => {
  const p = (billing: unknown) => ({ probabilities: { billing, technical: 0.5, other: 0.5 } as Record<string, number> });
  fails(() => resolveAnswer(abc, p("0.5")), invalid(`the probability of 'billing' is string "0.5", not a number`));
  fails(() => resolveAnswer(abc, p(null)), invalid(`the probability of 'billing' is null null, not a number`));
  fails(() => resolveAnswer(abc, p(Number.NaN)), invalid(`the probability of 'billing' is NaN`));
  fails(() => resolveAnswer(abc, p(-Infinity)), invalid(`the probability of 'billing' is -Infinity`));
  fails(() => resolveAnswer(abc, p(-(2 ** -20))), invalid(`the probability of 'billing' is ${-(2 ** -20)}, negative`));
  fails(() => resolveAnswer(abc, p(1 + 2 ** -20)), invalid(`the probability of 'billing' is ${1 + 2 ** -20}, above 1`));
  assert.equal(resolveAnswer(abc, p(0)).probabilities.billing, 0);
  assert.equal(resolveAnswer(abc, { probabilities: { billing: 1, technical: 0, other: 0 } }).probabilities.billing, 1);
});

test("Q-10: missing, unknown and absent probabilities are named word for word", () => {
  fails(() => resolveAnswer(abc, { probabilities: { billing: 1 } }), invalid(`labels 'technical', 'other' missing from its probabilities`));
  fails(
    () => resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.5 } }),
    invalid(`label 'other' missing from its probabilities`),
  );
  fails(
    () => resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.5, other: 0, biling: 0 } }),
    invalid(`it gives a probability for 'biling', a label not asked about (labels: billing, technical, other); did you mean 'billing'?`),
  );
  fails(
    () => resolveAnswer(abc, { probabilities: { billing: 0.5, technical: 0.5, other: 0, zzzzzz: 0 } }),
    invalid(`it gives a probability for 'zzzzzz', a label not asked about (labels: billing, technical, other)`),
  );
  for (const probabilities of [undefined, null, [0.5, 0.5], "0.5"]) {
    fails(() => resolveAnswer(abc, { probabilities } as never), invalid("it has no probabilities"));
  }
  fails(() => resolveAnswer(abc, { probabilities: { billing: 0, technical: 0, other: 0 } }), invalid("its probabilities sum to 0"));
});

test("Q-11: a refusal is uncertain with confidence 0, keeping a copy of what was given", () => {
  const given = { billing: 0.9, technical: 0.1, other: 0 };
  const a = resolveAnswer(abc, { refused: true, probabilities: given });
  assert.deepEqual(a, { label: "uncertain", probabilities: given, confidence: 0, refused: true });
  assert.notEqual(a.probabilities, given);
  assert.deepEqual(resolveAnswer(abc, { refused: true }), { label: "uncertain", probabilities: {}, confidence: 0, refused: true });
});

test("Q-12: the expected level of a score is Σ index × probability; other kinds have none", () => {
  const q = scoreQ("severity", { low: "", mid: "", high: "" });
  const a = resolveAnswer(q, { probabilities: { low: 0.25, mid: 0.25, high: 0.5 } });
  assert.equal(a.expected_level, 0 * 0.25 + 1 * 0.25 + 2 * 0.5);
  assert.equal(a.label, "high");
  assert.equal(resolveAnswer(q, { probabilities: { low: 1, mid: 0, high: 0 } }).expected_level, 0);
  assert.equal("expected_level" in resolveAnswer(noulQ("spam"), { probabilities: { yes: 0.5, no: 0.5 } }), false);
  assert.equal("expected_level" in resolveAnswer(abc, { probabilities: { billing: 1, technical: 0, other: 0 } }), false);
});

test("D-22: every question of a response is resolved; one without an answer is named", () => {
  const spam = noulQ("spam");
  const all = resolveAll([abc, spam], {
    answers: { team: { probabilities: { billing: 0, technical: 1, other: 0 } }, spam: { probabilities: { yes: 0.25, no: 0.75 } } },
  } as never);
  assert.deepEqual(Object.keys(all), ["team", "spam"]);
  assert.equal(all.team!.label, "technical");
  assert.equal(all.spam!.label, "no");
  assert.throws(
    () => answerFor(spam, { answers: {} } as never),
    (e: unknown) =>
      e instanceof DecisionFailure &&
      e.code === "invalid-answer" &&
      e.message === "D-22: the response has no answer for question 'spam' (noul)",
  );
});
