import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAll } from "../../src/decide/answer.js";
import { createProvider } from "../../src/decide/providers/index.js";
import { choiceQ, noulQ, providerConfig, providerRequest, scoreQ } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { withTempDir } from "../support/setup.js";

let dir: string;
const team = choiceQ("team", { billing: "Payments", technical: "" });
const urgent = noulQ("urgent");
const severity = scoreQ("severity", { low: "", high: "" });

function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

withTempDir("sy-cmd-", (d) => (dir = d));

test("D-21 command: one System One request on stdin, one response on stdout", async () => {
  const seen = join(dir, "seen.json");
  const s = join(dir, "model.mjs");
  writeFileSync(
    s,
    `import { writeFileSync } from "node:fs";
let t = ""; process.stdin.on("data", (c) => (t += c)); process.stdin.on("end", () => {
  writeFileSync(${JSON.stringify(seen)}, t);
  const req = JSON.parse(t);
  const answers = {};
  for (const [id, q] of Object.entries(req.questions)) {
    if (q.type === "noul") answers[id] = { type: "noul", noul: 0.2 };
    if (q.type === "choice") answers[id] = { type: "choice", choice: "technical", probabilities: { billing: 0.3, technical: 0.7 }, confidence: 0.4 };
    if (q.type === "score") answers[id] = { type: "score", score: 1, probabilities: { "0": 0.1, "1": 0.9 } };
  }
  process.stdout.write(JSON.stringify({ model: req.model, answers, usage: { input_tokens: 5, output_tokens: 1 } }));
});`,
  );
  const p = createProvider(providerConfig("command", { command: [process.execPath, s] }));
  const r = await p.ask(providerRequest([team, urgent, severity], { ticket: "x" }));
  const resolved = resolveAll([team, urgent, severity], r);
  assert.equal(resolved.team!.label, "technical");
  assert.equal(resolved.urgent!.label, "no");
  assert.equal(resolved.severity!.label, "high");
  assert.deepEqual(r.usage, { input_tokens: 5, output_tokens: 1 });
  const req = JSON.parse(readFileSync(seen, "utf8"));
  assert.deepEqual(req.state, { ticket: "x" });
  assert.equal(req.model, "m1");
  assert.deepEqual(req.questions.team, { type: "choice", instructions: "Which team?", criteria: { billing: "Payments", technical: null } });
});

test("D-21 command: a non-zero exit fails, naming the status and quoting stderr", async () => {
  const s = script("fail.mjs", `process.stderr.write("model weights not found at /opt/w\\n"); process.exit(3);`);
  const p = createProvider(providerConfig("command", { command: [process.execPath, s] }));
  const e = await failure(p.ask(providerRequest([team])));
  assert.match(e.message, /exited with status 3; stderr: model weights not found at \/opt\/w/);
});

test("D-21 command: bad JSON or a wrong shape on stdout fails clearly", async () => {
  const bad = script("bad.mjs", `process.stderr.write("warming up"); process.stdout.write("Loading model...\\n{");`);
  let e = await failure(createProvider(providerConfig("command", { command: [process.execPath, bad] })).ask(providerRequest([team])));
  assert.match(e.message, /its stdout is not valid JSON .*it begins 'Loading model/);
  assert.match(e.message, /stderr: warming up/);
  const shape = script("shape.mjs", `process.stdout.write(JSON.stringify({ answers: { other: {} } }));`);
  e = await failure(createProvider(providerConfig("command", { command: [process.execPath, shape] })).ask(providerRequest([team])));
  assert.match(e.message, /its response has no answer for question 'team' \(answers for: other\)/);
  const empty = script("empty.mjs", ``);
  e = await failure(createProvider(providerConfig("command", { command: [process.execPath, empty] })).ask(providerRequest([team])));
  assert.match(e.message, /its stdout is empty/);
  e = await failure(createProvider(providerConfig("command", { command: [join(dir, "no-such-model")] })).ask(providerRequest([team])));
  assert.match(e.message, /could not start: .*ENOENT/);
});

test("D-22 command: a timeout kills the whole process group", async () => {
  const pidFile = join(dir, "grandchild.pid");
  // A shell (not a Node child, which can take longer than the timeout to start on a loaded
  // machine) starts a grandchild, records its pid, and waits forever.
  const p = createProvider(
    providerConfig("command", { command: ["/bin/sh", "-c", `sleep 30 & echo $! > '${pidFile}'; wait`], timeout_ms: 1000 }),
  );
  const t0 = Date.now();
  const e = await failure(p.ask(providerRequest([team])));
  assert.match(e.message, /no answer within 1000 ms \(timeout\); the process group was killed/);
  assert.ok(Date.now() - t0 < 25000, "the timeout ended the 30 s sleep");
  const pid = Number(readFileSync(pidFile, "utf8"));
  // The group was sent SIGKILL: wait for the grandchild to stop running (it would for 30 s otherwise).
  const stopped = () => {
    try {
      return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.charAt(0) === "Z";
    } catch {
      return true;
    }
  };
  while (!stopped() && Date.now() - t0 < 25000) await new Promise((r) => setTimeout(r, 20));
  // Gone, or a zombie waiting for a reaper (containers may lack one): not running either way.
  let state = "gone";
  try {
    state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.charAt(0);
  } catch {
    // no such process
  }
  assert.ok(state === "gone" || state === "Z", `the grandchild is still running (state ${state})`);
});

test("D-21/R-20 command: the model process never sees the providers' key variables", async () => {
  const seen = join(dir, "env-seen.json");
  const s = script(
    "env.mjs",
    `import { writeFileSync } from "node:fs";
process.stdin.resume(); process.stdin.on("end", () => {
  writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ plain: process.env.PLAIN_SETTING ?? null, key: process.env.OTHER_PROVIDER_KEY ?? null }));
  process.stdout.write(JSON.stringify({ answers: { urgent: { type: "noul", noul: 0.5 } } }));
});`,
  );
  process.env.PLAIN_SETTING = "kept";
  process.env.OTHER_PROVIDER_KEY = "other-secret";
  try {
    const p = createProvider(providerConfig("command", { command: [process.execPath, s] }), {}, ["OTHER_PROVIDER_KEY"]);
    await p.ask(providerRequest([urgent]));
    assert.deepEqual(JSON.parse(readFileSync(seen, "utf8")), { plain: "kept", key: null });
  } finally {
    delete process.env.PLAIN_SETTING;
    delete process.env.OTHER_PROVIDER_KEY;
  }
});
