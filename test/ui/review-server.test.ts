// The web view's one write, answering review questions (D-63; docs/ui.md "Writes"), over real HTTP
// on 127.0.0.1 against a real `switchyard ui` and a run detached while three elements wait: the
// queue is read without the token; a write without the token, with another, with a foreign
// Origin or none is refused with a coded 403 and records nothing; with the token and the
// server's Origin it is recorded with who and the note, and `resume` records it as a host decision
// with probability 1; a second answer and a label the question does not have are refused in
// words. And a server on a non-loopback address takes writes from other machines only when told.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { startUi, type Ui } from "./support.js";
import { both, modelYes, post, reviewPack, tokenOf, unsure, type ReviewPack } from "./review-support.js";
import { openStore, waitingReviewAnswers } from "../../src/run/store/index.js";
import { createUiServer } from "../../src/ui/index.js";
import type { ReviewQueueDoc } from "../../src/ui/review-types.js";

let pack: ReviewPack;
let ui: Ui;
let run: string;
let origin: string;
let token: string;
const N = 9;
const TOKEN = "x-switchyard-token";

before(async () => {
  pack = reviewPack(N);
  const r = pack.cli("run", "pack", "--detach-reviews", "--quiet");
  assert.equal(r.status, 1, r.stderr + r.stdout);
  const status = JSON.parse(pack.cli("status", "--json").stdout) as { run: string; status: string };
  assert.equal(status.status, "waiting", r.stderr);
  run = status.run;
  ui = await startUi(pack.state);
  ({ origin, token } = tokenOf(ui.printed));
});
after(async () => {
  await ui?.stop();
  pack?.dir.cleanup();
});

const waitingKeys = () => pack.keys.filter(unsure);
const listed = () => pack.waiting();
const answerTo = (key: string, label: string, extra: Record<string, unknown> = {}) => ({
  task: "gate",
  key,
  answers: { exploitable: label, reach: "network" },
  who: "alice",
  note: `checked ${key}`,
  ...extra,
});
const path = () => `/api/runs/${run}/review`;

test("switchyard ui prints its address with a token of 32 random bytes; reading needs none", async () => {
  assert.match(ui.printed, /^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/);
  const r = await fetch(new URL("/api/review", origin));
  assert.equal(r.status, 200);
  const doc = (await r.json()) as ReviewQueueDoc;
  assert.equal(doc.writable, true);
  // Oldest first: in the order they were sent to review (which the run's concurrency decides).
  assert.deepEqual(
    doc.elements.map((e) => [e.run, e.task, e.key]).sort(),
    waitingKeys().map((k) => [run, "gate", k]),
  );
  assert.deepEqual(
    doc.elements.map((e) => e.since),
    doc.elements.map((e) => e.since).sort(),
  );
  for (const e of doc.elements) {
    assert.deepEqual(
      e.questions.map((q) => [q.id, q.labels, q.model?.label, q.model?.confidence]),
      [
        ["exploitable", ["yes", "no"], "yes", 0.6],
        ["reach", ["local", "network"], "local", 0.55],
      ],
    );
    assert.ok(!Number.isNaN(Date.parse(e.since)));
    assert.ok(e.state !== null && typeof e.state === "object", JSON.stringify(e.state));
  }
  // The token is on no page and in no response.
  for (const p of ["/", "/api/review", "/api/runs", `/api/runs/${run}`, "/assets/app.js"])
    assert.ok(!(await (await fetch(new URL(p, origin))).text()).includes(token), p);
});

test("a write without the token, with another, from a foreign Origin or with none is a coded 403 and records nothing", async () => {
  const body = answerTo("e3", "no");
  const cases: Array<[string, Record<string, string>, string]> = [
    ["no token", { origin }, "ui-token-refused"],
    ["an empty token", { origin, [TOKEN]: "" }, "ui-token-refused"],
    ["another token of the same length", { origin, [TOKEN]: token.slice(0, -1) + (token.endsWith("A") ? "B" : "A") }, "ui-token-refused"],
    ["a shorter token", { origin, [TOKEN]: token.slice(0, -1) }, "ui-token-refused"],
    ["a foreign Origin", { origin: "http://evil.example", [TOKEN]: token }, "ui-foreign-origin"],
    ["another port's Origin", { origin: origin.replace(/:\d+$/, ":1"), [TOKEN]: token }, "ui-foreign-origin"],
    ["no Origin", { [TOKEN]: token }, "ui-foreign-origin"],
    ["the token as a cookie", { origin, cookie: `${TOKEN}=${token}; token=${token}` }, "ui-token-refused"],
  ];
  for (const [what, headers, code] of cases) {
    const r = await post(origin, path(), headers, body);
    assert.equal(r.status, 403, what);
    assert.equal(r.body.error?.code, code, what);
    assert.ok(!JSON.stringify(r.body).includes(token), what);
  }
  // Only the answer route takes a POST; no other method writes.
  const elsewhere = await post(origin, "/api/runs", { origin, [TOKEN]: token }, body);
  assert.deepEqual([elsewhere.status, elsewhere.body.error?.code], [405, "ui-read-only"]);
  const put = await fetch(new URL(path(), origin), { method: "PUT", headers: { origin, [TOKEN]: token } });
  assert.equal(put.status, 405);
  assert.deepEqual(listed(), both(waitingKeys()));
});

test("D-63: with the token and the server's Origin an answer is left for the run with who, when and the note", async () => {
  const before = Date.now();
  const r = await post(origin, path(), { origin, [TOKEN]: token }, answerTo("e3", "no"));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, {
    run,
    task: "gate",
    key: "e3",
    answers: [
      { question: "exploitable", label: "no" },
      { question: "reach", label: "network" },
    ],
    by: "alice",
    note: "checked e3",
  });
  assert.deepEqual(listed(), both(["e6", "e9"]));
  const store = openStore(undefined, pack.state);
  try {
    const rows = waitingReviewAnswers(store, run);
    assert.deepEqual(
      rows.map(({ at: _at, ...row }) => row).sort((a, b) => a.question.localeCompare(b.question)),
      [
        { task: "gate", key: "e3", question: "exploitable", label: "no", who: "alice", note: "checked e3" },
        { task: "gate", key: "e3", question: "reach", label: "network", who: "alice", note: "checked e3" },
      ],
    );
    for (const { at } of rows) assert.ok(Date.parse(at) >= before - 1000 && Date.parse(at) <= Date.now() + 1000, at);
  } finally {
    store.close();
  }
});

test("D-63: a second answer, a label the question does not have, and a malformed answer are refused in words", async () => {
  const headers = { origin, [TOKEN]: token };
  const again = await post(origin, path(), headers, answerTo("e3", "yes", { who: "bob" }));
  assert.equal(again.status, 409);
  assert.equal(again.body.error?.code, "review-not-waiting");
  assert.match(again.body.error!.message, /e3/);
  const bad = await post(origin, path(), headers, answerTo("e6", "maybe"));
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error?.code, "review-bad-label");
  assert.match(bad.body.error!.message, /'maybe' is not an answer to question 'exploitable'/);
  assert.equal(bad.body.error?.hint, "answer one of: yes, no, uncertain");
  // Every answer of an element is checked before any is given: a good one beside a bad one is not kept.
  const badSecond = await post(origin, path(), headers, { ...answerTo("e6", "yes"), answers: { exploitable: "yes", reach: "remote" } });
  assert.deepEqual([badSecond.status, badSecond.body.error?.code], [400, "review-bad-label"]);
  assert.equal(badSecond.body.error?.hint, "answer one of: local, network, uncertain");
  const noQuestion = await post(origin, path(), headers, { ...answerTo("e6", "yes"), answers: { exploitable: "yes", depth: "deep" } });
  assert.deepEqual([noQuestion.status, noQuestion.body.error?.code], [409, "review-not-waiting"]);
  const noName = await post(origin, path(), headers, answerTo("e6", "yes", { who: "  " }));
  assert.deepEqual([noName.status, noName.body.error?.code], [400, "ui-bad-body"]);
  const longName = await post(origin, path(), headers, answerTo("e6", "yes", { who: "x".repeat(101) }));
  assert.deepEqual([longName.status, longName.body.error?.code], [400, "ui-bad-body"]);
  const notJson = await post(origin, path(), headers, "{");
  assert.deepEqual([notJson.status, notJson.body.error?.code], [400, "ui-bad-body"]);
  const tooBig = await post(origin, path(), headers, answerTo("e6", "yes", { note: "x".repeat(70 * 1024) }));
  assert.deepEqual([tooBig.status, tooBig.body.error?.code], [413, "ui-bad-body"]);
  const noRun = await post(origin, "/api/runs/nope/review", headers, answerTo("e6", "yes"));
  assert.deepEqual([noRun.status, noRun.body.error?.code], [404, "ui-not-found"]);
  // A name of exactly 100 characters is accepted (below, for e6); nothing else was recorded.
  assert.deepEqual(listed(), both(["e6", "e9"]));
});

test("D-63: resume records the web's answers as host decisions with probability 1, with who and the note, and gates on them", async () => {
  const headers = { origin, [TOKEN]: token };
  const hundred = "b".repeat(100);
  assert.equal((await post(origin, path(), headers, answerTo("e6", "uncertain", { who: hundred }))).status, 200);
  assert.equal((await post(origin, path(), headers, answerTo("e9", "yes", { note: "" }))).status, 200);
  assert.deepEqual(listed(), []);
  const r = pack.cli("resume", "latest", "--quiet");
  assert.equal(r.status, 0, r.stderr + r.stdout);
  type Decision = { label: string; mode: string; provider: string; confidence: number; probabilities: Record<string, number> };
  type Reviewed = Decision & { review: { by: string; note?: string; model: { label: string } } };
  const shown = JSON.parse(pack.cli("show", "latest", "--json").stdout) as {
    status: string;
    tasks: { gate: { instances: Record<string, { output: { exploitable: Reviewed; reach: Reviewed } }> } };
  };
  assert.equal(shown.status, "passed");
  const expected: Array<[string, string, string, string | undefined]> = [
    ["e3", "no", "alice", "checked e3"],
    ["e6", "uncertain", hundred, "checked e6"],
    ["e9", "yes", "alice", undefined],
  ];
  for (const [key, label, by, note] of expected) {
    const d = shown.tasks.gate.instances[key]!.output.exploitable;
    assert.deepEqual([d.label, d.mode, d.provider, d.confidence], [label, "host", "review", 1], key);
    assert.equal(d.probabilities[label] ?? 0, label === "uncertain" ? 0 : 1, key);
    assert.equal(d.review.by, by, key);
    assert.equal(d.review.note, note, key);
    assert.equal(d.review.model.label, "yes", key);
    const reach = shown.tasks.gate.instances[key]!.output.reach;
    assert.deepEqual(
      [reach.label, reach.probabilities.network, reach.review.by, reach.review.model.label],
      ["network", 1, by, "local"],
      key,
    );
  }
  // Fixed: the model's certain yes (even, not a multiple of 3) and the person's yes.
  const fixed = readFileSync(pack.fixLog, "utf8").split("\n").filter(Boolean).sort();
  const certainYes = pack.keys.filter((k) => !unsure(k) && modelYes(k));
  assert.deepEqual(fixed, [...certainYes, "e9"].sort());
});

/** A non-loopback address of this machine, when it has one. */
const outward = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

test(
  "a server on another address takes writes from other machines only when --host opened it (remote)",
  { skip: outward ? false : "this machine has no non-loopback IPv4 address" },
  async () => {
    for (const remote of [false, true]) {
      const { server, close } = createUiServer({ stateDir: pack.state, host: "0.0.0.0", port: 0, writes: { token: "t0ken", remote } });
      await new Promise<void>((done) => server.listen(0, "0.0.0.0", done));
      try {
        const port = (server.address() as { port: number }).port;
        const base = `http://${outward}:${port}`;
        const r = await post(base, path(), { origin: base, [TOKEN]: "t0ken" }, answerTo("e3", "maybe"));
        // Refused at the door when not remote; past it (and refused: nothing waits any more) when remote.
        assert.deepEqual([r.status, r.body.error?.code], remote ? [409, "review-not-waiting"] : [403, "ui-write-not-local"]);
      } finally {
        await close();
      }
    }
  },
);

test("a server made without writes refuses every POST as read-only", async () => {
  const { server, close } = createUiServer({ stateDir: pack.state, host: "127.0.0.1", port: 0 });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  try {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const r = await post(base, path(), { origin: base, [TOKEN]: "anything" }, answerTo("e3", "no"));
    assert.deepEqual([r.status, r.body.error?.code], [405, "ui-read-only"]);
    assert.equal(((await (await fetch(`${base}/api/review`)).json()) as ReviewQueueDoc).writable, false);
  } finally {
    await close();
  }
});
