// how plain `switchyard show` renders a route instance's decision record — the
// label, confidence, mode and who answered per question, refusals, and a line per receipt — and
// that anything that is not a decision record is left to the raw rendering. (The CLI output of
// real runs is checked in modes.test.ts.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { describeDecisions } from "../../src/cli/show.js";
import type { QuestionDecision } from "../../src/run/kinds/judge.js";

const base: QuestionDecision = {
  label: "yes",
  probabilities: { yes: 1, no: 0 },
  confidence: 1,
  refused: false,
  judgement_type: "pb.r.q",
  mode: "output",
  provider: null,
  model: null,
  latency_ms: 0,
  usage: null,
};

test("show: a record's questions on one line — output, host, shadow, turned on, refused — and a line per receipt", () => {
  const out = describeDecisions({
    a: base,
    b: { ...base, label: "uncertain", confidence: 0.4321, mode: "model", provider: "s1", model: "jev-1" },
    c: { ...base, label: "uncertain", confidence: 0, refused: true, mode: "model", provider: "oai", model: "gpt-6-luna" },
    d: {
      ...base,
      label: "no",
      mode: "model",
      provider: "host",
      model: "claude",
      receipt: {
        type: "pb.r.d",
        key: "k1",
        provider: "s1",
        model: "jev-1",
        reason: "error: HTTP 503: busy",
        time: "2026-12-02T15:00:00.000Z",
      },
    },
    e: { ...base, mode: "shadow", provider: "host", model: "tty" },
  });
  assert.deepEqual(out, {
    line: "a=yes 1.00 output  b=uncertain 0.43 model s1/jev-1  c=uncertain 0.00 refused model oai/gpt-6-luna  d=no 1.00 model host/claude  e=yes 1.00 shadow host/tty",
    receipts: ["receipt: d: s1/jev-1 could not answer, the host did: error: HTTP 503: busy"],
  });
});

test("show: outputs that are not decision records are not described (the raw rendering applies)", () => {
  for (const v of [null, undefined, "x", [], {}, { a: { label: "x" } }, { a: base, b: 3 }])
    assert.equal(describeDecisions(v), undefined, JSON.stringify(v));
  const long = describeDecisions({
    d: { ...base, receipt: { type: "t", key: null, provider: "p", model: "m", reason: "error: " + "x".repeat(400), time: "" } },
  })!;
  assert.ok(long.receipts[0]!.length < 320 && long.receipts[0]!.endsWith("..."));
});
