import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveAll } from "../../src/decide/answer.js";
import { ProviderError, type Provider } from "../../src/decide/provider.js";
import { createProvider } from "../../src/decide/providers/index.js";
import { Misbehave } from "../support/scripted-server.js";
import { startSystemOneServer, SYSTEMONE_PATH, type SystemOneServer } from "../support/systemone-server.js";
import { choiceQ, noulQ, providerConfig, providerRequest, scoreQ } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { withKeyedServer } from "../support/setup.js";

const KEY_ENV = "SWITCHYARD_TEST_S1_KEY";
const KEY = "sk-s1-secret-0123456789abcdef";
let server: SystemOneServer;
let provider: Provider;

const team = choiceQ("team", { billing: "Payments, refunds", technical: "Bugs", other: "" });
const urgent = noulQ("urgent", "Explicitly time-sensitive", "");
const severity = scoreQ("severity", { low: "cosmetic", medium: "", high: "blocked" });

withKeyedServer(
  KEY_ENV,
  KEY,
  () => startSystemOneServer(),
  (s) => {
    server = s;
    provider = createProvider(
      providerConfig("systemone", { base_url: server.url, api_key_env: KEY_ENV, timeout_ms: 1500, max_retries: 2 }),
      { backoffInitialMs: 20, backoffMaxMs: 50 },
    );
  },
);

function askAll(p: Provider = provider, questions = [team, urgent, severity], state: unknown = { ticket: "charged twice" }) {
  return p.ask(providerRequest(questions, state)).then((r) => ({ r, resolved: resolveAll(questions, r) }));
}

test("D-21 systemone: one request with the System One wire shapes, answers mapped back (Q-12)", async () => {
  server.table = {
    rules: [
      { question: "team", answer: { probabilities: { billing: 0.1, technical: 0.85, other: 0.05 } } },
      { question: "urgent", answer: { p_yes: 0.8 } },
      { question: "severity", answer: { probabilities: { "0": 0.1, "1": 0.2, "2": 0.7 } } },
    ],
  };
  const before = server.count(SYSTEMONE_PATH);
  const { r, resolved } = await askAll();
  assert.equal(server.count(SYSTEMONE_PATH), before + 1, "D-11: all questions in one request");
  const req = server.requests.at(-1)!;
  assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  assert.deepEqual(req.body, {
    state: { ticket: "charged twice" },
    model: "m1",
    questions: {
      team: { type: "choice", instructions: "Which team?", criteria: { billing: "Payments, refunds", technical: "Bugs", other: null } },
      urgent: { type: "noul", instructions: "Is it urgent?", criteria: { true: "Explicitly time-sensitive" } },
      severity: { type: "score", instructions: "How severity?", criteria: ["low: cosmetic", "medium", "high: blocked"] },
    },
  });
  assert.equal(resolved.team!.label, "technical");
  assert.equal(resolved.team!.confidence, 0.85);
  assert.equal(resolved.urgent!.label, "yes");
  assert.ok(Math.abs(resolved.urgent!.probabilities.no! - 0.2) < 1e-12);
  assert.deepEqual(resolved.severity!.probabilities, { low: 0.1, medium: 0.2, high: 0.7 });
  assert.equal(resolved.severity!.label, "high");
  assert.ok(Math.abs(resolved.severity!.expected_level! - 1.6) < 1e-12);
  assert.ok(r.usage && typeof r.usage.input_tokens === "number");
  assert.ok(r.latency_ms >= 0);
  server.table = undefined;
});

test("D-21 systemone: a noul without descriptions omits criteria; no api_key_env sends no Authorization", async () => {
  const p = createProvider(providerConfig("systemone", { base_url: `${server.url}/v1/` })); // a pasted /v1 is not doubled
  await askAll(p, [noulQ("plain")], "just text");
  const req = server.requests.at(-1)!;
  assert.equal(req.headers.authorization, undefined);
  assert.deepEqual(req.body, { state: "just text", model: "m1", questions: { plain: { type: "noul", instructions: "Is it plain?" } } });
});

test("Q-11 systemone: a refusal answer is uncertain and refused; the other questions still answer", async () => {
  server.table = { rules: [{ question: "urgent", answer: { refusal: true } }] };
  const { resolved } = await askAll();
  assert.equal(resolved.urgent!.label, "uncertain");
  assert.equal(resolved.urgent!.refused, true);
  assert.equal(resolved.team!.label, "billing");
  server.table = undefined;
});

test("D-22 systemone: 503 with retry-after: 1 is retried after about a second", async () => {
  server.enqueue(Misbehave.status(503, { retryAfter: "1" }));
  const n = server.count();
  const t0 = Date.now();
  const { resolved } = await askAll();
  const elapsed = Date.now() - t0;
  assert.equal(server.count() - n, 2);
  assert.ok(elapsed >= 950, `waited ${elapsed} ms, retry-after asked 1000`);
  // Not a much longer wait (a retry-after misread as minutes would be 60 s); loose for a loaded machine.
  assert.ok(elapsed < 15000, `waited ${elapsed} ms`);
  assert.equal(resolved.team!.label, "billing");
});

test("D-22 systemone: 429 with an HTTP-date retry-after, 529 and 408 are retried", async () => {
  // An HTTP date has whole seconds: 2 s ahead means a wait of 1 to 2 s.
  server.enqueue(Misbehave.status(429, { retryAfter: new Date(Date.now() + 2000).toUTCString() }), Misbehave.status(529));
  let n = server.count();
  const t0 = Date.now();
  await askAll();
  assert.equal(server.count() - n, 3);
  assert.ok(Date.now() - t0 >= 900, `the HTTP date was waited for (${Date.now() - t0} ms)`);
  server.enqueue(Misbehave.status(408));
  n = server.count();
  await askAll();
  assert.equal(server.count() - n, 2);
});

test("D-22 systemone: retries are bounded; the failure says how many attempts", async () => {
  server.enqueue(Misbehave.status(503), Misbehave.status(503), Misbehave.status(503));
  const n = server.count();
  const e = await failure(askAll());
  assert.equal(server.count() - n, 3, "1 try + max_retries 2");
  assert.ok(e instanceof ProviderError);
  assert.match(e.message, /HTTP 503: scripted status 503 after 3 attempts/);
  assert.equal((e as ProviderError).retryable, true);
});

test("D-22 systemone: a 400 or 422 is never retried and its detail is shown", async () => {
  server.enqueue(Misbehave.status(400, { json: { detail: { error_type: "api_usage_error", message: "Unknown model: m1" } } }));
  let n = server.count();
  let e = await failure(askAll());
  assert.equal(server.count() - n, 1);
  assert.match(e.message, /HTTP 400: Unknown model: m1 \(not retried\)/);
  server.enqueue(
    Misbehave.status(422, {
      json: { detail: [{ type: "missing", loc: ["body", "questions", "team", "choice", "criteria"], msg: "Field required" }] },
    }),
  );
  n = server.count();
  e = await failure(askAll());
  assert.equal(server.count() - n, 1);
  assert.match(e.message, /HTTP 422: questions\.team\.choice\.criteria: Field required/);
});

test("D-22 systemone: a hung connection or a stalled body times out per attempt, bounded", async () => {
  // 600 ms rather than less: the scripted server shares this process, and on a loaded machine a
  // shorter timeout can fire before the retry's request has even reached it.
  const p = createProvider(providerConfig("systemone", { base_url: server.url, timeout_ms: 600, max_retries: 1 }), {
    backoffInitialMs: 10,
  });
  server.enqueue(Misbehave.hang(), Misbehave.stall());
  const n = server.count();
  const t0 = Date.now();
  const e = await failure(askAll(p));
  const elapsed = Date.now() - t0;
  assert.equal(server.count() - n, 2);
  assert.match(e.message, /no complete response within 600 ms \(timeout\) after 2 attempts/);
  assert.ok(elapsed >= 1190 && elapsed < 10000, `took ${elapsed} ms`);
});

test("D-22 systemone: a connection reset and a truncated body are retried", async () => {
  server.enqueue(Misbehave.reset(), Misbehave.truncate());
  const n = server.count();
  const { resolved } = await askAll();
  assert.equal(server.count() - n, 3);
  assert.equal(resolved.team!.label, "billing");
  server.enqueue(Misbehave.truncate(), Misbehave.truncate(), Misbehave.truncate());
  const e = await failure(askAll());
  assert.match(e.message, /closed the connection before the full response arrived .* after 3 attempts/);
  server.enqueue(Misbehave.reset(), Misbehave.reset(), Misbehave.reset());
  const e2 = await failure(askAll());
  assert.match(e2.message, /(closed the connection|connection).* after 3 attempts/);
});

test("D-22 systemone: a refused connection is retried, then named", async () => {
  const closed = await startSystemOneServer();
  const url = closed.url;
  await closed.close();
  const p = createProvider(providerConfig("systemone", { base_url: url, max_retries: 1 }), { backoffInitialMs: 10 });
  const e = await failure(askAll(p));
  assert.match(e.message, new RegExp(`connection refused \\(${url.replace(/\./g, "\\.")}\\) after 2 attempts`));
  assert.equal((e as ProviderError).retryable, true);
});

test("D-22 systemone: HTTP 200 with invalid JSON, an HTML page, or NaN fails without retry", async () => {
  server.enqueue(Misbehave.invalidJson());
  let n = server.count();
  let e = await failure(askAll());
  assert.equal(server.count() - n, 1);
  assert.match(e.message, /the HTTP 200 body is not valid JSON \(.*\); it begins '\{"answers"/);
  server.enqueue(Misbehave.html(200));
  e = await failure(askAll());
  assert.match(e.message, /the HTTP 200 body is an HTML page, not JSON \(titled '502 Bad Gateway'\)/);
  server.enqueue(Misbehave.invalidJson('{"answers": {"urgent": {"type": "noul", "noul": NaN}}}'));
  e = await failure(askAll(provider, [urgent]));
  assert.match(e.message, /contains NaN or Infinity/);
  server.enqueue(Misbehave.invalidJson(""));
  e = await failure(askAll());
  assert.match(e.message, /the HTTP 200 body is empty/);
  n = server.count();
  server.enqueue(Misbehave.html(502), Misbehave.html(502), Misbehave.html(502));
  e = await failure(askAll());
  assert.equal(server.count() - n, 3);
  assert.match(e.message, /HTTP 502 with an HTML page \(titled '502 Bad Gateway'\) after 3 attempts/);
});

/** A 200 whose answers are `answers`. */
function answersReply(answers: unknown) {
  return { json: { model: "m1", answers, usage: { input_tokens: 1, output_tokens: 1 } } };
}

test("D-22 systemone: malformed answers fail the decision, naming what was wrong", async () => {
  const good = {
    team: { type: "choice", choice: "billing", probabilities: { billing: 1, technical: 0, other: 0 } },
    urgent: { type: "noul", noul: 0.9 },
  };
  const cases: [unknown, RegExp][] = [
    [{ team: good.team }, /no answer for question 'urgent' \(answers for: team\)/],
    [{ ...good, team: { type: "choice", choice: "billing" } }, /the answer to 'team' \(choice\) has no probabilities/],
    [{ ...good, team: { type: "choice", probabilities: { billing: 0.5, technical: 0.5 } } }, /label 'other' missing/],
    [
      { ...good, team: { type: "choice", probabilities: { billing: 0.5, technical: 0.5, other: 0, sales: 0 } } },
      /'sales', a label not asked about/,
    ],
    [{ ...good, team: { type: "choice", probabilities: { billing: -0.5, technical: 1, other: 0.5 } } }, /'billing' is -0.5, negative/],
    [{ ...good, team: { type: "choice", probabilities: { billing: 1.5, technical: 0, other: 0 } } }, /'billing' is 1.5, above 1/],
    [
      { ...good, team: { type: "choice", probabilities: { billing: "NaN", technical: 0, other: 0 } } },
      /'billing' is string "NaN", not a number/,
    ],
    [{ ...good, team: { type: "choice", probabilities: { billing: 0, technical: 0, other: 0 } } }, /sum to 0/],
    [{ ...good, team: { type: "choice", probabilities: [0.5, 0.5, 0] } }, /probabilities that are an array/],
    [{ ...good, urgent: { type: "noul" } }, /'urgent' \(noul\) has no 'noul'/],
    [{ ...good, urgent: { type: "noul", noul: 1.2 } }, /'yes' is 1.2, above 1/],
    [{ ...good, urgent: { type: "choice", probabilities: {} } }, /has type "choice", expected "noul"/],
    [{ ...good, urgent: "yes" }, /the answer to 'urgent' \(noul\) is string "yes", not an object/],
  ];
  for (const [answers, pattern] of cases) {
    server.enqueue(answersReply(answers));
    const n = server.count();
    const e = await failure(askAll(provider, [team, urgent]));
    assert.match(e.message, pattern);
    assert.equal(server.count() - n, 1, `no retry for ${pattern}`);
  }
  server.enqueue(answersReply({ severity: { type: "score", probabilities: { "0": 0.5, "3": 0.5 } } }));
  let e = await failure(askAll(provider, [severity]));
  assert.match(e.message, /probability for level '3', a level not asked about \(levels 0–2: low, medium, high\)/);
  server.enqueue({ json: { model: "m1" } });
  e = await failure(askAll());
  assert.match(e.message, /the response has no 'answers'/);
  server.enqueue({ json: [1, 2] });
  e = await failure(askAll());
  assert.match(e.message, /the response is an array, not a System One response object/);
});

test("D-21 systemone: the key comes from api_key_env at call time and never appears in errors", async () => {
  server.enqueue({ status: 401, json: { detail: { error_type: "authentication_error", message: `Cannot authenticate with key ${KEY}` } } });
  const e = await failure(askAll());
  assert.doesNotMatch(e.message, new RegExp(KEY));
  assert.match(e.message, /HTTP 401: Cannot authenticate with key \*\*\*/);
  process.env[KEY_ENV] = "sk-rotated-key";
  await askAll();
  assert.equal(server.requests.at(-1)!.headers.authorization, "Bearer sk-rotated-key");
  delete process.env[KEY_ENV];
  const n = server.count();
  const e2 = await failure(askAll());
  assert.match(e2.message, /the environment variable SWITCHYARD_TEST_S1_KEY \(its api_key_env\) is not set/);
  assert.equal(server.count(), n, "no request without the key");
  process.env[KEY_ENV] = KEY;
});

test("systemone test server runs standalone with --answer-from", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-s1-"));
  const file = join(dir, "answers.json");
  writeFileSync(
    file,
    JSON.stringify({
      rules: [{ match: "charged", question: "team", answer: { probabilities: { billing: 0.1, technical: 0.2, other: 0.7 } } }],
    }),
  );
  const child = spawn(process.execPath, ["dist/test/support/systemone-server.js", "--port", "0", "--answer-from", file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        const m = /listening (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`server exited ${code}`)));
    });
    const p = createProvider(providerConfig("systemone", { base_url: url }));
    const { resolved } = await askAll(p, [team]);
    assert.equal(resolved.team!.label, "other");
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
});
