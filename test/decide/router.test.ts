// The router (D-10, D-11, D-30, D-31, D-32, H-1) over in-process providers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createJudge } from "../../src/decide/router.js";
import { DecisionFailure } from "../../src/run/kinds/judge.js";
import {
  ScriptedProvider,
  answering,
  hostAnswering,
  failing,
  noul,
  choice,
  score,
  request,
  provider,
  machine,
  MemorySink,
  shadow,
  shadowOf,
  on,
} from "./router-support.js";

const T = "triage.gate.exploitable";
const T2 = "triage.gate.reachable";
const NOW = new Date("2026-12-02T12:00:00.000Z");

function setup(
  config: ReturnType<typeof machine>,
  opts: {
    overrides?: Parameters<typeof createJudge>[0]["overrides"];
    model?: ScriptedProvider;
    other?: ScriptedProvider;
    host?: ScriptedProvider;
  } = {},
) {
  const model =
    opts.model ??
    new ScriptedProvider(
      "local",
      answering(() => "no"),
    );
  const other =
    opts.other ??
    new ScriptedProvider(
      "remote",
      answering(() => "yes"),
    );
  const host =
    opts.host ??
    new ScriptedProvider(
      "host",
      hostAnswering(() => "yes"),
    );
  const pairs = new MemorySink();
  const warnings: string[] = [];
  const judge = createJudge({
    config,
    overrides: opts.overrides,
    stateDir: "/nonexistent",
    pairs,
    providers: { local: model, remote: other },
    host,
    now: () => NOW,
    warn: (m) => warnings.push(m),
    env: {},
  });
  return { judge, model, other, host, pairs, warnings };
}

test("D-10: a type's mode comes from --decide, then [decisions.types], then [decisions] default", async () => {
  const config = machine({
    providers: [provider("local", ["m1"]), provider("remote", ["m2"])],
    default: on("remote", "m2"),
    types: { [T]: on("local", "m1"), [T2]: on("local", "m1") },
  });
  const { judge, model, other, host } = setup(config, { overrides: { [T2]: { kind: "host" } } });
  assert.deepEqual(judge.modeOf(T), on("local", "m1"));
  assert.deepEqual(judge.modeOf(T2), { kind: "host" });
  assert.deepEqual(judge.modeOf("other.type"), on("remote", "m2"));
  const rec = await judge.judge(request([noul("a", T), noul("b", T2), noul("c", "other.type")]));
  assert.deepEqual([rec.a!.provider, rec.b!.provider, rec.c!.provider], ["local", "host", "remote"]);
  assert.deepEqual([rec.a!.mode, rec.b!.mode, rec.c!.mode], ["model", "host", "model"]);
  assert.deepEqual([model.requests.length, host.requests.length, other.requests.length], [1, 1, 1]);
  assert.deepEqual(
    host.requests[0]!.questions.map((q) => q.id),
    ["b"],
  );
});

test("D-10: with no config every type is answered by the host", async () => {
  const { judge, model, host } = setup(machine({}));
  const rec = await judge.judge(request([noul("a", T)]));
  assert.equal(rec.a!.label, "yes");
  assert.deepEqual([rec.a!.mode, rec.a!.provider, rec.a!.model, rec.a!.confidence], ["host", "host", "scripted", 1]);
  assert.equal(model.requests.length, 0);
  assert.equal(host.requests.length, 1);
});

test("D-11: questions of one instance sharing a target go in one request; two targets, two requests", async () => {
  const config = machine({
    providers: [provider("local", ["m1", "m3"]), provider("remote", ["m2"])],
    types: { "t.a": on("local", "m1"), "t.b": on("local", "m1"), "t.c": on("remote", "m2"), "t.d": on("local", "m3") },
  });
  const { judge, model, other, host } = setup(config);
  await judge.judge(request([noul("a", "t.a"), noul("b", "t.b"), noul("c", "t.c"), noul("d", "t.d")]));
  assert.equal(model.requests.length, 2, "local/m1 and local/m3 are two targets");
  assert.deepEqual(
    model.requests.map((r) => [r.model, r.questions.map((q) => q.id)]),
    [
      ["m1", ["a", "b"]],
      ["m3", ["d"]],
    ],
  );
  assert.equal(other.requests.length, 1);
  assert.equal(host.requests.length, 0);
  // A second instance is a second request, with its own state.
  await judge.judge(request([noul("a", "t.a"), noul("b", "t.b")], "CVE-2", { title: "other" }));
  assert.equal(model.requests.length, 3);
  assert.equal(model.requests[2]!.state_text, JSON.stringify({ title: "other" }));
  assert.deepEqual(model.requests[2]!.context, { run: "run-1", task: "gate", key: "CVE-2" });
});

test("D-11: the host answers all its questions of an instance in one request", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], types: { "t.s": shadow("local", "m1") } });
  const { judge, host, model } = setup(config);
  await judge.judge(request([noul("a", "t.h1"), noul("b", "t.h2"), noul("c", "t.s")]));
  assert.equal(host.requests.length, 1);
  assert.deepEqual(
    host.requests[0]!.questions.map((q) => q.id),
    ["a", "b", "c"],
  );
  assert.equal(host.requests[0]!.model, "scripted");
  assert.equal(model.requests.length, 1);
});

test("D-10/H-1: shadow uses the host's label and appends one pair per question, the model asked concurrently", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: shadow("local", "m1") });
  const model = new ScriptedProvider(
    "local",
    answering((q) => (q.kind === "noul" ? "no" : q.labels[0])!, 0.8),
  );
  // The host answers only once the model has been asked: a router that asked them one after the
  // other would never finish.
  const host = new ScriptedProvider("host", async (req, n) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      model.asked(),
      new Promise((_, rej) => {
        timer = setTimeout(() => rej(new Error("the model was not asked concurrently")), 20000);
      }),
    ]);
    clearTimeout(timer);
    return hostAnswering((q) => (q.kind === "noul" ? "yes" : q.labels[1])!)(req, n);
  });
  const { judge, pairs } = setup(config, { model, host });
  const req = request([noul("a", T), choice("b", T2)], "CVE-9", { secret_looking: "state contents" });
  const rec = await judge.judge(req);
  assert.deepEqual([rec.a!.label, rec.b!.label], ["yes", "high"], "the host's labels are used");
  assert.deepEqual([rec.a!.mode, rec.a!.provider, rec.a!.model], ["shadow", "host", "scripted"]);
  assert.equal(model.requests[0]!.state_text, req.state_text);
  assert.equal(pairs.pairs.length, 2);
  const digest = `sha256:${createHash("sha256").update(req.state_text).digest("hex")}`;
  assert.deepEqual(pairs.pairs[0], {
    time: NOW.toISOString(),
    run: "run-1",
    type: T,
    task: "gate",
    key: "CVE-9",
    question: { id: "a", kind: "noul", labels: ["yes", "no"] },
    state_digest: digest,
    host_label: "yes",
    // What the host's answer took, as its decision record says (H-1: the lab's cost figures).
    host: { latency_ms: rec.a!.latency_ms, usage: rec.a!.usage },
    model: {
      provider: "local",
      model: "m1",
      label: "no",
      probabilities: { yes: 0.19999999999999996, no: 0.8 },
      confidence: 0.8,
      refused: false,
      latency_ms: 7,
      usage: { input_tokens: 100, output_tokens: 5 },
    },
  });
  assert.equal(pairs.pairs[1]!.host_label, "high");
  assert.equal(pairs.pairs[1]!.model?.label, "low");
  assert.equal(pairs.pairs[1]!.model?.usage, null, "a batch's usage is counted once, on its first question");
  assert.ok(!JSON.stringify(pairs.pairs).includes("state contents"), "pairs carry a digest, never the state");
});

test("H-6: a shadow with two candidates asks both at once, beside the host, and leaves one pair per model", async () => {
  const config = machine({
    providers: [provider("local", ["m1"]), provider("remote", ["m2"])],
    types: { [T]: shadowOf("local/m1", "remote/m2") },
  });
  const model = new ScriptedProvider(
    "local",
    answering(() => "no", 0.8),
  );
  const other = new ScriptedProvider("remote", failing("HTTP 503 after 3 retries"));
  // The host answers only once both candidates have been asked: a router that asked them one
  // after the other, or after the host, would never finish.
  const host = new ScriptedProvider("host", async (req, n) => {
    await Promise.all([model.asked(), other.asked()]);
    return hostAnswering(() => "yes")(req, n);
  });
  const { judge, pairs } = setup(config, { model, other, host });
  const rec = await judge.judge(request([noul("a", T), noul("b", T)]));
  assert.deepEqual([rec.a!.label, rec.a!.mode, rec.a!.provider, rec.b!.label], ["yes", "shadow", "host", "yes"]);
  assert.deepEqual([host.requests.length, model.requests.length, other.requests.length], [1, 1, 1], "each asked once, in one batch");
  assert.deepEqual(
    model.requests[0]!.questions.map((q) => q.id),
    ["a", "b"],
  );
  // Per question, one pair per candidate, in the mode's order; the failing one is skipped with why.
  assert.deepEqual(
    pairs.pairs.map((p) => [
      p.question.id,
      p.host_label,
      p.model ? `${p.model.provider}/${p.model.model}` : p.skipped?.model,
      p.model?.label,
    ]),
    [
      ["a", "yes", "local/m1", "no"],
      ["a", "yes", "m2", undefined],
      ["b", "yes", "local/m1", "no"],
      ["b", "yes", "m2", undefined],
    ],
  );
  assert.deepEqual(pairs.pairs[1]!.skipped, { provider: "remote", model: "m2", reason: "error: HTTP 503 after 3 retries" });
  assert.deepEqual(pairs.pairs[0]!.model!.usage, { input_tokens: 100, output_tokens: 5 });
  assert.deepEqual(pairs.pairs[0]!.host, pairs.pairs[1]!.host, "both pairs carry the same host answer's cost");
});

test("D-10: in shadow the model's failure never fails the element; the pair records why", async () => {
  const config = machine({
    providers: [provider("local", ["m1", "tiny"], { context_window: { tiny: 50 } }), provider("remote", ["m2"], { vendor: "acme" })],
    deny_vendors: ["acme"],
    types: {
      "t.err": shadow("local", "m1"),
      "t.win": shadow("local", "tiny"),
      "t.unlisted": shadow("local", "m9"),
      "t.denied": shadow("remote", "m2"),
    },
  });
  const model = new ScriptedProvider("local", failing("HTTP 500 after 3 retries"));
  const { judge, pairs, other } = setup(config, { model });
  const rec = await judge.judge(
    request([noul("e", "t.err"), noul("w", "t.win"), noul("u", "t.unlisted"), noul("d", "t.denied")], "k", { text: "x".repeat(400) }),
  );
  assert.deepEqual(
    Object.values(rec).map((d) => d.label),
    ["yes", "yes", "yes", "yes"],
  );
  assert.equal(
    Object.values(rec).some((d) => d.receipt),
    false,
    "shadow decisions carry no receipt",
  );
  const skipped = Object.fromEntries(pairs.pairs.map((p) => [p.question.id, p.skipped]));
  assert.deepEqual(skipped.e, { provider: "local", model: "m1", reason: "error: HTTP 500 after 3 retries" });
  assert.deepEqual(skipped.w, { provider: "local", model: "tiny", reason: "window" });
  assert.match(skipped.u!.reason, /^resolver: D-30: model "m9" is not in providers\.local\.models/);
  assert.match(skipped.d!.reason, /^resolver: D-30: .*vendor "acme".*deny_vendors/);
  assert.equal(model.requests.length, 1, "only the listed, fitting model is asked");
  assert.equal(other.requests.length, 0, "a denied vendor is never asked");
  assert.ok(pairs.pairs.every((p) => p.model === undefined));
});

test("D-20: in shadow a failing host fails the element and records no pair", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: shadow("local", "m1") });
  const host = new ScriptedProvider("host", failing("the runner exited with status 1"));
  const { judge, pairs } = setup(config, { host });
  await assert.rejects(judge.judge(request([noul("a", T)])), (err: unknown) => {
    assert.ok(err instanceof DecisionFailure);
    assert.match(err.message, /the host \(scripted\) could not answer: the runner exited with status 1/);
    return true;
  });
  assert.equal(pairs.pairs.length, 0);
});

test("D-10: turned on, the model answers and the host is asked nothing (Q-20 record fields)", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: on("local", "m1") });
  const model = new ScriptedProvider(
    "local",
    answering((q) => q.labels[q.labels.length - 1]!, 0.7),
  );
  const { judge, host, pairs } = setup(config, { model });
  const dyn = {
    ...choice("c", "t.c", ["alpha", "beta"]),
    resolved_options: [
      { value: "alpha", description: "A" },
      { value: "beta", description: "B" },
    ],
  };
  const rec = await judge.judge(request([noul("a", T), dyn, score("s", "t.s")]));
  assert.equal(host.requests.length, 0);
  assert.equal(model.requests.length, 1);
  assert.equal(pairs.pairs.length, 0);
  assert.deepEqual(rec.a, {
    label: "no",
    probabilities: { yes: 0.30000000000000004, no: 0.7 },
    confidence: 0.7,
    refused: false,
    judgement_type: T,
    mode: "model",
    provider: "local",
    model: "m1",
    latency_ms: 7,
    usage: { input_tokens: 100, output_tokens: 5 },
    min_confidence: 0,
  });
  assert.deepEqual(rec.c!.options, dyn.resolved_options);
  assert.equal(rec.c!.label, "beta");
  assert.equal(rec.s!.label, "lots");
  assert.ok(Math.abs(rec.s!.expected_level! - (0.15 + 2 * 0.7)) < 1e-9);
  assert.equal(rec.s!.usage, null);
});

test("D-31: turned on falls back to the host with a receipt when the call fails after retries", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], types: { [T]: on("local", "m1"), [T2]: on("local", "m1") } });
  const { judge, host } = setup(config, { model: new ScriptedProvider("local", failing("HTTP 503 after 3 retries")) });
  const rec = await judge.judge(request([noul("a", T), noul("b", T2)], "CVE-7"));
  assert.equal(host.requests.length, 1, "the fallback questions go to the host in one request");
  assert.deepEqual(
    host.requests[0]!.questions.map((q) => q.id),
    ["a", "b"],
  );
  assert.deepEqual([rec.a!.label, rec.a!.mode, rec.a!.provider, rec.a!.model], ["yes", "model", "host", "scripted"]);
  assert.deepEqual(rec.a!.receipt, {
    type: T,
    key: "CVE-7",
    provider: "local",
    model: "m1",
    reason: "error: HTTP 503 after 3 retries",
    time: NOW.toISOString(),
  });
  assert.equal(rec.b!.receipt?.type, T2);
});

test("D-32: turned on falls back with a receipt when the request exceeds the window, without sending it", async () => {
  const config = machine({ providers: [provider("local", ["m1"], { context_window: { m1: 1000 } })], default: on("local", "m1") });
  const { judge, model, host } = setup(config);
  const small = await judge.judge(request([noul("a", T)], "small", { text: "x".repeat(2000) }));
  assert.equal(small.a!.receipt, undefined);
  assert.equal(model.requests.length, 1);
  const big = await judge.judge(request([noul("a", T)], "big", { text: "x".repeat(5000) }));
  assert.equal(model.requests.length, 1, "the over-window request is not sent");
  assert.equal(host.requests.length, 1);
  assert.match(
    big.a!.receipt!.reason,
    /^window: the request is estimated at 1344 tokens, over the context window of 1000 declared for m1 \(D-32\)$/,
  );
});

test("D-30: turned on falls back with a receipt for an unlisted model or a denied vendor, never asking it", async () => {
  const config = machine({
    providers: [provider("local", ["m1"]), provider("remote", ["m2"], { vendor: "acme" })],
    deny_vendors: ["acme"],
    types: { "t.unlisted": on("local", "m9"), "t.denied": on("remote", "m2"), "t.missing": on("nowhere", "m1") },
  });
  const { judge, model, other, host } = setup(config);
  const rec = await judge.judge(request([noul("u", "t.unlisted"), noul("d", "t.denied"), noul("n", "t.missing")]));
  assert.equal(model.requests.length + other.requests.length, 0);
  assert.equal(host.requests.length, 1);
  assert.match(rec.u!.receipt!.reason, /^resolver: D-30: model "m9" is not in providers\.local\.models/);
  assert.match(rec.d!.receipt!.reason, /^resolver: D-30: provider "remote" is of vendor "acme", which \[decisions\] deny_vendors denies/);
  assert.match(rec.n!.receipt!.reason, /^resolver: D-30: no provider "nowhere" is configured/);
  assert.deepEqual(
    Object.values(rec).map((d) => d.label),
    ["yes", "yes", "yes"],
  );
});

test("D-31: a refusal falls back only with fallback_on_refusal; otherwise it is uncertain and refused (Q-11)", async () => {
  const refusing = () =>
    new ScriptedProvider("local", (req) => ({
      answers: Object.fromEntries(req.questions.map((q) => [q.id, { refused: true }])),
      usage: null,
      latency_ms: 1,
    }));
  const base = { providers: [provider("local", ["m1"])], default: on("local", "m1") };
  const without = setup(machine(base), { model: refusing() });
  const rec = await without.judge.judge(request([noul("a", T)]));
  assert.deepEqual([rec.a!.label, rec.a!.refused, rec.a!.receipt], ["uncertain", true, undefined]);
  assert.equal(without.host.requests.length, 0);

  const withFallback = setup(machine({ ...base, fallback_on_refusal: true }), { model: refusing() });
  const rec2 = await withFallback.judge.judge(request([noul("a", T)]));
  assert.deepEqual([rec2.a!.label, rec2.a!.refused, rec2.a!.provider], ["yes", false, "host"]);
  assert.match(rec2.a!.receipt!.reason, /^refusal/);
});

test("D-22/D-31: an invalid or missing answer falls back for that question only", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: on("local", "m1") });
  const model = new ScriptedProvider("local", () => ({
    answers: { a: { probabilities: { yes: 0.9, no: 0.1 } }, b: { probabilities: { yes: -1, no: 2 } } },
    usage: null,
    latency_ms: 2,
  }));
  const { judge, host } = setup(config, { model });
  const rec = await judge.judge(request([noul("a", T), noul("b", T), noul("c", T)]));
  assert.deepEqual([rec.a!.provider, rec.a!.receipt], ["local", undefined]);
  assert.match(rec.b!.receipt!.reason, /^error: Q-10: .*'yes' is -1, negative/);
  assert.match(rec.c!.receipt!.reason, /^error: D-22: the response has no answer for question 'c'/);
  assert.deepEqual(
    host.requests[0]!.questions.map((q) => q.id),
    ["b", "c"],
  );
});

test("D-31: when the fallback host fails too, the element fails and its error keeps the model's reason", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: on("local", "m1") });
  const { judge } = setup(config, {
    model: new ScriptedProvider("local", failing()),
    host: new ScriptedProvider("host", failing("no tty")),
  });
  const err = await judge.judge(request([noul("a", T)])).then(
    () => assert.fail("expected a failure"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof DecisionFailure);
  assert.match(err.message, /no tty.*; the host was answering in place of the model: question 'a': local\/m1 failed first \(error: /);
});

test("D-1: a cancelled run rejects the decision", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: on("local", "m1") });
  const ctl = new AbortController();
  const model = new ScriptedProvider(
    "local",
    (req) => new Promise((_, reject) => req.signal.addEventListener("abort", () => reject(new Error("aborted")))),
  );
  const { judge, host } = setup(config, { model });
  const pending = judge.judge(request([noul("a", T)], "k", {}, ctl.signal));
  await model.asked();
  ctl.abort(new Error("run cancelled"));
  await assert.rejects(pending, /run cancelled/);
  assert.equal(host.requests.length, 0, "a cancelled decision does not fall back");
});

test("H-1: a pair that cannot be written is a warning, never a failed element", async () => {
  const config = machine({ providers: [provider("local", ["m1"])], default: shadow("local", "m1") });
  const judge = createJudge({
    config,
    stateDir: "/nonexistent",
    providers: {
      local: new ScriptedProvider(
        "local",
        answering(() => "no"),
      ),
    },
    host: new ScriptedProvider(
      "host",
      hostAnswering(() => "yes"),
    ),
    pairs: {
      append: () => {
        throw new Error("disk full");
      },
    },
    warn: (m) => warnings.push(m),
  });
  const warnings: string[] = [];
  const rec = await judge.judge(request([noul("a", T)]));
  assert.equal(rec.a!.label, "yes");
  assert.match(warnings[0]!, /could not record the shadow pair of gate\[CVE-1\] question 'a': disk full/);
});

test("D-30: preflight warns about an unlisted model or a denied vendor (D-31 falls back), and refuses unknown providers and --decide typos", () => {
  const config = machine({
    providers: [provider("local", ["m1"], { api_key_env: "LOCAL_KEY" }), provider("remote", ["m2"], { vendor: "acme" })],
    deny_vendors: ["acme"],
    types: { "t.ok": on("local", "m1"), "t.denied": shadow("remote", "m2"), "t.host": { kind: "host" } },
  });
  const overrides = { "t.unlisted": on("local", "m9"), "t.typo": on("local", "m1"), "t.nowhere": on("locl", "m1") };
  const warnings: string[] = [];
  const judge = createJudge({
    config,
    overrides,
    stateDir: "/x",
    env: { LOCAL_KEY: "k" },
    pairs: new MemorySink(),
    warn: (m) => warnings.push(m),
  });
  assert.deepEqual(judge.preflight(["t.ok", "t.host", "t.denied", "t.unlisted", "t.nowhere", "t.tpyo"]), [
    `D-30: judgement type "t.nowhere" is routed to locl/m1 (by --decide), but no provider "locl" is configured (did you mean "local"?); configured providers: local, remote`,
    `D-10: --decide names judgement type "t.typo", which no question of this run asks (did you mean "t.tpyo"?)`,
  ]);
  assert.deepEqual(warnings, [
    `D-30: judgement type "t.denied" is routed to shadow:remote/m2 (by [decisions.types]), but provider "remote" is of vendor "acme", which [decisions] deny_vendors denies: its shadow pairs will be recorded as skipped`,
    `D-30: judgement type "t.unlisted" is routed to local/m9 (by --decide), but model "m9" is not in providers.local.models (did you mean "m1"?): the host answers it instead, with a fallback receipt on each decision (D-31)`,
  ]);
  assert.deepEqual(judge.preflight(["t.ok", "t.host", "t.unlisted", "t.typo", "t.nowhere"]).length, 1);

  const noKey = createJudge({
    config: machine({ providers: [provider("local", ["m1"], { api_key_env: "LOCAL_KEY" })], default: shadow("local", "m1") }),
    stateDir: "/x",
    env: {},
  });
  assert.deepEqual(noKey.preflight(["a.b"]), [
    `D-21: judgement type "a.b" is routed to shadow:local/m1, but provider "local" reads its key from $LOCAL_KEY, which is not set`,
    `H-1: judgement type "a.b" runs in shadow mode, but no lab is open to record its pairs`,
  ]);
  assert.deepEqual(createJudge({ config: machine({}), stateDir: "/x" }).preflight(["a.b", "c.d"]), []);
  const noHost = machine({});
  noHost.decisions.host = "robot";
  assert.deepEqual(createJudge({ config: noHost, stateDir: "/x" }).preflight(["a.b"]), [
    `D-20: [decisions] host is "robot", which is neither "tty" nor an [agents.NAME] runner of the machine config`,
  ]);
});
