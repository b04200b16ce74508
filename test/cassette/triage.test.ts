// Cassettes and `switchyard test` on the example triage pack: record a real run once
// with its scripted runner and decider, write the cassette, then replay the pack offline. The
// expected hits, misses and records are computed from the recorded run's own records (`show
// --json`), never from the cassette code.
import { before, after, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cli } from "../e2e/support/harness.js";
import { runCliInProcess } from "../support/cli-in-process.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";

interface Inst {
  status: string;
  output?: unknown;
}
interface Shown {
  run: string;
  status: string;
  tasks: Record<string, { kind: string; status: string; instances?: Record<string, Inst> }>;
}

const AGENTS = ["review", "quick", "deep", "recheck"];
const ROUTES = ["match", "gate", "judge"];

let dir: string;
let pack: string;
let cassette: string;
let recorded: Shown;
/** The recorded run's records, with run ids and times left out. */
let recordedRecords: unknown;
/** A config whose runner and decision model fail if called: a program that logs, and a counting server. */
let failingConfig: string;
let calls: string;
let server: ScriptedServer;

const sy = (args: string[], cwd = dir, env: Record<string, string> = {}) =>
  cli(args, { cwd, env: { XDG_CONFIG_HOME: join(dir, "xdg"), SWITCHYARD_HOME: "", ...env } });
/** The same in this process: for what reads a run (show, cassette) or refuses a cassette before replaying it. */
const here = async (args: string[]) => {
  const r = await runCliInProcess(args, { cwd: dir, env: { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg"), SWITCHYARD_HOME: "" } });
  return { code: r.code, out: r.stdout, err: r.stderr };
};

function passedKeys(shown: Shown, task: string): string[] {
  return Object.entries(shown.tasks[task]!.instances!)
    .filter(([, i]) => i.status === "passed")
    .map(([k]) => k)
    .sort();
}

/** Records as `show --json` prints them, without what differs between two runs (ids, times, folders). */
function records(shown: Shown): unknown {
  const text = JSON.stringify(shown.tasks).replace(/\d{8}-\d{6}-[0-9a-f]{6}/g, "RUN");
  return JSON.parse(text, (k, v: unknown) => (k === "latency_ms" || k.endsWith("_at") ? undefined : v));
}

async function show(state: string): Promise<Shown> {
  const r = await here(["show", "latest", "--json", "--state-dir", state]);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as Shown;
}

/** A copy of the pack with `edit` applied to one of its files. */
function changedPack(name: string, file: string, edit: (text: string) => string): string {
  const copy = join(dir, name);
  cpSync(pack, copy, { recursive: true });
  const path = join(copy, file);
  const before = readFileSync(path, "utf8");
  const afterText = edit(before);
  assert.notEqual(afterText, before, `the edit of ${file} changed nothing`);
  writeFileSync(path, afterText);
  return copy;
}

/** The miss lines of a report ("agent turn TASK[KEY]: why" / "decision …"), sorted. */
function missLines(out: string): string[] {
  return out
    .split("\n")
    .filter((l) => /^ {2}(agent turn|decision) /.test(l))
    .map((l) => l.trim())
    .sort();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "sy-cassette-"));
  pack = join(dir, "cve-triage");
  cpSync(resolve("examples/cve-triage"), pack, { recursive: true });
  const state = join(dir, "recorded");
  const r = await sy(["run", pack, "--config", join(pack, "switchyard.toml"), "--state-dir", state, "-q"]);
  assert.equal(r.code, 0, `the recorded run passes\n${r.out}\n${r.err}`);
  recorded = await show(state);
  recordedRecords = records(recorded);
  cassette = join(dir, "cassette.jsonl");
  const w = await here(["cassette", "latest", "--state-dir", state, "-o", cassette]);
  assert.equal(w.code, 0, w.err);
  const turns = AGENTS.reduce((n, t) => n + passedKeys(recorded, t).length, 0);
  const decisions = ROUTES.reduce((n, t) => n + passedKeys(recorded, t).length, 0);
  assert.match(
    w.out,
    new RegExp(`^wrote ${cassette} from run ${recorded.run}: ${turns} agent turns, ${decisions} decisions, \\d+\\.\\d kB\\n$`),
  );
  server = await startScriptedServer({ routes: {} });
  calls = join(dir, "calls.log");
  const fail = join(dir, "fail-if-called.mjs");
  writeFileSync(
    fail,
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(calls)}, "called\\n");\nprocess.exit(1);\n`,
  );
  failingConfig = join(dir, "failing.toml");
  writeFileSync(
    failingConfig,
    `[agents.default]\ncommand = ["node", ${JSON.stringify(fail)}]\n\n[providers.remote]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${server.url}"\nmodels = ["m"]\nmax_retries = 0\n\n[decisions]\nhost = "default"\ndefault = "remote/m"\n`,
  );
});

after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a replay from the cassette gives the recorded run's records, with the runner and the decision model never called", async () => {
  const state = join(dir, "replay");
  const junit = join(dir, "replay.xml");
  // --allow-live wires the failing runner and model behind the cassette: a hit must not reach them.
  const r = await sy(
    ["test", pack, "--cassette", cassette, "--config", failingConfig, "--allow-live", "--state-dir", state, "--junit", junit],
    dir,
    {
      SWITCHYARD_CONFIG: failingConfig,
    },
  );
  const turns = AGENTS.reduce((n, t) => n + passedKeys(recorded, t).length, 0);
  const decisions = ROUTES.reduce((n, t) => n + passedKeys(recorded, t).length, 0);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(
    r.out,
    new RegExp(`test triage: passed: ${turns} agent turns and ${decisions} decisions answered from the cassette, 0 misses; the run passed`),
  );
  assert.equal(existsSync(calls), false, "the runner was never started");
  assert.equal(server.count(), 0, "the decision model's server saw no request");
  assert.deepEqual(records(await show(state)), recordedRecords);
  const xml = readFileSync(junit, "utf8");
  const instances = Object.values(recorded.tasks).reduce((n, t) => n + (t.instances ? Object.keys(t.instances).length : 1), 0);
  assert.match(xml, new RegExp(`<testsuites name="switchyard test triage" tests="${instances}" failures="0">`));
  // Without --allow-live, nothing is loaded from a config at all; the same records.
  const offline = await sy(["test", pack, "--cassette", cassette, "--state-dir", join(dir, "replay-offline")], dir, {
    SWITCHYARD_CONFIG: failingConfig,
  });
  assert.equal(offline.code, 0, `${offline.out}\n${offline.err}`);
  assert.deepEqual(records(await show(join(dir, "replay-offline"))), recordedRecords);
  assert.equal(existsSync(calls), false);
  assert.equal(server.count(), 0);
});

test("a changed prompt: exactly that task's elements miss, each with the diff of its prompt; JUnit names them", async () => {
  const changed = changedPack("prompt-changed", "triage.star", (t) => t.replace("redo the analysis.", "redo the analysis from scratch."));
  const junit = join(dir, "prompt.xml");
  const r = await sy(["test", changed, "--cassette", cassette, "--junit", junit]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  const keys = passedKeys(recorded, "recheck");
  assert.ok(keys.length > 0);
  assert.deepEqual(missLines(r.out), keys.map((k) => `agent turn recheck[${k}]: the rendered prompt changed`).sort());
  for (const k of keys) {
    const prompt = `The verdict for ${k} was not supported by its evidence; redo the analysis`;
    assert.ok(r.out.includes(`      - ${prompt}.\n      + ${prompt} from scratch.\n`), `the diff of recheck[${k}]\n${r.out}`);
  }
  assert.match(r.out, new RegExp(`: FAILED: .*, ${keys.length} misses; the run failed\n`));
  // JUnit: every instance a test case; the missed ones fail with the reason and the diff, nothing else fails.
  const xml = readFileSync(junit, "utf8");
  const instances = Object.values(recorded.tasks).reduce((n, t) => n + (t.instances ? Object.keys(t.instances).length : 1), 0);
  assert.ok(
    xml.startsWith(
      `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="switchyard test triage" tests="${instances}" failures="${keys.length}">\n`,
    ),
  );
  assert.ok(xml.includes(`  <testsuite name="recheck" tests="40" failures="${keys.length}">\n`));
  for (const task of ["prepare", "match", "review", "gate", "quick", "deep", "judge", "report"])
    assert.match(xml, new RegExp(`<testsuite name="${task}" tests="\\d+" failures="0">`));
  const k = keys[0]!;
  const prompt = `The verdict for ${k} was not supported by its evidence; redo the analysis`;
  const expected =
    `    <testcase classname="triage.recheck" name="${k}">\n` +
    `      <failure type="cassette-miss" message="agent turn recheck[${k}]: the rendered prompt changed">agent turn recheck[${k}]: the rendered prompt changed\n` +
    `    - ${prompt}.\n    + ${prompt} from scratch.</failure>\n` +
    `    </testcase>\n`;
  assert.ok(xml.includes(expected), `JUnit holds\n${expected}\nin\n${xml}`);
});

test("a changed route question: exactly that route's decided elements miss, as a changed question", async () => {
  const changed = changedPack("question-changed", "triage.star", (t) =>
    t.replace("Does the evidence in RESULT.json support its verdict?", "Does RESULT.json's evidence support its verdict?"),
  );
  const r = await sy(["test", changed, "--cassette", cassette]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  const keys = passedKeys(recorded, "judge");
  assert.deepEqual(missLines(r.out), keys.map((k) => `decision judge[${k}]: the questions or their options changed`).sort());
  assert.ok(
    r.out.includes(
      `      - "ask": "Does the evidence in RESULT.json support its verdict?",\n      + "ask": "Does RESULT.json's evidence support its verdict?",\n`,
    ),
    r.out,
  );
});

test("an element added to the producer's list: only that element's requests miss, as a new element", async () => {
  const changed = changedPack("element-added", "stage.mjs", (t) =>
    t.replace(
      "const TICKETS = [\n",
      `const TICKETS = [\n  ["CVE-2099-0001", "zlib", "A test ticket", "low", { imported: true, called: false }],\n`,
    ),
  );
  const r = await sy(["test", changed, "--cassette", cassette]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  // By hand: the new ticket's `match` decision misses and fails; `gate` (when = match.package) and so
  // review, quick and deep are blocked; `judge` joins settled, so it is still asked (a miss); recheck
  // is blocked behind it. Every other element's request is unchanged.
  assert.deepEqual(missLines(r.out), [
    "decision judge[CVE-2099-0001]: a new element: the cassette has no decision for it",
    "decision match[CVE-2099-0001]: a new element: the cassette has no decision for it",
  ]);
});

test("a cassette that is not one: FILE:LINE:COL: error[CODE] and exit 2; --update without --allow-live is refused", async () => {
  const bad = join(dir, "bad.jsonl");
  writeFileSync(bad, readFileSync(cassette, "utf8").split("\n")[0] + "\nnot json\n");
  const r = await here(["test", pack, "--cassette", bad]);
  assert.equal(r.code, 2);
  assert.equal(r.err.split("\n")[0], `${bad}:2:1: error[cassette-invalid]: this line is not JSON; a cassette is one JSON object per line`);
  const old = join(dir, "old.jsonl");
  writeFileSync(old, `{"format":"switchyard-cassette","version":0}\n`);
  const v = await here(["test", pack, "--cassette", old]);
  assert.equal(v.code, 2);
  assert.match(
    v.err,
    new RegExp(`^${old.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:1:1: error\\[cassette-version\\]: cassette version 0 is not`),
  );
  const u = await here(["test", pack, "--cassette", cassette, "--update"]);
  assert.equal(u.code, 2);
  assert.match(u.err, /--update writes the answers of the misses, which only --allow-live asks for, or the --expect file/);
});

test("the example pack ships a cassette that answers every request of its playbook, offline", async () => {
  const r = await sy(["test", resolve("examples/cve-triage"), "--cassette", resolve("examples/cve-triage/cassette.jsonl")]);
  assert.equal(
    r.code,
    0,
    `examples/cve-triage/cassette.jsonl is stale: write it again from a run of the example (docs/testing-playbooks.md)\n${r.out}\n${r.err}`,
  );
  assert.match(r.out, / 0 misses; the run passed\n/);
});

test("--expect: --update writes the counts by status and label; a changed count or element is printed and fails", async () => {
  const expect = join(dir, "expect.toml");
  const w = await sy(["test", pack, "--cassette", cassette, "--expect", expect, "--update"]);
  assert.equal(w.code, 0, `${w.out}\n${w.err}`);
  // gate's counts, by hand from the recorded run's records.
  const gate = Object.entries(recorded.tasks.gate!.instances!) as [string, Inst & { label?: string }][];
  const passed = gate.filter(([, i]) => i.status === "passed");
  const labels: Record<string, number> = {};
  for (const [, i] of passed) {
    const l = `depth=${(i.output as { depth: { label: string } }).depth.label}`;
    labels[l] = (labels[l] ?? 0) + 1;
  }
  const written = readFileSync(expect, "utf8");
  const gateTable = written.slice(written.indexOf("[tasks.gate]\n"), written.indexOf("[tasks.judge]"));
  const labelLines = Object.keys(labels)
    .sort()
    .map((l) => `"${l}" = ${labels[l]}\n`)
    .join("");
  const notTaken = gate.length - passed.length;
  assert.ok(
    gateTable.startsWith(
      `[tasks.gate]\n${notTaken ? `not_taken = ${notTaken}\n` : ""}passed = ${passed.length}\n\n[tasks.gate.labels]\n${labelLines}`,
    ),
    gateTable,
  );

  const [k1, d1] = passed[0]!;
  const actual = `passed:depth=${(d1.output as { depth: { label: string } }).depth.label}`;
  writeFileSync(expect, `[tasks.gate]\npassed = ${passed.length + 1}\n\n[tasks.gate.elements]\n"${k1}" = "not_taken:settled"\n`);
  const r = await sy(["test", pack, "--cassette", cassette, "--expect", expect]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.ok(
    r.out.includes(
      `2 expectations of ${expect} not met:\n  gate: passed ${passed.length + 1}, the run had ${passed.length}\n  gate[${k1}]: expected not_taken:settled, the run had ${actual}\n`,
    ),
    r.out,
  );
});
