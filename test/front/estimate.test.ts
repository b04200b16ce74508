// X-5: `switchyard estimate` and `run --dry-run` count what a run would ask for, and pay for
// nothing. The counts are worked out by hand for a 12-element pack: a route over the 12 ids
// with 2 questions → 12 × 2 = 24 decisions (12 of triage.triage.action by the model paid/m, 12
// of triage.triage.risk by the host); an agent gated on the action → at most 12 turns, at 50 %
// not taken 6, at 90 % ceil(1.2) = 2; priced at $3 / $15 per million tokens with 100,000 input
// and 10,000 output tokens a turn → $0.45 a turn, $5.40 at most and $2.70 at 50 %. The state of
// each decision, measured: {"key":…,"inputs":{}} 22 + 16, "prep" 4 + 6, "ids" 3 + 4 + the list
// ["a01",…,"a12"] of 2 + 12 × 5 + 11 = 73 characters, "owners" (keyed, so one entry) 6 + 4 +
// "team-web" of 10 characters: 148 characters, 37 tokens.
// A provider server that fails the test when called and an agent runner that leaves a mark
// when run prove nothing is paid for.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { runCliInProcess } from "../support/cli-in-process.js";

const IDS = Array.from({ length: 12 }, (_, i) => `a${String(i + 1).padStart(2, "0")}`);
const ROUTE_AND_AGENT =
  `triage = route(name = "triage", depends_on = [prep], over = prep.ids, max_fanout = 20, keyed = [prep.owners], questions = {\n` +
  `    "action": choice(ask = "Fix?", options = {"fix": "f", "skip": "s"}, drop = ["skip", "uncertain"]),\n` +
  `    "risk": noul(ask = "Risky?", drop = ["yes", "no", "uncertain"])})\n` +
  `fix = agent(name = "fix", depends_on = [triage], over = prep.ids, max_fanout = 20, when = triage.action, answers = "fix", runner = "paid", prompt = "Fix {{key}}")\n`;
const COMMAND_PREP = `prep = command(name = "prep", run = ${JSON.stringify(`echo '${JSON.stringify({ ids: IDS, owners: Object.fromEntries(IDS.map((id) => [id, "team-web"])) })}' > $SWITCHYARD_OUTPUT`)}, emits = {"ids": "list", "owners": "object"})\n`;
const AGENT_PREP = `prep = agent(name = "prep", runner = "paid", prompt = "List the ids", emits = {"ids": "list", "owners": "object"})\n`;

let server: Server;
let calls = 0;
let dir: string;
let config: string;
let mark: string;

before(async () => {
  server = createServer((_req, res) => {
    calls++;
    res.writeHead(500).end("a provider was called by an estimate");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  dir = mkdtempSync(join(tmpdir(), "sy-estimate-"));
  mark = join(dir, "agent-ran");
  config = join(dir, "config.toml");
  writeFileSync(
    config,
    `[agents.paid]\ncommand = ["sh", "-c", "touch '${mark}'; exit 1"]\nprice = { input_per_mtok = 3, output_per_mtok = 15 }\n\n` +
      `[providers.paid]\nkind = "systemone"\nvendor = "paid"\nbase_url = "http://127.0.0.1:${(server.address() as AddressInfo).port}"\nmodels = ["m"]\n\n` +
      `[decisions]\ndefault = "host"\n\n[decisions.types]\n"triage.triage.action" = "paid/m"\n`,
  );
});

after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function pack(prep: string): string {
  const p = mkdtempSync(join(dir, "pack-"));
  writeFileSync(join(p, "triage.star"), prep + ROUTE_AND_AGENT);
  return p;
}

interface EstimateJson {
  ran: string[];
  elements: Array<{ task: string; elements: number; from: string; why?: string }>;
  decisions: Array<{ type: string; decisions: number; mode: string; answered_by: string }>;
  routes: Array<{ route: string; requests: number; questions: number; state_tokens: number; measured: boolean }>;
  turns_at: Array<{ share: number; turns: number }>;
  cost: { agents: Array<{ share: number; turns: number; usd: number }> | null; agents_unknown?: string };
}

function assertNothingPaid(): void {
  assert.equal(calls, 0, "no provider is called");
  assert.equal(existsSync(mark), false, "no agent is started");
}

test("X-5: producers that are commands run in a scratch state: 12 elements, 24 decisions by type and who answers, 12 turns at most, 6 at 50 %", async () => {
  const r = await runCliInProcess([
    "estimate",
    pack(COMMAND_PREP),
    "--config",
    config,
    "--json",
    "--skip-share",
    "0.5",
    "--turn-tokens",
    "100000,10000",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const e = JSON.parse(r.stdout) as EstimateJson;
  assert.deepEqual(e.ran, ["prep"]);
  assert.deepEqual(
    e.elements.map((x) => [x.task, x.elements, x.from]),
    [
      ["triage", 12, "run"],
      ["fix", 12, "run"],
    ],
  );
  assert.deepEqual(
    e.decisions.map((d) => [d.type, d.decisions, d.mode]),
    [
      ["triage.triage.action", 12, "paid/m"],
      ["triage.triage.risk", 12, "host"],
    ],
  );
  assert.equal(e.decisions[0]!.answered_by, "the model paid/m");
  assert.equal(e.decisions[1]!.answered_by, "the host (tty)");
  assert.deepEqual(
    e.routes.map((x) => [x.route, x.requests, x.questions, x.state_tokens, x.measured]),
    [["triage", 12, 2, 37, true]],
  );
  assert.deepEqual(e.turns_at, [
    { share: 0, turns: 12 },
    { share: 0.5, turns: 6 },
  ]);
  assert.deepEqual(
    e.cost.agents?.map((c) => [c.share, c.turns, c.usd.toFixed(2)]),
    [
      [0, 12, "5.40"],
      [0.5, 6, "2.70"],
    ],
  );
  assertNothingPaid();
});

test("X-5: a producer that is an agent is not run: --elements gives the count and the estimate says why", async () => {
  const r = await runCliInProcess(["estimate", pack(AGENT_PREP), "--config", config, "--json", "--elements", "12"]);
  assert.equal(r.code, 0, r.stderr);
  const e = JSON.parse(r.stdout) as EstimateJson;
  assert.deepEqual(e.ran, []);
  assert.deepEqual(e.elements[0], { task: "triage", over: "prep.ids", elements: 12, from: "--elements", why: "prep is an agent" });
  assert.equal(
    e.decisions.reduce((n, d) => n + d.decisions, 0),
    24,
  );
  assert.deepEqual(e.turns_at, [
    { share: 0, turns: 12 + 1 },
    { share: 0.5, turns: 6 + 1 },
    { share: 0.9, turns: 2 + 1 },
  ]);
  assert.match(e.cost.agents_unknown ?? "", /--turn-tokens INPUT,OUTPUT/);
  assertNothingPaid();
});

test("X-5: without --elements, a list no producer run gives counts max_fanout as the most, in a table for people", async () => {
  const r = await runCliInProcess(["estimate", pack(AGENT_PREP), "--config", config]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^estimate for playbook 'triage' \(ran nothing; no provider was called and no agent started\)/);
  assert.match(r.stdout, /\n {2}triage +20 +max_fanout, at most: prep is an agent\n/);
  assert.match(r.stdout, /decisions at most: 40\n/);
  assert.match(r.stdout, /\n {2}triage\.triage\.action +20 +the model paid\/m\n/);
  assert.match(r.stdout, /\n {2}fix \(gated\) +paid +20 +10 +2\n/);
  assertNothingPaid();
});

test("X-5: run --dry-run prints the estimate and admits no run", async () => {
  const state = join(dir, "state");
  const p = pack(COMMAND_PREP);
  const before = await runCliInProcess(["runs", "--json", "--state-dir", state]);
  const r = await runCliInProcess(["run", p, "--dry-run", "--config", config, "--state-dir", state]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /decisions at most: 24\n/);
  assert.match(r.stdout, /\n {2}fix \(gated\) +paid +12 +6 +2\n/);
  const afterRuns = await runCliInProcess(["runs", "--json", "--state-dir", state]);
  assert.equal(afterRuns.stdout, before.stdout);
  assert.deepEqual(existsSync(join(state, "runs")) ? readdirSync(join(state, "runs")) : [], []);
  const shared = await runCliInProcess(["run", p, "--dry-run", "--skip-share", "25%", "--config", config, "--state-dir", state, "--json"]);
  assert.equal(shared.code, 0, shared.stderr);
  assert.deepEqual((JSON.parse(shared.stdout) as EstimateJson).turns_at, [
    { share: 0, turns: 12 },
    { share: 0.25, turns: 9 },
  ]);
  const notDry = await runCliInProcess(["run", p, "--elements", "3", "--config", config, "--state-dir", state]);
  assert.equal(notDry.code, 2);
  assert.match(notDry.stderr, /--elements is for an estimate: it goes with --dry-run/);
  assert.equal((await runCliInProcess(["runs", "--json", "--state-dir", state])).stdout, before.stdout);
  assertNothingPaid();
});

test("X-5: --skip-share and --elements are checked before anything runs", async () => {
  const r = await runCliInProcess(["estimate", pack(COMMAND_PREP), "--config", config, "--skip-share", "1.5"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--skip-share must be a share from 0 to 1 \(or 0% to 100%\), got "1\.5"/);
  const e = await runCliInProcess(["estimate", pack(COMMAND_PREP), "--config", config, "--elements", "-1"]);
  assert.equal(e.code, 2);
  assert.match(e.stderr, /--elements must be a whole number of at least 0, got "-1"/);
});

test("X-5: a producer command that fails gives no count: --elements does, and the estimate says it failed with the end of its log", async () => {
  const failing = `prep = command(name = "prep", run = "echo no ids today >&2; exit 3", emits = {"ids": "list", "owners": "object"})\n`;
  const r = await runCliInProcess(["estimate", pack(failing), "--config", config, "--json", "--elements", "12"]);
  assert.equal(r.code, 0, r.stderr);
  const e = JSON.parse(r.stdout) as EstimateJson;
  assert.deepEqual(e.ran, ["prep"]);
  assert.equal(e.elements[0]!.from, "--elements");
  assert.equal(e.elements[0]!.elements, 12);
  assert.match(e.elements[0]!.why ?? "", /^prep failed: .*exited with status 3; its log ends: no ids today$/);
  assertNothingPaid();
});
