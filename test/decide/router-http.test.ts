// The router end to end: a machine config file, a real System One server on 127.0.0.1, a real
// agent runner process as the host, and the lab's real pairs.jsonl (D-10, D-30, D-31, D-32, H-1).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJudge } from "../../src/decide/router.js";
import { loadMachineConfig } from "../../src/decide/config.js";
import { parseModeOverrides } from "../../src/decide/mode.js";
import { openLabSink, labsDir } from "../../src/lab/store.js";
import type { JudgeRequest, ResolvedQuestion } from "../../src/run/kinds/judge.js";
import { startSystemOneServer, systemOneProviderToml, type SystemOneServer } from "../support/systemone-server.js";
import { Misbehave } from "../support/scripted-server.js";

const KEY_ENV = "SWITCHYARD_ROUTER_E2E_KEY";
const SECRET = "sk-router-e2e-0123456789abcdef";
const T = "triage.gate.exploitable";
const dir = mkdtempSync(join(tmpdir(), "switchyard-router-http-"));
const runnerLog = join(dir, "runner.log");
let server: SystemOneServer;

// The host: an agent runner that logs each prompt it gets and answers the first label offered.
const runner = join(dir, "runner.mjs");
writeFileSync(
  runner,
  `
import { appendFileSync } from "node:fs";
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  appendFileSync(process.env.RUNNER_LOG, "asked\\n");
  const m = /list above \\(([^)]*)\\)/.exec(input);
  process.stdout.write(m ? m[1].split(",")[0].trim() + "\\n" : "???\\n");
});
`,
);

function configFile(name: string, types: string, extra = ""): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `
[agents.scripted]
command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(runner)}]
env = { RUNNER_LOG = ${JSON.stringify(runnerLog)} }

${systemOneProviderToml(server.url, KEY_ENV, `models = ["jev-1"]\ncontext_window = { "jev-1" = 2000 }\ntimeout = "5s"\nmax_retries = 1`)}
[decisions]
host = "scripted"
${extra}

[decisions.types]
${types}
`,
  );
  return file;
}

function question(id: string): ResolvedQuestion {
  return {
    id,
    kind: "noul",
    ask: "Is the flaw exploitable here?",
    labels: ["yes", "no"],
    descriptions: { yes: "", no: "" },
    type: T,
    min_confidence: 0.5,
  };
}

function request(key: string, state: unknown = { ticket: key, note: "private state text" }): JudgeRequest {
  return {
    run: "run-e2e",
    playbook: "triage",
    task: "gate",
    key,
    state,
    state_text: JSON.stringify(state),
    questions: [question("exploitable")],
    signal: new AbortController().signal,
  };
}

function hostCalls(): number {
  return existsSync(runnerLog) ? readFileSync(runnerLog, "utf8").split("\n").filter(Boolean).length : 0;
}

before(async () => {
  process.env[KEY_ENV] = SECRET;
  // The model says "no" (P(yes) = 0.2); the host runner always says "yes".
  server = await startSystemOneServer({ table: { rules: [{ answer: { p_yes: 0.2 } }] } });
});

after(async () => {
  delete process.env[KEY_ENV];
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test("D-10/H-1 over HTTP: shadow uses the host runner's label and writes one pair per decision to the lab", async () => {
  const stateDir = join(dir, "state-shadow");
  const config = loadMachineConfig(configFile("shadow.toml", `"${T}" = "shadow:s1/jev-1"`), {});
  const sink = openLabSink(stateDir);
  const judge = createJudge({ config, stateDir, pairs: sink });
  assert.deepEqual(judge.preflight([T]), []);
  const before = server.count("/v1/systemone");
  const calls = hostCalls();
  const a = await judge.judge(request("CVE-1"));
  const b = await judge.judge(request("CVE-2"));
  sink.close();
  await judge.close();
  assert.deepEqual(
    [a.exploitable.label, a.exploitable.mode, a.exploitable.provider, a.exploitable.model],
    ["yes", "shadow", "host", "scripted"],
  );
  assert.equal(b.exploitable.label, "yes");
  assert.equal(server.count("/v1/systemone") - before, 2);
  assert.equal(hostCalls() - calls, 2);
  assert.equal(server.requests.at(-1)!.headers.authorization, `Bearer ${SECRET}`, "the key is read from api_key_env");

  const lab = readdirSync(labsDir(stateDir)).filter((f) => f !== "current")[0];
  const text = readFileSync(join(labsDir(stateDir), lab, "pairs.jsonl"), "utf8");
  const pairs = text
    .trim()
    .split("\n")
    .map(
      (l) =>
        JSON.parse(l) as { key: string; host_label: string; model: { label: string; confidence: number; provider: string; model: string } },
    );
  assert.deepEqual(
    pairs.map((p) => [p.key, p.host_label, p.model.label, p.model.provider, p.model.model]),
    [
      ["CVE-1", "yes", "no", "s1", "jev-1"],
      ["CVE-2", "yes", "no", "s1", "jev-1"],
    ],
  );
  assert.ok(Math.abs(pairs[0].model.confidence - 0.8) < 1e-9);
  assert.ok(!text.includes(SECRET), "no secret in the pairs file");
  assert.ok(!text.includes("private state text"), "no state in the pairs file, only its digest");
  assert.ok(!JSON.stringify([a, b]).includes(SECRET));
});

test("D-10/D-31 over HTTP: turned on asks the host nothing, and falls back with receipts on 500s, the window and the resolver", async () => {
  const config = loadMachineConfig(configFile("on.toml", `"${T}" = "s1/jev-1"`), {});
  const judge = createJudge({ config, stateDir: join(dir, "state-on") });
  assert.deepEqual(judge.preflight([T]), []);
  const calls = hostCalls();
  let sent = server.count("/v1/systemone");

  const answered = await judge.judge(request("CVE-1"));
  assert.deepEqual(
    [answered.exploitable.label, answered.exploitable.provider, answered.exploitable.model, answered.exploitable.receipt],
    ["no", "s1", "jev-1", undefined],
  );
  assert.equal(hostCalls(), calls, "the host is not asked when the model answers");
  assert.equal(server.count("/v1/systemone") - sent, 1);

  // Two 500s: the first try and its one retry (max_retries = 1).
  server.enqueue(Misbehave.status(500), Misbehave.status(500));
  sent = server.count("/v1/systemone");
  const failed = await judge.judge(request("CVE-2"));
  assert.equal(server.count("/v1/systemone") - sent, 2);
  assert.deepEqual([failed.exploitable.label, failed.exploitable.provider], ["yes", "host"]);
  assert.equal(hostCalls(), calls + 1);
  const receipt = failed.exploitable.receipt!;
  assert.deepEqual([receipt.type, receipt.key, receipt.provider, receipt.model], [T, "CVE-2", "s1", "jev-1"]);
  assert.match(receipt.reason, /^error: .*500/);
  assert.ok(!Number.isNaN(Date.parse(receipt.time)));

  sent = server.count("/v1/systemone");
  const big = await judge.judge(request("CVE-3", { ticket: "CVE-3", facts: "x".repeat(10_000) }));
  assert.equal(server.count("/v1/systemone"), sent, "an over-window request is never sent");
  assert.match(big.exploitable.receipt!.reason, /^window: the request is estimated at \d+ tokens, over the context window of 2000/);
  assert.equal(big.exploitable.label, "yes");
  await judge.close();

  // The resolver: a --decide override to an unlisted model, and a denied vendor.
  const warned: string[] = [];
  const unlisted = createJudge({
    config,
    overrides: parseModeOverrides([`${T}=s1/jev-9`]),
    stateDir: join(dir, "state-on"),
    warn: (m) => warned.push(m),
  });
  assert.deepEqual(unlisted.preflight([T]), [], "reported at start (D-30), not refused: D-31 falls back");
  assert.match(
    warned[0],
    /judgement type "triage\.gate\.exploitable" is routed to s1\/jev-9 \(by --decide\), but model "jev-9" is not in providers\.s1\.models/,
  );
  const r1 = await unlisted.judge(request("CVE-4"));
  assert.match(r1.exploitable.receipt!.reason, /^resolver: D-30: model "jev-9"/);
  const denied = createJudge({
    config: loadMachineConfig(configFile("deny.toml", `"${T}" = "s1/jev-1"`, `deny_vendors = ["typesafe"]`), {}),
    stateDir: join(dir, "state-on"),
    warn: (m) => warned.push(m),
  });
  assert.deepEqual(denied.preflight([T]), []);
  assert.match(warned[1], /vendor "typesafe", which \[decisions\] deny_vendors denies/);
  const r2 = await denied.judge(request("CVE-5"));
  assert.match(r2.exploitable.receipt!.reason, /^resolver: D-30: provider "s1" is of vendor "typesafe"/);
  assert.equal(server.count("/v1/systemone"), sent, "resolver violations are never sent");
  assert.equal(hostCalls(), calls + 4);
  assert.ok(!JSON.stringify([answered, failed, big, r1, r2]).includes(SECRET), "no secret in any record or receipt");
});
