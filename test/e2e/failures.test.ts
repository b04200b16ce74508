// a failed run explains itself. The end-of-run summary (under -q and --json too) names, per
// failed task, the code, the first failing keys (up to 3), the last lines of the first one's log
// and the exact commands to run next; a task that failed before it had any instance (over its
// max_fanout) says why instead of "failed total 0". `logs RUN --failed` prints every failed
// instance's log under a header. Known answers: the pack below fails keys b, c, d and e of six
// (exit 3, three stderr lines naming the key) and maps `small` over six with max_fanout = 2.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const PLAYBOOK = `
prep = command(name = "prep", run = "echo '{\\"ids\\": [\\"a\\",\\"b\\",\\"c\\",\\"d\\",\\"e\\",\\"f t\\"]}' > $SWITCHYARD_OUTPUT",
               emits = {"ids": "list"})
work = command(name = "work", depends_on = [prep], over = prep.ids, max_fanout = 10,
  run = "k=$(sed 's/.*\\"key\\":\\"\\\\([^\\"]*\\\\)\\".*/\\\\1/' $SWITCHYARD_INPUT); echo out $k; case $k in a|'f t') echo '{}' > $SWITCHYARD_OUTPUT;; *) echo first $k >&2; echo second $k >&2; echo third $k >&2; echo fourth $k >&2; exit 3;; esac")
small = command(name = "small", depends_on = [prep], over = prep.ids, max_fanout = 2, run = "echo '{}' > $SWITCHYARD_OUTPUT")
`;

let dir = "";
let state = "";
const sy = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args, "--state-dir", state], { encoding: "utf8", timeout: 60_000 });
/** The same in this process: the runs are child processes, their logs are read here. */
const here = (...args: string[]) => spawnCliInProcess([...args, "--state-dir", state]);

before(() => {
  dir = mkdtempSync(join(tmpdir(), "sy-failures-"));
  mkdirSync(join(dir, "pack"));
  writeFileSync(join(dir, "pack", "playbook.star"), PLAYBOOK);
  state = join(dir, "state");
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("R-31: the -q summary names each failed task's code, first keys, log end and next commands", async () => {
  const r = sy("run", join(dir, "pack"), "-q");
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const run = /run (\S+): failed\n$/.exec(r.stdout)![1]!;
  const lines = r.stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith("FAILED work"));
  assert.deepEqual(lines.slice(at, at + 12), [
    "FAILED work: 4 of 6 failed (b, c, d, …): command-failed ×4",
    "  work[b]: error[command-failed]: the command exited with status 3",
    "  the end of its log:",
    "    | second b",
    "    | third b",
    "    | fourth b",
    `  next: switchyard logs ${run} 'work[b]'`,
    `  next: switchyard show ${run} --task work --status failed`,
    "FAILED small: error[over-max-fanout]: prep.ids has 6 elements, more than max_fanout = 2; raise max_fanout (at most 10000) or shorten the list",
    `  next: switchyard show ${run} --task small`,
    `run ${run}: failed`,
    "",
  ]);
  // The line it says to run prints that log.
  const logs = await here("logs", run, "work[b]");
  assert.equal(logs.status, 0, logs.stderr);
  assert.equal(logs.stdout, "out b\nfirst b\nsecond b\nthird b\nfourth b\n");
});

test("R-31: the --json summary lists the failures with the same facts", () => {
  const r = sy("run", join(dir, "pack"), "--json");
  assert.equal(r.status, 1, r.stderr);
  const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert.equal(summary.type, "summary");
  const run = summary.run as string;
  assert.deepEqual(summary.failures, [
    {
      task: "work",
      code: "command-failed",
      codes: { "command-failed": 4 },
      failed: 4,
      total: 6,
      keys: ["b", "c", "d"],
      message: "the command exited with status 3",
      log_tail: ["second b", "third b", "fourth b"],
      next: [`switchyard logs ${run} 'work[b]'`, `switchyard show ${run} --task work --status failed`],
    },
    {
      task: "small",
      code: "over-max-fanout",
      codes: { "over-max-fanout": 1 },
      failed: 0,
      total: 0,
      keys: [],
      message: "prep.ids has 6 elements, more than max_fanout = 2 (M-1); raise max_fanout (at most 10000) or shorten the list",
      log_tail: [],
      next: [`switchyard show ${run} --task small`],
    },
  ]);
});

test("logs RUN --failed prints every failed instance's log under a header, and only one task's with TASK", async () => {
  const all = await here("logs", "latest", "--failed");
  assert.equal(all.status, 0, all.stderr);
  const headers = all.stdout.split("\n").filter((l) => l.startsWith("==> "));
  assert.deepEqual(
    headers.map((h) => /^==> (\S+) attempt 1: command-failed: the command exited with status 3 \(log: .*\) <==$/.exec(h)?.[1]),
    ["work[b]", "work[c]", "work[d]", "work[e]"],
  );
  assert.match(all.stdout, /==> work\[e\] [^\n]*\nout e\nfirst e\nsecond e\nthird e\nfourth e\n$/);
  const none = await here("logs", "latest", "prep", "--failed");
  assert.equal(none.status, 0);
  assert.equal(none.stdout, "");
  assert.match(none.stderr, /has no failed instance of prep/);
  const bad = await here("logs", "latest", "--failed", "--attempt", "1");
  assert.equal(bad.status, 2);
  const missing = await here("logs", "latest");
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /say which instance: TASK, or TASK\[KEY\] for one element\nhelp: or --failed/);
});
