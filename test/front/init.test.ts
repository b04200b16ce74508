// `switchyard init` gives a pack that checks and runs as it is, and never overwrites a folder;
// the example's lib helper test runs with `switchyard eval` (L-16).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const CLI = join(process.cwd(), "bin", "switchyard.js");

function envIn(cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(cwd, "xdg") };
  delete env.SWITCHYARD_HOME;
  return env;
}

/** `switchyard ARGS` in `cwd` in a child process: for the run of the new pack. */
function sy(cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, env: envIn(cwd), encoding: "utf8" });
}

/** The same in this process: for the commands that write or read files and print (init, check, show, eval, compile). */
function here(cwd: string, ...args: string[]) {
  return spawnCliInProcess(args, { cwd, env: envIn(cwd) });
}

test("init: a new pack checks (exit 0) and runs to passed with its gated rows not_taken (G-3)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-init-"));
  try {
    const init = await here(dir, "init", "mypack");
    assert.equal(init.status, 0, init.stderr);
    assert.match(init.stdout, /created \d+ files in mypack/);
    const check = await here(dir, "check", "mypack");
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /ok: playbook 'main'/);
    const run = sy(dir, "run", "mypack");
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /run \S+: passed/);
    const show = JSON.parse((await here(dir, "show", "latest", "--json")).stdout) as {
      tasks: Record<string, { instances?: Record<string, { status: string; label?: string }> }>;
    };
    const small = show.tasks.small!.instances!;
    const large = show.tasks.large!.instances!;
    assert.deepEqual(Object.fromEntries(Object.entries(small).map(([k, i]) => [k, i.status])), {
      alpha: "passed",
      beta: "not_taken",
      gamma: "not_taken",
      delta: "passed",
    });
    assert.deepEqual(Object.fromEntries(Object.entries(large).map(([k, i]) => [k, i.status])), {
      alpha: "not_taken",
      beta: "passed",
      gamma: "not_taken",
      delta: "not_taken",
    });
    assert.equal(large.gamma!.label, "skip", "gamma's answer was dropped");
    const helper = await here(join(dir, "mypack"), "eval", "lib/helpers_test.star");
    assert.equal(helper.status, 0, helper.stderr);
    // The judgement type is namespaced by the pack's name, and the comment names the real one.
    const plan = (await here(dir, "compile", "mypack")).stdout;
    assert.match(plan, /^type = "mypack\.triage\.size"$/m);
    assert.match(
      readFileSync(join(dir, "mypack", "main.star"), "utf8"),
      /# route the judgement type "mypack\.triage\.size" in your machine config/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init: a folder that is not empty is refused with exit 2 and nothing is written", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-init-"));
  try {
    mkdirSync(join(dir, "taken"));
    writeFileSync(join(dir, "taken", "notes.txt"), "mine");
    const r = await here(dir, "init", "taken");
    assert.equal(r.status, 2);
    assert.match(r.stderr, /taken is not empty/);
    assert.match(r.stderr, /--force/);
    assert.equal((await here(dir, "check", "taken")).status, 2, "no playbook was written (no-playbook: exit 2)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("L-16: `switchyard eval examples/cve-triage/lib/tickets_test.star` prints ok", async () => {
  const r = await spawnCliInProcess(["eval", "examples/cve-triage/lib/tickets_test.star"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ok: 2 tickets, 1 settled without a turn/m);
});
