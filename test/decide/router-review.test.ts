// D-60/D-61/H-5 in the router: a review-mode question asks nobody and goes to review; a turned-on
// answer below escalate_below goes to review with the model's decision, one at or above it stands;
// the host is never asked about either; a person's answer to an escalated question is a reviewed pair.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createJudge } from "../../src/decide/router.js";
import { ReviewNeeded } from "../../src/run/kinds/index.js";
import { ScriptedProvider, answering, hostAnswering } from "./router-support.js";
import { MemorySink, machine, noul, provider, request, on } from "./router-support.js";

function judgeWith(p: number) {
  const config = machine({
    providers: [provider("local", ["m1"])],
    types: { esc: on("local", "m1"), rev: { kind: "review" } },
  });
  config.decisions.settings = { esc: { mode: on("local", "m1"), escalate_below: 0.7 } };
  const model = new ScriptedProvider(
    "local",
    answering(() => "yes", p),
  );
  const host = new ScriptedProvider(
    "host",
    hostAnswering(() => "no"),
  );
  const pairs = new MemorySink();
  const judge = createJudge({
    config,
    stateDir: "/nonexistent",
    pairs,
    providers: { local: model },
    host,
    env: {},
    now: () => new Date(0),
  });
  return { judge, model, host, pairs };
}

test("D-60/D-61: below escalate_below the model's answer goes to review with the review question; the host is not asked", async () => {
  const { judge, model, host } = judgeWith(0.69);
  const err = await judge.judge(request([noul("a", "esc"), noul("b", "rev")])).then(
    () => assert.fail("expected ReviewNeeded"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ReviewNeeded);
  assert.deepEqual(
    err.questions.map((q) => [q.id, q.model?.label ?? null, q.model?.confidence ?? null]),
    [
      ["b", null, null],
      ["a", "yes", 0.69],
    ],
  );
  assert.deepEqual(err.decided, {});
  assert.equal(model.requests.length, 1);
  assert.deepEqual(
    model.requests[0]!.questions.map((q) => q.id),
    ["a"],
  );
  assert.equal(host.requests.length, 0);
});

test("D-61: at exactly escalate_below the model's answer stands", async () => {
  const { judge, host } = judgeWith(0.7);
  const record = await judge.judge(request([noul("a", "esc")]));
  assert.equal(record.a!.label, "yes");
  assert.equal(record.a!.mode, "model");
  assert.equal(host.requests.length, 0);
});

test("H-5: a person's answer to an escalated question is a reviewed pair beside the model's answer", async () => {
  const { judge, pairs } = judgeWith(0.6);
  const err = (await judge.judge(request([noul("a", "esc")])).catch((e: unknown) => e)) as ReviewNeeded;
  const q = err.questions[0]!;
  judge.reviewed({
    run: "run-1",
    task: "gate",
    key: "CVE-1",
    attempt: 1,
    question: { ...q, model: q.model! },
    state_text: '{"title":"a bug"}',
    label: "no",
    by: "ana",
    at: "2026-12-04T09:00:00.000Z",
  });
  assert.equal(pairs.pairs.length, 1);
  const p = pairs.pairs[0]!;
  assert.equal(p.kind, "reviewed");
  assert.equal(p.host_label, "no");
  assert.deepEqual(p.reviewed, { label: "no", by: "ana", source: "review queue", time: "2026-12-04T09:00:00.000Z" });
  assert.equal(p.model?.label, "yes");
  assert.equal(p.model?.confidence, 0.6);
  assert.equal(p.attempt, 1);
});
