// `switchyard explain RUN TASK[KEY]` (and `show RUN --why TASK[KEY]`) tells why an instance
// is in its state: dependencies and their states, the gate with its label, confidence and
// threshold, every attempt and how it ended, the ceilings. Known answers: the pack below gates
// `deep` on an output route answering deep for a and quick for b; deep fails every attempt
// (exit 4) with retries = 1, so deep[a] fails after 2 attempts and deep[b] is not taken.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answerWords } from "../../src/cli/instance-explain.js";
import type { QuestionDecision } from "../../src/run/kinds/judge.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const PLAYBOOK = `
prep = command(name = "prep", run = "echo '{\\"ids\\": [\\"a\\",\\"b\\"], \\"known\\": {\\"a\\": {\\"depth\\": \\"deep\\"}, \\"b\\": {\\"depth\\": \\"quick\\"}}}' > $SWITCHYARD_OUTPUT",
               emits = {"ids": "list", "known": "object"})
gate = route(name = "gate", depends_on = [prep], over = prep.ids, max_fanout = 5, decide = "output", source = prep.known,
             questions = {"depth": choice(ask = "How deep?", options = {"deep": "look closely", "quick": "a glance"})})
deep = command(name = "deep", depends_on = [gate], over = prep.ids, max_fanout = 5, when = gate.depth, answers = "deep",
               retries = 1, timeout = "5m", run = "echo trying >&2; exit 4")
`;

let dir = "";
let run = "";
// The run is a child process; what the tests read of it (explain, show) runs in this process.
const here = (...args: string[]) => spawnCliInProcess([...args, "--state-dir", join(dir, "state")]);

before(() => {
  dir = mkdtempSync(join(tmpdir(), "sy-explain-"));
  mkdirSync(join(dir, "pack"));
  writeFileSync(join(dir, "pack", "playbook.star"), PLAYBOOK);
  const r = spawnSync(process.execPath, [BIN, "run", join(dir, "pack"), "-q", "--state-dir", join(dir, "state")], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  run = /run (\S+): failed\n$/.exec(r.stdout)![1]!;
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The text with times, durations and the state folder's path written as placeholders. */
const stable = (s: string) =>
  s
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z( \(\d+(ms|\.\d+s)\))?/g, "TIME")
    .replaceAll(dir, "DIR")
    .replaceAll(run, "RUN");

test("R-32: a failed instance: its gate opened, two attempts, the first retried, and its ceilings", async () => {
  const r = await here("explain", run, "deep[a]");
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    stable(r.stdout),
    `Instance:      deep[a]
Run:           RUN (playbook, failed)
Task:          command, mapped over prep.ids (max_fanout 5), join all, declared at playbook.star:6
Status:        failed after 2 attempts
Error:         error[command-failed]: the command exited with status 4 (log: DIR/state/runs/RUN/work/deep/a.a2.log)

Dependencies (join all: runs when every one passed):
  gate[a]               passed  (aligned: this key's instance)

Gate:          gate.depth, opens on deep
  answered deep: confidence 1.00; read from an output
  so the gate opened

Attempts:
  1  TIME  failed, retried after 1000ms: error[command-failed]: the command exited with status 4 (log: DIR/state/runs/RUN/work/deep/a.a1.log)
  2  TIME  failed: error[command-failed]: the command exited with status 4 (log: DIR/state/runs/RUN/work/deep/a.a2.log)

Ceilings:
  per attempt: timeout 5m00s; retries 1 (2 attempts at most)
  run: max_duration 2h00m; budget none
`,
  );
});

test("R-32: a not-taken instance names the closed gate and its answer; show --why prints the same", async () => {
  const r = await here("explain", "latest", "deep[b]");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nStatus: {8}not_taken\nReason: {8}gate closed: gate\.depth answered quick \(label quick\)\n/);
  assert.match(
    r.stdout,
    /\nGate: {10}gate\.depth, opens on deep\n {2}answered quick: confidence 1\.00; read from an output\n {2}so the gate closed\n/,
  );
  assert.match(r.stdout, /\nAttempts: {6}none \(it never ran\)\n/);
  const why = await here("show", "latest", "--why", "deep[b]");
  assert.equal(why.status, 0, why.stderr);
  assert.equal(why.stdout, r.stdout);
});

test("R-32: explain of a task or key the run does not have is a usage error with the nearest name", async () => {
  const task = await here("explain", "latest", "dep[a]");
  assert.equal(task.status, 2);
  assert.match(task.stderr, /run \S+ has no task dep\nhelp: did you mean deep\?/);
  const key = await here("explain", "latest", "deep[c]");
  assert.equal(key.status, 2);
  assert.match(key.stderr, /deep has no instance deep\[c\]/);
});

/** A model's decision of deep at 0.70, as a route records it (fields other than these are not read here). */
const decision = JSON.parse(
  '{"label":"deep","probabilities":{"deep":0.7,"quick":0.3},"confidence":0.7,"refused":false,"judgement_type":"pb.gate.depth","mode":"model","provider":"s1","model":"jev-1","latency_ms":5,"usage":null}',
) as QuestionDecision;

test("R-32: a model's answer against its threshold: exactly at min_confidence passes, below it is uncertain with the top label", () => {
  assert.equal(answerWords(decision, 0.7), "confidence 0.70 ≥ min_confidence 0.70; model s1/jev-1");
  assert.equal(
    answerWords({ ...decision, label: "uncertain", confidence: 0.69, probabilities: { deep: 0.69, quick: 0.31 } }, 0.7),
    "confidence 0.69 < min_confidence 0.70; the most likely label was deep (0.69); model s1/jev-1",
  );
  assert.equal(
    answerWords({ ...decision, confidence: 0.91, raw_confidence: 0.99, calibration: "cal-3", audit: { host_label: "quick" } }, 0.8),
    "confidence 0.91 ≥ min_confidence 0.80; model s1/jev-1; raw confidence 0.99 calibrated by cal-3; audited: the host answered quick",
  );
  // A record that holds its threshold (D-33: the machine config's) is read against it, not the playbook's.
  assert.equal(
    answerWords({ ...decision, label: "uncertain", min_confidence: 0.82 }, 0.5),
    "confidence 0.70 < min_confidence 0.82 (the machine config's for pb.gate.depth; the playbook's is 0.50); the most likely label was deep (0.70); model s1/jev-1",
  );
  assert.equal(answerWords({ ...decision, min_confidence: 0.7 }, 0.7), "confidence 0.70 ≥ min_confidence 0.70; model s1/jev-1");
});

test("show --json --fields keeps only the named fields (and dotted paths into outputs) of each instance and unmapped task", async () => {
  const r = await here("show", "latest", "--json", "--fields", "status,attempts,output.depth.label");
  assert.equal(r.status, 0, r.stderr);
  const shown = JSON.parse(r.stdout);
  // An unmapped task has no attempts in show --json: only what it has is kept.
  assert.deepEqual(shown.tasks.prep, { kind: "command", mapped: false, status: "passed" });
  assert.deepEqual(shown.tasks.gate.instances, {
    a: { status: "passed", attempts: 1, output: { depth: { label: "deep" } } },
    b: { status: "passed", attempts: 1, output: { depth: { label: "quick" } } },
  });
  assert.deepEqual(shown.tasks.deep.instances, { a: { status: "failed", attempts: 2 }, b: { status: "not_taken", attempts: 0 } });
  assert.deepEqual(shown.tasks.deep.summary, { total: 2, passed: 0, failed: 1, not_taken: 1, blocked: 0 });
  const bad = await here("show", "latest", "--json", "--fields", "status,labl");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--fields: an instance has no field "labl"\nhelp: did you mean label\?/);
  const text = await here("show", "latest", "--fields", "status");
  assert.equal(text.status, 2);
  assert.match(text.stderr, /--fields selects fields of the JSON: add --json/);
});
