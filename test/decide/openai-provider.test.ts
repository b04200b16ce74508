import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveAll } from "../../src/decide/answer.js";
import { ProviderError, type Provider } from "../../src/decide/provider.js";
import { createProvider, labelProbabilitiesFromLogprobs } from "../../src/decide/providers/index.js";
import { Misbehave } from "../support/scripted-server.js";
import { CHAT_PATH, DECISIONS_PATH, startDecisionsServer, type DecisionsServer } from "../support/decisions-server.js";
import { choiceQ, noulQ, providerConfig, providerRequest, scoreQ } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { withKeyedServer } from "../support/setup.js";

const KEY_ENV = "SWITCHYARD_TEST_OPENAI_KEY";
const KEY = "sk-openai-secret-abcdef0123456789";
let server: DecisionsServer;
let provider: Provider;

const team = choiceQ("team", { billing: "Payments, refunds", technical: "Bugs", other: "" });
const urgent = noulQ("urgent", "Explicitly time-sensitive", "No urgency");
const severity = scoreQ("severity", { low: "cosmetic", medium: "", high: "blocked" });
const fast = { retryAfterMs: "5" };

withKeyedServer(KEY_ENV, KEY, startDecisionsServer, (s) => {
  server = s;
  provider = createProvider(
    providerConfig("openai", {
      base_url: server.url,
      api_key_env: KEY_ENV,
      models: ["gpt-6-luna", "local-llm"],
      logprob_models: ["local-llm"],
      timeout_ms: 1500,
      max_retries: 2,
    }),
  );
});

function askAll(questions = [team, urgent, severity], model = "gpt-6-luna", p: Provider = provider) {
  return p.ask(providerRequest(questions, { ticket: "charged twice" }, { model })).then((r) => ({ r, resolved: resolveAll(questions, r) }));
}

test("D-21 openai: decisions.create sends named predicate/choice/score questions; answers map back (Q-12)", async () => {
  server.table = {
    rules: [
      { question: "team", answer: { probabilities: { billing: 0.1, technical: 0.85, other: 0.05 } } },
      { question: "urgent", answer: { p_yes: 0.25 } },
      { question: "severity", answer: { probabilities: { low: 0.1, medium: 0.2, high: 0.7 } } },
    ],
  };
  const n = server.count(DECISIONS_PATH);
  const { r, resolved } = await askAll();
  assert.equal(server.count(DECISIONS_PATH), n + 1);
  const req = server.requests.at(-1)!;
  assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  assert.deepEqual(req.body, {
    model: "gpt-6-luna",
    input: JSON.stringify({ ticket: "charged twice" }),
    questions: [
      {
        type: "choice",
        name: "team",
        instructions: "Which team?",
        choices: [{ value: "billing", description: "Payments, refunds" }, { value: "technical", description: "Bugs" }, { value: "other" }],
      },
      { type: "predicate", name: "urgent", instructions: "Is it urgent?\nTrue means: Explicitly time-sensitive\nFalse means: No urgency" },
      {
        type: "score",
        name: "severity",
        instructions: "How severity?",
        levels: [{ label: "low", description: "cosmetic" }, { label: "medium" }, { label: "high", description: "blocked" }],
      },
    ],
  });
  assert.equal(resolved.team!.label, "technical");
  assert.equal(resolved.urgent!.label, "no");
  assert.ok(Math.abs(resolved.urgent!.confidence - 0.75) < 1e-12);
  assert.deepEqual(resolved.severity!.probabilities, { low: 0.1, medium: 0.2, high: 0.7 });
  assert.ok(Math.abs(resolved.severity!.expected_level! - 1.6) < 1e-12);
  assert.equal(r.usage?.input_tokens !== undefined, true);
  server.table = undefined;
});

test("D-21 openai: answers matched by name whatever their order, by position when unnamed; refusals per question (Q-11)", async () => {
  server.enqueue({
    json: {
      model: "gpt-6-luna",
      answers: [
        { type: "refusal", name: "urgent" },
        {
          type: "choice",
          name: "team",
          choice: "other",
          confidence: 0.5,
          probabilities: [
            { value: "billing", probability: 0.2 },
            { value: "technical", probability: 0.2 },
            { value: "other", probability: 0.6 },
          ],
        },
      ],
      usage: { input_tokens: 3, output_tokens: 0, total_tokens: 3 },
    },
  });
  const { resolved } = await askAll([team, urgent]);
  assert.equal(resolved.team!.label, "other");
  assert.equal(resolved.urgent!.label, "uncertain");
  assert.equal(resolved.urgent!.refused, true);
  server.enqueue({ json: { model: "x", answers: [{ type: "predicate", name: null, probability: 0.9 }], usage: {} } });
  const { resolved: r2 } = await askAll([urgent]);
  assert.equal(r2.urgent!.label, "yes");
});

test("D-22 openai: 503 with retry-after: 1 is honoured (measured); 409 and 400 are never retried", async () => {
  server.enqueue(Misbehave.status(503, { retryAfter: "1" }));
  let n = server.count();
  const t0 = Date.now();
  await askAll();
  const elapsed = Date.now() - t0;
  assert.equal(server.count() - n, 2);
  // At least the retry-after, and not a much longer wait (loose for a loaded machine).
  assert.ok(elapsed >= 950 && elapsed < 15000, `waited ${elapsed} ms`);
  server.enqueue(Misbehave.status(409, { json: { error: { message: "Conflict", type: "conflict" } } }));
  n = server.count();
  let e = await failure(askAll());
  assert.equal(server.count() - n, 1, "409 not retried (the SDK alone would)");
  assert.match(e.message, /HTTP 409: Conflict \(not retried\)/);
  server.enqueue(
    Misbehave.status(400, {
      json: {
        error: {
          message: "Question names must be unique within the request.",
          type: "invalid_request_error",
          param: "questions[1].name",
          code: null,
        },
      },
    }),
  );
  n = server.count();
  e = await failure(askAll());
  assert.equal(server.count() - n, 1);
  assert.match(e.message, /HTTP 400: Question names must be unique within the request\. \(not retried\)/);
  assert.equal((e as ProviderError).retryable, false);
});

test("D-22 openai: 429, 529 and 408 are retried, bounded by max_retries", async () => {
  server.enqueue(Misbehave.status(429, fast), Misbehave.status(529, fast));
  let n = server.count();
  await askAll();
  assert.equal(server.count() - n, 3);
  server.enqueue(Misbehave.status(408, fast), Misbehave.status(500, fast), Misbehave.status(502, fast));
  n = server.count();
  const e = await failure(askAll());
  assert.equal(server.count() - n, 3);
  assert.match(e.message, /HTTP 502: scripted status 502 after 3 attempts/);
});

test("D-22 openai: a hung connection times out; a reset and a truncated body are retried", async () => {
  // 600 ms rather than less: the scripted server shares this process, and on a loaded machine a
  // shorter timeout can fire before the retry's request has even reached it.
  const p = createProvider(providerConfig("openai", { base_url: server.url, timeout_ms: 600, max_retries: 1 }));
  server.enqueue(Misbehave.hang(), Misbehave.hang());
  let n = server.count();
  const t0 = Date.now();
  const e = await failure(askAll([team], "m1", p));
  assert.equal(server.count() - n, 2);
  assert.match(e.message, /no complete response within 600 ms \(timeout\) after 2 attempts/);
  assert.ok(Date.now() - t0 < 10000);
  server.enqueue(Misbehave.reset(), Misbehave.truncate());
  n = server.count();
  await askAll([team]);
  assert.equal(server.count() - n, 3);
  server.enqueue(Misbehave.truncate(), Misbehave.truncate());
  const e2 = await failure(askAll([team], "m1", p));
  assert.match(e2.message, /closed the connection before the full response arrived .*after 2 attempts/);
});

test("D-22 openai: HTTP 200 with invalid JSON or an HTML page; a 502 HTML page", async () => {
  server.enqueue(Misbehave.invalidJson('{"answers": [ {"type": "predicate"'));
  let n = server.count();
  let e = await failure(askAll());
  assert.equal(server.count() - n, 1);
  assert.match(e.message, /the HTTP 200 body is not valid JSON/);
  server.enqueue(Misbehave.html(200));
  e = await failure(askAll());
  assert.match(e.message, /the HTTP 200 body is an HTML page, not JSON \(titled '502 Bad Gateway'\)/);
  server.enqueue(
    { ...Misbehave.html(502), headers: { "content-type": "text/html", "retry-after-ms": "5" } },
    { ...Misbehave.html(502), headers: { "content-type": "text/html", "retry-after-ms": "5" } },
    { ...Misbehave.html(504), headers: { "content-type": "text/html", "retry-after-ms": "5" } },
  );
  n = server.count();
  e = await failure(askAll());
  assert.equal(server.count() - n, 3);
  assert.match(e.message, /HTTP 504 with an HTML page \(titled '502 Bad Gateway'\) after 3 attempts/);
});

test("D-22 openai: malformed answers fail, naming what was wrong", async () => {
  const choice = (probabilities: unknown) => ({ type: "choice", name: "team", choice: "billing", confidence: 1, probabilities });
  const pred = { type: "predicate", name: "urgent", probability: 0.9 };
  const full = [
    { value: "billing", probability: 1 },
    { value: "technical", probability: 0 },
    { value: "other", probability: 0 },
  ];
  const cases: [unknown[], RegExp][] = [
    [[choice(full)], /no answer for question 'urgent'/],
    [[{ type: "choice", name: "team", choice: "billing" }, pred], /'team' \(choice\) has no probabilities/],
    [[choice([...full, { value: "sales", probability: 0 }]), pred], /"sales", a value not asked about/],
    [[choice([...full.slice(0, 2), { value: true, probability: 0 }]), pred], /true, a value not asked about/],
    [[choice(full.slice(0, 2)), pred], /label 'other' missing/],
    [[choice([{ value: "billing", probability: -1 }, ...full.slice(1)]), pred], /'billing' is -1, negative/],
    [[choice([{ value: "billing", probability: 0 }, ...full.slice(1)]), pred], /sum to 0/],
    [[choice(full), { ...pred, probability: 7 }], /'yes' is 7, above 1/],
    [[choice(full), { ...pred, probability: null }], /'yes' is null/],
    [[choice(full), { type: "choice", name: "urgent" }], /has type "choice", expected "predicate"/],
  ];
  for (const [answers, pattern] of cases) {
    server.enqueue({ json: { model: "gpt-6-luna", answers, usage: {} } });
    const e = await failure(askAll([team, urgent]));
    assert.match(e.message, pattern);
  }
  server.enqueue({
    json: {
      model: "gpt-6-luna",
      answers: [{ type: "score", name: "severity", probabilities: [{ value: 5, label: "x", probability: 1 }] }],
      usage: {},
    },
  });
  const e = await failure(askAll([severity]));
  assert.match(e.message, /level 5, a level not asked about \(levels 0–2: low, medium, high\)/);
  server.enqueue({ json: { model: "gpt-6-luna", answers: { team: {} }, usage: {} } });
  assert.match((await failure(askAll([team]))).message, /'answers' that is an object, not a list/);
});

test("D-21 openai logprobs: Chat Completions per question, labels scored by first-token logprobs", async () => {
  server.table = {
    rules: [
      { ask: "Which team?", answer: { probabilities: { billing: 0.2, technical: 0.6, other: 0.2 } } },
      { ask: "Is it urgent?", answer: { p_yes: 0.3 } },
      { ask: "How severity?", answer: { probabilities: { low: 0.5, medium: 0.25, high: 0.25 } } },
    ],
  };
  const n = server.count(CHAT_PATH);
  const { r, resolved } = await askAll([team, urgent, severity], "local-llm");
  assert.equal(server.count(CHAT_PATH), n + 3, "one completion per question");
  const req = server.requests.filter((x) => x.path === CHAT_PATH).at(-1)!;
  const body = req.body as Record<string, unknown>;
  assert.equal(body.logprobs, true);
  assert.equal(body.top_logprobs, 20);
  assert.equal(body.max_tokens, 1);
  assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  const prompts = server.requests
    .filter((x) => x.path === CHAT_PATH)
    .slice(-3)
    .map((x) => JSON.stringify(x.body));
  assert.ok(prompts.some((p) => p.includes("- billing: Payments, refunds\\n- technical: Bugs\\n- other\\n")));
  assert.ok(Math.abs(resolved.team!.probabilities.technical! - 0.6) < 1e-9);
  assert.equal(resolved.team!.label, "technical");
  assert.equal(resolved.urgent!.label, "no");
  assert.equal(resolved.severity!.label, "low");
  assert.ok(r.usage!.input_tokens! > 0);
  server.table = undefined;
});

test("D-21 openai logprobs: renormalised over labels; missing labels 0; refusal; no logprobs; no label token", async () => {
  server.table = {
    rules: [
      {
        ask: "Which team?",
        answer: {
          raw: [
            { token: " billing", logprob: Math.log(0.3) },
            { token: "Sure", logprob: Math.log(0.5) },
            { token: "tech", logprob: Math.log(0.1) },
          ],
        },
      },
    ],
  };
  const { resolved } = await askAll([team], "local-llm");
  assert.ok(Math.abs(resolved.team!.probabilities.billing! - 0.75) < 1e-9);
  assert.ok(Math.abs(resolved.team!.probabilities.technical! - 0.25) < 1e-9);
  assert.equal(resolved.team!.probabilities.other, 0);
  server.table = { rules: [{ ask: "Which team?", answer: { refusal: true } }] };
  const { resolved: refused } = await askAll([team], "local-llm");
  assert.equal(refused.team!.refused, true);
  server.table = { rules: [{ ask: "Which team?", answer: { raw: [{ token: "Hello", logprob: -0.1 }] } }] };
  assert.match(
    (await failure(askAll([team], "local-llm"))).message,
    /none of the labels \(billing, technical, other\) begins any of the top 1 first tokens \("Hello"/,
  );
  server.table = undefined;
  server.enqueue({
    json: {
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "local-llm",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "billing" }, logprobs: null }],
    },
  });
  assert.match((await failure(askAll([team], "local-llm"))).message, /carries no logprobs \(does the server support logprobs/);
});

test("labelProbabilitiesFromLogprobs: prefixes, case, whitespace, shared first tokens split", () => {
  const lp = (p: number) => Math.log(p);
  const p = labelProbabilitiesFromLogprobs(
    ["yes", "no"],
    [
      { token: "Yes", logprob: lp(0.4) },
      { token: " yes", logprob: lp(0.2) },
      { token: "No", logprob: lp(0.2) },
      { token: "\n", logprob: lp(0.2) },
    ],
  )!;
  assert.ok(Math.abs(p.yes! - 0.75) < 1e-9 && Math.abs(p.no! - 0.25) < 1e-9);
  const shared = labelProbabilitiesFromLogprobs(
    ["bug", "bug_fix", "docs"],
    [
      { token: "bug", logprob: lp(0.6) },
      { token: "docs", logprob: lp(0.2) },
    ],
  )!;
  assert.ok(Math.abs(shared.bug! - 0.375) < 1e-9 && Math.abs(shared.bug_fix! - 0.375) < 1e-9 && Math.abs(shared.docs! - 0.25) < 1e-9);
  assert.equal(labelProbabilitiesFromLogprobs(["a_b"], [{ token: "zzz", logprob: -1 }]), undefined);
  const punct = labelProbabilitiesFromLogprobs(
    ["yes", "no"],
    [
      { token: "yes.", logprob: lp(0.5) },
      { token: "nothing", logprob: lp(0.5) },
    ],
  )!;
  assert.equal(punct.yes, 1, "'nothing' is not 'no'");
});

test("D-21 openai: the key is never in an error message", async () => {
  server.enqueue(
    Misbehave.status(401, { json: { error: { message: `Incorrect API key provided: ${KEY}`, type: "invalid_request_error" } } }),
  );
  const e = await failure(askAll());
  assert.doesNotMatch(e.message, new RegExp(KEY));
  assert.match(e.message, /HTTP 401: Incorrect API key provided: \*\*\*/);
  server.table = { rules: [{ ask: "Which team?", answer: { raw: [{ token: KEY, logprob: -0.1 }] } }] };
  const e2 = await failure(askAll([team], "local-llm"));
  assert.doesNotMatch(e2.message, new RegExp(KEY));
  server.table = undefined;
});
