// The pair a shadow or audited question leaves for the lab (routing/shadow-pair.ts), written out
// whole by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { pairOf } from "../../../src/decide/routing/shadow-pair.js";
import { noul, request } from "../router-support.js";

const T = new Date("2026-12-02T12:00:00.000Z");
const q = noul("exploitable", "triage.x");
const req = { ...request([q], "CVE-7", { title: "a bug" }), attempt: 2 };
const digest = "sha256:" + createHash("sha256").update('{"title":"a bug"}').digest("hex");
const mode = { provider: "local", model: "m" };
const answered = {
  ok: true as const,
  answer: { label: "yes", probabilities: { yes: 0.7, no: 0.3 }, confidence: 0.7, refused: false },
  latency_ms: 12,
  usage: { input_tokens: 40 },
};
const base = {
  time: "2026-12-02T12:00:00.000Z",
  run: "run-1",
  type: "triage.x",
  task: "gate",
  key: "CVE-7",
  attempt: 2,
  question: { id: "exploitable", kind: "noul", labels: ["yes", "no"] },
  state_digest: digest,
  host_label: "no",
};

test("H-1: a shadow pair holds the host's label beside the model's whole answer", () => {
  assert.deepEqual(pairOf(req, q, mode, "no", answered, T), {
    ...base,
    model: {
      provider: "local",
      model: "m",
      label: "yes",
      probabilities: { yes: 0.7, no: 0.3 },
      confidence: 0.7,
      refused: false,
      latency_ms: 12,
      usage: { input_tokens: 40 },
    },
  });
});

test("H-1: a skipped pair's reason is 'window' alone, else 'WHY: REASON'", () => {
  assert.deepEqual(pairOf(req, q, mode, "no", { ok: false, why: "window", reason: "too big" }, T), {
    ...base,
    skipped: { provider: "local", model: "m", reason: "window" },
  });
  assert.deepEqual(pairOf(req, q, mode, "no", { ok: false, why: "resolver", reason: "D-30: denied" }, T).skipped, {
    provider: "local",
    model: "m",
    reason: "resolver: D-30: denied",
  });
});

test("D-34: an audit pair is marked; with a calibration it carries the raw confidence, the calibrated one and the label that gated", () => {
  const plain = pairOf(req, q, mode, "no", answered, T, {});
  assert.equal(plain.kind, "audit");
  assert.equal(plain.model!.confidence, 0.7);
  assert.equal(plain.model!.calibrated_confidence, undefined);
  const calibrated = { answer: { ...answered.answer, label: "uncertain", confidence: 0.35 }, raw: 0.7, id: "cal-x" };
  const p = pairOf(req, q, mode, "no", answered, T, { calibrated });
  assert.equal(p.kind, "audit");
  assert.equal(p.model!.label, "uncertain");
  assert.equal(p.model!.confidence, 0.7);
  assert.equal(p.model!.calibrated_confidence, 0.35);
  assert.equal(p.model!.calibration, "cal-x");
});

test("a pair without an attempt carries none; a shadow pair has no kind", () => {
  const p = pairOf(request([q], null), q, mode, "no", answered, T);
  assert.equal("attempt" in p, false);
  assert.equal("kind" in p, false);
  assert.equal(p.key, null);
});

test("H-1: a pair records what the host's answer took, when given, for the lab's cost figures", () => {
  const p = pairOf(req, q, mode, "no", answered, T, undefined, { latency_ms: 950, usage: { input_tokens: 1200, cost_usd: 0.004 } });
  assert.deepEqual(p.host, { latency_ms: 950, usage: { input_tokens: 1200, cost_usd: 0.004 } });
  assert.equal("host" in pairOf(req, q, mode, "no", answered, T), false);
});
