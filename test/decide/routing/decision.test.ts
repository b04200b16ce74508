// Step 4 of a judgement (routing/decision.ts): the decision record assembled from what was
// answered, each record written out by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { assemble, decisionOf } from "../../../src/decide/routing/decision.js";
import type { Answers, HostAnswer, ModelOutcome } from "../../../src/decide/routing/outcomes.js";
import type { JudgementMode } from "../../../src/decide/config-types.js";
import { noul, on, request, shadow, shadowOf } from "../router-support.js";

const NOW = new Date("2026-12-02T12:00:00.000Z");
const yes = (confidence: number) => ({ label: "yes", probabilities: { yes: confidence, no: 1 - confidence }, confidence, refused: false });
const hostSaid = (label: string): HostAnswer => ({
  answer: { label, probabilities: label === "yes" ? { yes: 1, no: 0 } : { yes: 0, no: 1 }, confidence: 1, refused: false },
  latency_ms: 3,
  usage: null,
});

function answers(partial: Partial<Answers>): Answers {
  return {
    hostAnswers: new Map(),
    fallbackAnswers: new Map(),
    shadowOutcomes: new Map(),
    modelOutcomes: new Map(),
    fallbackReasons: new Map(),
    calibrated: new Map(),
    ...partial,
  };
}

function run(
  qs: ReturnType<typeof noul>[],
  modes: Record<string, JudgementMode>,
  a: Answers,
  audited: string[] = [],
  thresholds: Record<string, number> = {},
) {
  const pairs: Array<{ id: string; hostLabel: string; outcome: ModelOutcome; audit: unknown }> = [];
  const hosts: unknown[] = [];
  const t = { modes: new Map(Object.entries(modes)), audited: new Set(audited), thresholds: new Map(Object.entries(thresholds)) };
  const record = assemble(request(qs), t, a, {
    hostName: "scripted",
    now: () => NOW,
    appendPair: (_r, q, _m, hostLabel, outcome, audit, host) => {
      pairs.push({ id: q.id, hostLabel, outcome, audit });
      hosts.push(host);
    },
  });
  return { record, pairs, hosts };
}

test("decisionOf: one record, with options and expected_level only when they exist", () => {
  const q = noul("a", "t");
  assert.deepEqual(decisionOf(q, yes(0.9), "model", "local", "m", 7, { input_tokens: 3 }), {
    label: "yes",
    probabilities: { yes: 0.9, no: 1 - 0.9 },
    confidence: 0.9,
    refused: false,
    judgement_type: "t",
    mode: "model",
    provider: "local",
    model: "m",
    latency_ms: 7,
    usage: { input_tokens: 3 },
    min_confidence: 0,
  });
  const options = [{ value: "x", description: "X" }];
  const d = decisionOf({ ...q, resolved_options: options }, { ...yes(1), expected_level: 1.5 }, "host", "host", "h", 0, null);
  assert.deepEqual(d.options, options);
  assert.equal(d.expected_level, 1.5);
});

test("D-20/H-1: host and shadow questions are the host's answers; a shadow pair is appended, 'not asked' when the model has no outcome", () => {
  const { record, pairs } = run(
    [noul("a", "t"), noul("b", "u")],
    { a: { kind: "host" }, b: shadow("local", "m") },
    answers({
      hostAnswers: new Map([
        ["a", hostSaid("yes")],
        ["b", hostSaid("no")],
      ]),
    }),
  );
  assert.equal(record.a!.mode, "host");
  assert.equal(record.a!.provider, "host");
  assert.equal(record.a!.model, "scripted");
  assert.equal(record.b!.mode, "shadow");
  assert.equal(record.b!.label, "no");
  assert.deepEqual(pairs, [
    { id: "b", hostLabel: "no", outcome: { ok: false, why: "error", reason: "the model was not asked" }, audit: undefined },
  ]);
});

test("D-33/D-34: a turned-on answer is the model's, calibrated when mapped, with its audit label and pair", () => {
  const o: ModelOutcome = { ok: true, answer: yes(0.8), latency_ms: 9, usage: { input_tokens: 1 } };
  const c = { answer: { ...yes(0.8), confidence: 0.4 }, raw: 0.8, id: "cal-x" };
  const { record, pairs } = run(
    [noul("a", "t")],
    { a: on("local", "m") },
    answers({ modelOutcomes: new Map([["a", o]]), calibrated: new Map([["a", c]]), hostAnswers: new Map([["a", hostSaid("no")]]) }),
    ["a"],
  );
  assert.deepEqual(record.a, {
    ...decisionOf(noul("a", "t"), c.answer, "model", "local", "m", 9, { input_tokens: 1 }),
    raw_confidence: 0.8,
    calibration: "cal-x",
    audit: { host_label: "no" },
  });
  assert.deepEqual(pairs, [{ id: "a", hostLabel: "no", outcome: o, audit: { calibrated: c } }]);
});

test("D-31: a turned-on question that fell back is the host's answer with a receipt; an audited one takes the audit answer", () => {
  const failed: ModelOutcome = { ok: false, why: "error", reason: "HTTP 500" };
  const { record, pairs } = run(
    [noul("a", "t"), noul("b", "t")],
    { a: on("local", "m"), b: on("local", "m") },
    answers({
      modelOutcomes: new Map([
        ["a", failed],
        ["b", failed],
      ]),
      fallbackReasons: new Map([
        ["a", "error: HTTP 500"],
        ["b", "error: HTTP 500"],
      ]),
      fallbackAnswers: new Map([["a", hostSaid("yes")]]),
      hostAnswers: new Map([["b", hostSaid("no")]]),
    }),
    ["b"],
  );
  const receipt = { type: "t", key: "CVE-1", provider: "local", model: "m", reason: "error: HTTP 500", time: "2026-12-02T12:00:00.000Z" };
  assert.deepEqual(record.a, { ...decisionOf(noul("a", "t"), hostSaid("yes").answer, "model", "host", "scripted", 3, null), receipt });
  assert.deepEqual(record.b, { ...decisionOf(noul("b", "t"), hostSaid("no").answer, "model", "host", "scripted", 3, null), receipt });
  assert.deepEqual(pairs, [{ id: "b", hostLabel: "no", outcome: failed, audit: {} }]);
});

test("H-1: every pair carries what the host's answer took (latency and usage), shadow and audit alike", () => {
  const o: ModelOutcome = { ok: true, answer: yes(0.8), latency_ms: 9, usage: null };
  const costly: HostAnswer = { ...hostSaid("no"), latency_ms: 640, usage: { input_tokens: 900, cost_usd: 0.003 } };
  const { hosts } = run(
    [noul("a", "t"), noul("b", "t")],
    { a: shadow("local", "m"), b: on("local", "m") },
    answers({
      hostAnswers: new Map([
        ["a", costly],
        ["b", hostSaid("yes")],
      ]),
      shadowOutcomes: new Map([["local/m", new Map([["a", o]])]]),
      modelOutcomes: new Map([["b", o]]),
    }),
    ["b"],
  );
  assert.deepEqual(hosts, [
    { latency_ms: 640, usage: { input_tokens: 900, cost_usd: 0.003 } },
    { latency_ms: 3, usage: null },
  ]);
});

test("H-6: a shadow question with two candidates leaves one pair per candidate, each with its own outcome and the same host answer", () => {
  const m1: ModelOutcome = { ok: true, answer: yes(0.9), latency_ms: 11, usage: { cost_usd: 0.001 } };
  const m2: ModelOutcome = { ok: false, why: "error", reason: "HTTP 500" };
  const seen: Array<{ model: string; id: string; hostLabel: string; outcome: ModelOutcome }> = [];
  const record = assemble(
    request([noul("a", "t")]),
    { modes: new Map([["a", shadowOf("local/m1", "other/m2", "local/m3")]]), audited: new Set(), thresholds: new Map() },
    answers({
      hostAnswers: new Map([["a", hostSaid("no")]]),
      shadowOutcomes: new Map<string, Map<string, ModelOutcome>>([
        ["other/m2", new Map([["a", m2]])],
        ["local/m1", new Map([["a", m1]])],
      ]),
    }),
    {
      hostName: "scripted",
      now: () => NOW,
      appendPair: (_r, q, m, hostLabel, outcome) => seen.push({ model: `${m.provider}/${m.model}`, id: q.id, hostLabel, outcome }),
    },
  );
  // The host's answer is the decision, as with one shadow model.
  assert.deepEqual(record.a, decisionOf(noul("a", "t"), hostSaid("no").answer, "shadow", "host", "scripted", 3, null));
  // In the mode's order; a candidate whose call never settled is recorded as not asked.
  assert.deepEqual(seen, [
    { model: "local/m1", id: "a", hostLabel: "no", outcome: m1 },
    { model: "other/m2", id: "a", hostLabel: "no", outcome: m2 },
    { model: "local/m3", id: "a", hostLabel: "no", outcome: { ok: false, why: "error", reason: "the model was not asked" } },
  ]);
});

test("Q-11/D-33: a model's answer records the threshold it was tested against (the config's); the host's answers record the playbook's", () => {
  const o: ModelOutcome = { ok: true, answer: { ...yes(0.7), label: "uncertain" }, latency_ms: 5, usage: null };
  const { record } = run(
    [noul("a", "t", 0.5), noul("b", "u", 0.4), noul("c", "v", 0.3)],
    { a: on("local", "m"), b: { kind: "host" }, c: on("local", "m") },
    answers({
      modelOutcomes: new Map([["a", o]]),
      hostAnswers: new Map([["b", hostSaid("yes")]]),
      fallbackAnswers: new Map([["c", hostSaid("no")]]),
      fallbackReasons: new Map([["c", "error: HTTP 500"]]),
    }),
    [],
    { a: 0.82, c: 0.9 },
  );
  assert.equal(record.a!.min_confidence, 0.82);
  assert.equal(record.a!.label, "uncertain");
  assert.equal(record.b!.min_confidence, 0.4);
  // The host answered c in the model's place, asked with the playbook's threshold.
  assert.equal(record.c!.min_confidence, 0.3);
  assert.ok(record.c!.receipt);
});
