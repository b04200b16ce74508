// Step 2 of a judgement, per call (routing/ask.ts): what the host and a model are sent, and what
// becomes of their failures.

import { test } from "node:test";
import assert from "node:assert/strict";
import { askHost, askModel, providerRequest } from "../../../src/decide/routing/ask.js";
import { DecisionFailure } from "../../../src/run/kinds/judge.js";
import { ScriptedProvider, answering, failing, hostAnswering, machine, noul, provider, request } from "../router-support.js";

const qs = [noul("a", "t"), noul("b", "t")];

test("providerRequest: the instance's state and context, and its process-group hooks only when it has them", () => {
  const req = request(qs, "K");
  const signal = new AbortController().signal;
  assert.deepEqual(providerRequest(req, "m", [qs[0]!], signal), {
    model: "m",
    state: { title: "a bug" },
    state_text: '{"title":"a bug"}',
    questions: [qs[0]],
    signal,
    context: { run: "run-1", task: "gate", key: "K" },
  });
  const groups = { started: () => undefined, ended: () => undefined } as unknown as NonNullable<typeof req.groups>;
  assert.equal(providerRequest({ ...req, groups }, "m", qs, signal).groups, groups);
});

test("D-20: the host's answers, with the batch's usage on the first question only", async () => {
  const host = new ScriptedProvider("host", (r) => ({ ...hostAnswering(() => "yes")(r, 1), usage: { input_tokens: 9 } }) as never);
  const out = await askHost(async () => host, "scripted", request(qs), qs, new AbortController().signal);
  assert.equal(host.requests[0]!.model, "scripted");
  assert.deepEqual(
    [...out].map(([id, h]) => [id, h.answer.label, h.usage]),
    [
      ["a", "yes", { input_tokens: 9 }],
      ["b", "yes", null],
    ],
  );
});

test("D-20: a host that fails, or leaves a question unanswered, fails with host-failed naming the host", async () => {
  const broken = new ScriptedProvider("host", failing("boom"));
  await assert.rejects(
    askHost(async () => broken, "scripted", request(qs), qs, new AbortController().signal),
    (e: unknown) => {
      assert.ok(e instanceof DecisionFailure);
      assert.equal(e.code, "host-failed");
      assert.equal(e.message, "D-20: the host (scripted) could not answer: boom");
      return true;
    },
  );
  const partial = new ScriptedProvider("host", (r) => {
    const res = hostAnswering(() => "yes")(r, 1) as { answers: Record<string, unknown> };
    delete res.answers.b;
    return res as never;
  });
  await assert.rejects(
    askHost(async () => partial, "scripted", request(qs), qs, new AbortController().signal),
    {
      message: "D-20: the host (scripted) gave no answer for question 'b'",
    },
  );
});

test("D-30/D-32: a model that may not be asked, or whose window the state overflows, is not called", async () => {
  const model = new ScriptedProvider(
    "local",
    answering(() => "yes"),
  );
  const config = machine({ providers: [provider("local", ["m"], { context_window: { m: 1 } })] });
  const call = (target: { provider: string; model: string }) =>
    askModel(config, async () => model, request(qs), { ...target, questions: qs }, new AbortController().signal);
  const refused = await call({ provider: "local", model: "unlisted" });
  assert.deepEqual(
    [...refused.values()].map((o) => (o.ok ? "ok" : o.why)),
    ["resolver", "resolver"],
  );
  assert.match((refused.get("a") as { reason: string }).reason, /^D-30: /);
  const tooBig = await call({ provider: "local", model: "m" });
  assert.deepEqual(
    [...tooBig.values()].map((o) => (o.ok ? "ok" : o.why)),
    ["window", "window"],
  );
  assert.equal(model.requests.length, 0);
});

test("a model's failed call is an error outcome for every question; an invalid answer for its question only; usage on the first answered", async () => {
  const config = machine({ providers: [provider("local", ["m"])] });
  const target = { provider: "local", model: "m", questions: qs };
  const down = await askModel(
    config,
    async () => new ScriptedProvider("local", failing("HTTP 503")),
    request(qs),
    target,
    new AbortController().signal,
  );
  assert.deepEqual(
    [...down.values()],
    [
      { ok: false, why: "error", reason: "HTTP 503" },
      { ok: false, why: "error", reason: "HTTP 503" },
    ],
  );
  const badFirst = new ScriptedProvider("local", (r) => {
    const res = answering(() => "yes", 0.9, { input_tokens: 100, output_tokens: 5 })(r, 1) as {
      answers: Record<string, { probabilities: Record<string, number> }>;
    };
    res.answers.a = { probabilities: { yes: 2, no: 0 } };
    return res as never;
  });
  const out = await askModel(config, async () => badFirst, request(qs), target, new AbortController().signal);
  const a = out.get("a")!;
  assert.equal(a.ok, false);
  assert.equal(!a.ok && a.why, "error");
  const b = out.get("b")!;
  assert.ok(b.ok);
  assert.deepEqual(b.usage, { input_tokens: 100, output_tokens: 5 });
});
