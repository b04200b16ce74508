// A shadow pair as one line of pairs.jsonl (H-1), on known answers written out by hand: only the
// pair's own fields, in a fixed order (a caller's extra fields never reach the file), and free
// text scrubbed of secrets — the value of an environment variable named like a credential (8
// characters and up: exactly 8 is scrubbed, 7 is not) and text shaped like a key or token (a
// prefixed key of 8 characters and up, a bearer token, `name=value` of 4 characters and up); only
// "audit" and "reviewed" written as a kind; the host's latency only when it is a number (0
// included), its usage picked field by field; a reviewed pair's reviewer and source scrubbed, a
// null reviewer kept null.

import { test } from "node:test";
import assert from "node:assert/strict";

// The secrets are read from the environment once, at the first redaction: set them first.
process.env.SY_PAIRLINE_API_KEY = "zq8#Wy!2";
process.env.SY_PAIRLINE_SHORT_TOKEN = "zq7#Wy!";
process.env.SY_PAIRLINE_PLAIN = "zq9#Wy!2long";
process.env.sy_pairline_lower_secret = "lo#Wer!case";
process.env.SY_PAIRLINE_PASSWORD = "pw#Word!9";
process.env.SY_PAIRLINE_CREDENTIALS = "cr#Edent!8";
process.env.SY_PAIRLINE_TOKEN_EMPTY = "";

const { pairLine, redact } = await import("../../src/lab/pair-line.js");
type Pair = Parameters<typeof pairLine>[0];

test("H-1: an environment variable named like a credential has its value scrubbed from 8 characters up, every time it occurs", () => {
  assert.equal(
    redact("upstream said zq8#Wy!2, then zq8#Wy!2 again; zq7#Wy! and zq9#Wy!2long"),
    "upstream said [redacted], then [redacted] again; zq7#Wy! and zq9#Wy!2long",
  );
  assert.equal(redact("lo#Wer!case / pw#Word!9 / cr#Edent!8"), "[redacted] / [redacted] / [redacted]");
  assert.equal(redact(""), "");
  assert.equal(redact("nothing secret here"), "nothing secret here");
});

test("H-1: prefixed keys of 8 characters and up are scrubbed; 7, another prefix or a prefix inside a word are not", () => {
  const cases: Array<[string, string]> = [
    ["sk-abcdefgh", "[redacted]"],
    ["sk-abcdefg", "sk-abcdefg"],
    ["key pk_12345678!rest", "key [redacted]!rest"],
    ["rk-ABCD_efg-h sess-12345678", "[redacted] [redacted]"],
    ["ghp_abcdefgh1 gho_abcdefgh2", "[redacted] [redacted]"],
    ["xoxa-12345678 xoxb-12345678 xoxp-12345678 xoxr-12345678", "[redacted] [redacted] [redacted] [redacted]"],
    ["xoxc-12345678", "xoxc-12345678"],
    ["ask-12345678", "ask-12345678"],
    ["sk.12345678", "sk.12345678"],
    ["sk-1234567.89", "sk-1234567.89"],
  ];
  for (const [text, scrubbed] of cases) assert.equal(redact(text), scrubbed, text);
});

test("H-1: a bearer token of 8 characters and up is scrubbed, in any case, after any blank", () => {
  const cases: Array<[string, string]> = [
    ["Bearer abc.def_1", "[redacted]"],
    ["got bearer a~b+c/d=e- back", "got [redacted] back"],
    ["BEARER\tabcdefgh", "[redacted]"],
    ["Bearer abcdefg", "Bearer abcdefg"],
    ["Bearerabcdefgh", "Bearerabcdefgh"],
    ["xBearer abcdefgh", "xBearer abcdefgh"],
    ["Bearer  abcdefgh", "[redacted]"],
  ];
  for (const [text, scrubbed] of cases) assert.equal(redact(text), scrubbed, text);
});

test("H-1: a named secret's value of 4 characters and up is scrubbed, keeping its name and separator; 3 are kept", () => {
  const cases: Array<[string, string]> = [
    ["api_key=abcd", "api_key=[redacted]"],
    ["api_key=abc", "api_key=abc"],
    ["apikey: 'wxyz1'", "apikey: '[redacted]'"],
    ["API-KEY = abcd", "API-KEY = [redacted]"],
    ["access-token = abcd;rest", "access-token = [redacted];rest"],
    ["accesstoken=abcd&x=1", "accesstoken=[redacted]&x=1"],
    ['{"secret": "hunter22", "n": 1}', '{"secret": "[redacted]", "n": 1}'],
    ["TOKEN=abcd,next", "TOKEN=[redacted],next"],
    ["password:abcd efgh", "password:[redacted] efgh"],
    ["Authorization: Basic-abcd", "Authorization: [redacted]"],
    ["mytoken=abcd", "mytoken=abcd"],
    ["accessXtoken=abcd", "accessXtoken=abcd"],
    ["tokenX=abcd", "tokenX=abcd"],
    ["token=ab,cd", "token=ab,cd"],
    ["token abcd", "token abcd"],
  ];
  for (const [text, scrubbed] of cases) assert.equal(redact(text), scrubbed, text);
});

const base: Pair = {
  lab: "lab-1",
  time: "2026-12-04T21:00:00.000Z",
  run: "r1",
  type: "triage",
  task: "route",
  key: "k1",
  question: { id: "q", kind: "choice", labels: ["yes", "no"] },
  state_digest: "sha256:ab",
  host_label: "yes",
};

test("H-1: a pair's line holds its own fields only, in a fixed order; a missing key is null, attempt 0 is kept", () => {
  const extra = { ...base, kind: "shadow" as const, key: null, attempt: 0, state: { secret: 1 }, request: "prompt" };
  assert.equal(
    pairLine(extra),
    '{"lab":"lab-1","time":"2026-12-04T21:00:00.000Z","run":"r1","type":"triage","task":"route","key":null,"attempt":0,' +
      '"question":{"id":"q","kind":"choice","labels":["yes","no"]},"state_digest":"sha256:ab","host_label":"yes"}',
  );
  const { key: _key, ...keyless } = base;
  assert.equal(
    pairLine({ ...(keyless as Pair), kind: "audit" }),
    '{"lab":"lab-1","kind":"audit","time":"2026-12-04T21:00:00.000Z","run":"r1","type":"triage","task":"route","key":null,' +
      '"question":{"id":"q","kind":"choice","labels":["yes","no"]},"state_digest":"sha256:ab","host_label":"yes"}',
  );
});

test("H-1: the model's answer keeps only numeric probabilities and input, output and cost; calibration only with both its fields", () => {
  const model = {
    provider: "p",
    model: "m",
    label: "yes",
    probabilities: { yes: 0.75, no: 0.25, bad: "x" as unknown as number },
    confidence: 0.75,
    refused: false,
    latency_ms: 12,
    usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 2, cost_usd: 0.5, secret: "s" } as never,
    extra: "dropped",
  };
  const head =
    '{"lab":"lab-1","time":"2026-12-04T21:00:00.000Z","run":"r1","type":"triage","task":"route","key":"k1",' +
    '"question":{"id":"q","kind":"choice","labels":["yes","no"]},"state_digest":"sha256:ab","host_label":"yes",';
  const answer =
    '"model":{"provider":"p","model":"m","label":"yes","probabilities":{"yes":0.75,"no":0.25},"confidence":0.75,"refused":false,"latency_ms":12,';
  assert.equal(pairLine({ ...base, model }), `${head}${answer}"usage":{"input_tokens":10,"output_tokens":2,"cost_usd":0.5}}}`);
  assert.equal(
    pairLine({ ...base, model: { ...model, usage: null, calibrated_confidence: 0.6, calibration: "cal-1" } }),
    `${head}${answer}"usage":null,"calibrated_confidence":0.6,"calibration":"cal-1"}}`,
  );
  assert.equal(pairLine({ ...base, model: { ...model, usage: {}, calibrated_confidence: 0.6 } }), `${head}${answer}"usage":{}}}`);
  assert.equal(pairLine({ ...base, model: { ...model, usage: {}, calibration: "cal-1" } }), `${head}${answer}"usage":{}}}`);
  // Only numbers are kept: a count written as text, or null, is left out.
  const junk = { input_tokens: "10", output_tokens: null, cost_usd: "0.5" } as never;
  assert.equal(pairLine({ ...base, model: { ...model, usage: junk } }), `${head}${answer}"usage":{}}}`);
  assert.equal(pairLine({ ...base, attempt: "2" as never }), `${head.slice(0, -1)}}`);
});

test("H-1: a skipped pair's reason is scrubbed (a provider's error can echo the key); provider and model are kept", () => {
  const skipped = { provider: "openai", model: "gpt", reason: "error: 401 invalid key sk-abcdefgh1234; api_key=zq8#Wy!2" };
  assert.equal(
    pairLine({ ...base, skipped }),
    '{"lab":"lab-1","time":"2026-12-04T21:00:00.000Z","run":"r1","type":"triage","task":"route","key":"k1",' +
      '"question":{"id":"q","kind":"choice","labels":["yes","no"]},"state_digest":"sha256:ab","host_label":"yes",' +
      '"skipped":{"provider":"openai","model":"gpt","reason":"error: 401 invalid key [redacted]; api_key=[redacted]"}}',
  );
});

const fields =
  '"time":"2026-12-04T21:00:00.000Z","run":"r1","type":"triage","task":"route","key":"k1",' +
  '"question":{"id":"q","kind":"choice","labels":["yes","no"]},"state_digest":"sha256:ab","host_label":"yes"';

test("H-1: a pair's kind is written for audit and reviewed pairs only, right after the lab; shadow and absent write none", () => {
  assert.equal(pairLine({ ...base, kind: "reviewed" }), `{"lab":"lab-1","kind":"reviewed",${fields}}`);
  assert.equal(pairLine({ ...base, kind: "audit" }), `{"lab":"lab-1","kind":"audit",${fields}}`);
  assert.equal(pairLine({ ...base, kind: "shadow" }), `{"lab":"lab-1",${fields}}`);
  assert.equal(pairLine(base), `{"lab":"lab-1",${fields}}`);
  assert.equal(pairLine({ ...base, kind: "other" as never }), `{"lab":"lab-1",${fields}}`);
});

test("H-1: the host's latency is written when it is a number, 0 included, with input, output and cost of its usage only", () => {
  const usage = { input_tokens: 7, cached_input_tokens: 3, output_tokens: 2, cost_usd: 0.25, secret: "s" } as never;
  assert.equal(
    pairLine({ ...base, host: { latency_ms: 40, usage } }),
    `{"lab":"lab-1",${fields},"host":{"latency_ms":40,"usage":{"input_tokens":7,"output_tokens":2,"cost_usd":0.25}}}`,
  );
  assert.equal(
    pairLine({ ...base, host: { latency_ms: 0, usage: null } }),
    `{"lab":"lab-1",${fields},"host":{"latency_ms":0,"usage":null}}`,
  );
  // An older or malformed record: a latency that is not a number leaves the host out altogether.
  assert.equal(pairLine({ ...base, host: { latency_ms: "40" as never, usage } }), `{"lab":"lab-1",${fields}}`);
  assert.equal(pairLine({ ...base, host: { usage } as never }), `{"lab":"lab-1",${fields}}`);
  // The host comes after the model's answer and the skip, before the review.
  const skipped = { provider: "p", model: "m", reason: "window" };
  const reviewed = { label: "no", by: null, source: "review queue", time: "2026-12-05T00:00:00.000Z" };
  assert.equal(
    pairLine({ ...base, reviewed, host: { latency_ms: 5, usage: {} }, skipped }),
    `{"lab":"lab-1",${fields},"skipped":{"provider":"p","model":"m","reason":"window"},"host":{"latency_ms":5,"usage":{}},` +
      '"reviewed":{"label":"no","by":null,"source":"review queue","time":"2026-12-05T00:00:00.000Z"}}',
  );
});

test("H-1: a reviewed pair keeps its label and time; its reviewer and source are scrubbed of secrets; a null reviewer stays null", () => {
  const reviewed = {
    label: "yes",
    by: "ana token=abcd zq8#Wy!2",
    source: "labels.csv?api_key=wxyz1 from zq8#Wy!2",
    time: "2026-12-05T00:00:00.000Z",
    note: "dropped",
  };
  assert.equal(
    pairLine({ ...base, kind: "reviewed", reviewed }),
    `{"lab":"lab-1","kind":"reviewed",${fields},"reviewed":{"label":"yes","by":"ana token=[redacted] [redacted]",` +
      '"source":"labels.csv?api_key=[redacted] from [redacted]","time":"2026-12-05T00:00:00.000Z"}}',
  );
  assert.equal(
    pairLine({ ...base, reviewed: { label: "no", by: null, source: "plain.csv", time: "t" } }),
    `{"lab":"lab-1",${fields},"reviewed":{"label":"no","by":null,"source":"plain.csv","time":"t"}}`,
  );
  // An empty reviewer is a string, not null: it is kept as the empty string.
  assert.equal(
    pairLine({ ...base, reviewed: { label: "no", by: "", source: "", time: "t" } }),
    `{"lab":"lab-1",${fields},"reviewed":{"label":"no","by":"","source":"","time":"t"}}`,
  );
});
