// Q-11/D-33: the threshold an answer was tested against is in its decision record. Known answers:
// the playbook asks `fix` with min_confidence 0.5, the machine config sets 0.82 for its type, and
// the model (a script) answers yes at 0.7 for key a: 0.7 < 0.82, so the label is uncertain — it
// would be yes at the playbook's 0.5. `show --json` has 0.82 in the record, and `explain` says so.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const PLAYBOOK = `
prep = command(name = "prep", run = "echo '{\\"ids\\": [\\"a\\"]}' > $SWITCHYARD_OUTPUT", emits = {"ids": "list"})
gate = route(name = "gate", depends_on = [prep], over = prep.ids, max_fanout = 5, min_confidence = 0.5,
    questions = {"fix": choice(ask = "Fix it?", options = {"yes": "fix it", "no": "leave it"}, drop = ["no", "uncertain"])})
act = command(name = "act", depends_on = [gate], over = prep.ids, max_fanout = 5, when = gate.fix, answers = "yes", run = "true")
`;
const DECIDER = `import { readFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
const answers = {};
for (const id of Object.keys(req.questions)) answers[id] = { type: "choice", probabilities: { yes: 0.7, no: 0.3 } };
process.stdout.write(JSON.stringify({ model: "m", answers, usage: null }));
`;
const CONFIG = `[providers.dec]
kind = "command"
vendor = "v"
command = ["node", "./decider.mjs"]
models = ["m"]
[decisions]
default = "host"
[decisions.types]
"playbook.gate.fix" = { mode = "dec/m", min_confidence = 0.82 }
`;

let dir = "";
let run = "";
const sy = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args, "--state-dir", join(dir, "state")], { encoding: "utf8", timeout: 60_000, cwd: dir });
/** The same in this process: the run is a child process, what it recorded is read here. */
const here = (...args: string[]) => spawnCliInProcess([...args, "--state-dir", join(dir, "state")], { cwd: dir });

before(() => {
  dir = mkdtempSync(join(tmpdir(), "sy-threshold-"));
  mkdirSync(join(dir, "pack"));
  writeFileSync(join(dir, "pack", "playbook.star"), PLAYBOOK);
  writeFileSync(join(dir, "decider.mjs"), DECIDER);
  writeFileSync(join(dir, "config.toml"), CONFIG);
  const r = sy("run", join(dir, "pack"), "--config", join(dir, "config.toml"), "-q");
  assert.equal(r.status, 0, r.stdout + r.stderr);
  run = /run (\S+): passed\n$/.exec(r.stdout)![1]!;
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("D-33/Q-11: the machine config's min_confidence (0.82, over the playbook's 0.5) is recorded with the answer it made uncertain", async () => {
  const r = await here("show", run, "--json", "--fields", "status,output");
  assert.equal(r.status, 0, r.stderr);
  const fix = JSON.parse(r.stdout).tasks.gate.instances.a.output.fix;
  assert.equal(fix.label, "uncertain");
  assert.equal(fix.confidence, 0.7);
  assert.equal(fix.min_confidence, 0.82);
  assert.equal(fix.mode, "model");
});

test("D-33/Q-11: explain says the recorded threshold, 0.82, is the one the answer fell below, and names the playbook's", async () => {
  const words = "confidence 0.70 < min_confidence 0.82 (the machine config's for playbook.gate.fix; the playbook's is 0.50)";
  const gate = await here("explain", run, "gate[a]");
  assert.equal(gate.status, 0, gate.stderr);
  assert.ok(gate.stdout.includes(`  fix = uncertain: ${words}; the most likely label was yes (0.70); model dec/m`), gate.stdout);
  const act = await here("show", run, "--why", "act[a]");
  assert.equal(act.status, 0, act.stderr);
  assert.ok(act.stdout.includes(`  answered uncertain: ${words};`), act.stdout);
});
