// D-21, D-22: the systemone provider sends a provider's first request through the
// official client and the later ones once directly, with the client's URL and headers; a failed
// direct attempt is handed to the client, which sends the remaining retries, so attempts, waits
// and headers are what the client alone would have made.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ProviderError, type Provider } from "../../src/decide/provider.js";
import { createProvider } from "../../src/decide/providers/index.js";
import { firstRetryDelayMs, retryAfterMs } from "../../src/decide/providers/systemone-direct.js";
import type { HttpTuning } from "../../src/decide/retry-policy.js";
import type { ProviderConfig } from "../../src/decide/config-types.js";
import { Misbehave, type RecordedRequest } from "../support/scripted-server.js";
import { startSystemOneServer, SYSTEMONE_PATH, type SystemOneServer } from "../support/systemone-server.js";
import { choiceQ, providerConfig, providerRequest } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { withKeyedServer } from "../support/setup.js";

const KEY_ENV = "SWITCHYARD_TEST_S1_DIRECT_KEY";
const KEY = "sk-s1-direct-0123456789abcdef";
let server: SystemOneServer;
withKeyedServer(
  KEY_ENV,
  KEY,
  () => startSystemOneServer(),
  (s) => (server = s),
);

const team = choiceQ("team", { billing: "Payments, refunds", technical: "Bugs", other: "" });
// Insertion order differs from the sorted order of its deterministic serialisation: the
// raw body shows which path wrote it (the client serialises the object, the direct attempt
// writes state_text).
const STATE = { ticket: "charged twice", account: "A-7" };
const STATE_TEXT = '{"account":"A-7","ticket":"charged twice"}';

function provider(over: Partial<ProviderConfig> = {}, tuning: HttpTuning = { backoffInitialMs: 20, backoffMaxMs: 50 }): Provider {
  return createProvider(
    providerConfig("systemone", { base_url: server.url, api_key_env: KEY_ENV, timeout_ms: 1500, max_retries: 2, ...over }),
    tuning,
  );
}

function ask(p: Provider, signal = new AbortController().signal) {
  return p.ask(providerRequest([team], STATE, { state_text: STATE_TEXT, signal }));
}

/** Every header but the retry count. */
function headersOf(r: RecordedRequest): Record<string, unknown> {
  const { "x-typesafe-retry-count": _count, ...rest } = r.headers;
  return rest;
}

test("D-21: after the first request, requests go directly with the official client's URL and headers; the body is the same JSON", async () => {
  const p = provider();
  const n = server.count();
  await ask(p);
  await ask(p);
  await ask(p);
  assert.equal(server.count() - n, 3);
  const [first, second, third] = server.requests.slice(-3) as [RecordedRequest, RecordedRequest, RecordedRequest];
  for (const r of [first, second, third]) {
    assert.equal(r.method, "POST");
    assert.equal(r.path, SYSTEMONE_PATH);
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.headers["x-typesafe-retry-count"], undefined);
  }
  assert.match(String(first.headers["user-agent"]), /^typesafe-sdk\//, "the first request is the official client's");
  assert.deepEqual(headersOf(second), { ...headersOf(first), "content-length": second.headers["content-length"] });
  assert.deepEqual(second.body, first.body);
  assert.deepEqual(third.body, first.body);
  assert.match(first.text, /^\{"state":\{"ticket":"charged twice","account":"A-7"\}/, "the client serialised the state object");
  assert.match(
    second.text,
    /^\{"state":\{"account":"A-7","ticket":"charged twice"\},"model":"m1","questions":/,
    "the direct attempt wrote state_text",
  );
  // The key is read at each call, on the direct path too.
  process.env[KEY_ENV] = "sk-rotated-direct-key";
  await ask(p);
  assert.equal(server.requests.at(-1)!.headers.authorization, "Bearer sk-rotated-direct-key");
  process.env[KEY_ENV] = KEY;
});

test("D-22: a failed direct attempt is retried by the official client: attempt count, retry-count headers and message as the client's own", async () => {
  const p = provider();
  await ask(p);
  const warm = server.requests.at(-1)!;
  server.enqueue(Misbehave.status(503), Misbehave.status(503));
  let n = server.count();
  const { answers } = await ask(p);
  assert.ok(answers.team?.probabilities);
  assert.equal(server.count() - n, 3, "1 try + 2 retries");
  const tries = server.requests.slice(-3);
  assert.deepEqual(
    tries.map((r) => r.headers["x-typesafe-retry-count"]),
    [undefined, "1", "2"],
  );
  for (const r of tries)
    assert.deepEqual({ ...headersOf(r), "content-length": undefined }, { ...headersOf(warm), "content-length": undefined });
  for (const r of tries) assert.deepEqual(r.body, warm.body);

  server.enqueue(Misbehave.status(503), Misbehave.status(503), Misbehave.status(503));
  n = server.count();
  const e = await failure(ask(p));
  assert.equal(server.count() - n, 3);
  assert.ok(e instanceof ProviderError);
  assert.match(e.message, /HTTP 503: scripted status 503 after 3 attempts/);
  assert.equal(e.retryable, true);

  server.enqueue(Misbehave.status(400, { json: { detail: { message: "Unknown model: m1" } } }));
  n = server.count();
  const bad = await failure(ask(p));
  assert.equal(server.count() - n, 1, "a 400 is not retried");
  assert.match(bad.message, /HTTP 400: Unknown model: m1 \(not retried\)/);
});

test("D-22: the wait before the first retry honours retry-after-ms, as the client does", async () => {
  const p = provider();
  await ask(p);
  server.enqueue(Misbehave.status(429, { retryAfterMs: "400" }));
  const t0 = Date.now();
  await ask(p);
  const elapsed = Date.now() - t0;
  assert.ok(elapsed >= 380, `waited ${elapsed} ms, retry-after-ms asked 400`);
  // Not a much longer wait (retry-after-ms misread as seconds would be 400 s); loose for a loaded machine.
  assert.ok(elapsed < 15000, `waited ${elapsed} ms`);
});

test("D-22: a direct attempt times out per attempt; the client's retry then answers, or the failure names the timeout", async () => {
  const p = provider({ timeout_ms: 250, max_retries: 1 }, { backoffInitialMs: 10 });
  await ask(p);
  server.enqueue(Misbehave.hang());
  let n = server.count();
  await ask(p);
  assert.equal(server.count() - n, 2);
  const once = provider({ timeout_ms: 250, max_retries: 0 });
  await ask(once);
  server.enqueue(Misbehave.stall());
  n = server.count();
  const t0 = Date.now();
  const e = await failure(ask(once));
  assert.equal(server.count() - n, 1);
  assert.match(e.message, /no complete response within 250 ms \(timeout\) after 1 attempt$/);
  assert.ok(Date.now() - t0 < 15000, "one attempt of 250 ms, not the 60 s default timeout");
});

test("a cancel during the direct attempt or during the wait before the retry ends the call at once", async () => {
  const p = provider({ max_retries: 1 }, { backoffInitialMs: 10 });
  await ask(p);
  server.enqueue(Misbehave.hang());
  let ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  let t0 = Date.now();
  let e = await failure(ask(p, ac.signal));
  assert.match(e.message, /cancelled/);
  assert.ok(Date.now() - t0 < 15000, "the hanging attempt was not waited out");
  server.enqueue(Misbehave.status(503, { retryAfter: "30" }));
  ac = new AbortController();
  const n = server.count();
  setTimeout(() => ac.abort(), 100);
  t0 = Date.now();
  e = await failure(ask(p, ac.signal));
  assert.match(e.message, /cancelled/);
  assert.ok(Date.now() - t0 < 15000, "the 30 s retry-after was not waited out");
  assert.equal(server.count() - n, 1, "no retry after the cancel");
});

test("D-22: a refused connection on the direct path is retried by the client, then named", async () => {
  const other = await startSystemOneServer();
  const p = createProvider(providerConfig("systemone", { base_url: other.url, max_retries: 1 }), { backoffInitialMs: 10 });
  await p.ask(providerRequest([team]));
  await other.close();
  const e = await failure(p.ask(providerRequest([team])));
  assert.match(e.message, new RegExp(`connection refused \\(${other.url.replace(/\./g, "\\.")}\\) after 2 attempts`));
  assert.equal((e as ProviderError).retryable, true);
});

test("clientOnly sends every request through the official client", async () => {
  const p = provider({}, { clientOnly: true });
  await ask(p);
  await ask(p);
  for (const r of server.requests.slice(-2)) assert.match(r.text, /^\{"state":\{"ticket":"charged twice","account":"A-7"\}/);
});

test("the first retry's wait is the client's: the server's delay up to the cap, else the backoff less up to 25 % jitter", () => {
  assert.equal(
    firstRetryDelayMs(undefined, 500, 8000, () => 0),
    500,
  );
  assert.equal(
    firstRetryDelayMs(undefined, 500, 8000, () => 1),
    375,
  );
  assert.equal(
    firstRetryDelayMs(undefined, 500, 200, () => 0),
    200,
  );
  assert.equal(firstRetryDelayMs({ "retry-after": "2" }, 500, 8000), 2000);
  assert.equal(firstRetryDelayMs({ "retry-after-ms": "150", "retry-after": "9" }, 500, 8000), 150);
  assert.equal(
    firstRetryDelayMs({ "retry-after": "3600" }, 500, 8000, () => 0),
    500,
    "over the 60 s cap: the backoff",
  );
  assert.equal(retryAfterMs({ "retry-after": "soon" }), undefined);
  assert.equal(retryAfterMs({ "retry-after": new Date(10_000).toUTCString() }, 4_000), 6_000);
  assert.equal(retryAfterMs({ "retry-after-ms": "-5" }), undefined);
});
