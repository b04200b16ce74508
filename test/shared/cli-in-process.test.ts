// test/support/cli-in-process.ts runs the CLI's entry function in the test's own process. A
// command it runs sees the folder and the environment it is given, as a child process started
// with that `cwd` and `env` would; this process's own are as they were after the call, whether the
// command succeeded or failed; what it writes as bytes is kept like text; and calls do not overlap
// (they share this process's output).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const PLAYBOOK = `playbook(description = "tiny")\nhello = command(name = "hello", run = "true")\n`;

test("cli-in-process: a command runs in the given folder with the given environment; both are this process's again after it", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "sy-inproc-")));
  const cwd = process.cwd();
  const env = { ...process.env };
  try {
    mkdirSync(join(dir, "pack"));
    writeFileSync(join(dir, "pack", "main.star"), PLAYBOOK);
    // A relative path is read from the given folder (this process's folder has no pack/).
    const checked = await runCliInProcess(["check", "pack"], { cwd: dir });
    assert.deepEqual([checked.code, checked.stderr], [0, ""]);
    assert.match(checked.stdout, /^pack: ok: playbook 'main'/);
    assert.equal(process.cwd(), cwd);

    // The state search starts from the given folder and reads the given environment: no
    // `.switchyard/` in it (the ceiling stops the search there), no $SWITCHYARD_HOME.
    const searched = {
      ...process.env,
      SWITCHYARD_CEILING_DIRECTORIES: dir,
      XDG_STATE_HOME: join(dir, "xdg-state"),
      SWITCHYARD_HOME: undefined,
      SWITCHYARD_INPROC_TEST: "set for the call",
    };
    const none = await runCliInProcess(["status"], { cwd: join(dir, "pack"), env: searched });
    assert.equal(none.code, 2);
    assert.ok(
      none.stderr.includes(
        `no runs in ${join(dir, "xdg-state", "switchyard")} (no .switchyard/ in ${join(dir, "pack")} or its parents, and $SWITCHYARD_HOME is not set)`,
      ),
      none.stderr,
    );
    assert.equal(process.cwd(), cwd, "the folder is put back after a failed command too");
    assert.deepEqual({ ...process.env }, env, "and the environment");

    // $SWITCHYARD_HOME from the given environment.
    const home = await runCliInProcess(["status"], { cwd: dir, env: { ...process.env, SWITCHYARD_HOME: join(dir, "home") } });
    assert.equal(home.code, 2);
    assert.ok(home.stderr.includes(`$SWITCHYARD_HOME (${join(dir, "home")})`), home.stderr);
    assert.deepEqual({ ...process.env }, env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cli-in-process: what a command writes as bytes (a log file, as `logs` prints it) is kept and read as UTF-8", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-inproc-"));
  try {
    // The run in a child process; its log, which holds an é as two bytes, printed here.
    // The shell's printf writes the bytes 0xc3 0xa9 (\\ in TypeScript and in Starlark: one \ for printf).
    writeFileSync(join(dir, "log.star"), `hello = command(name = "hello", run = "printf 'caf\\\\303\\\\251 ok\\\\n'")\n`);
    const state = join(dir, "state");
    const run = spawnSync(process.execPath, [BIN, "run", join(dir, "log.star"), "-q", "--state-dir", state], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const r = await runCliInProcess(["logs", "latest", "hello", "--state-dir", state]);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, "café ok\n", ""]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cli-in-process: a folder that does not exist is refused before the command runs, and nothing changes", async () => {
  const cwd = process.cwd();
  await assert.rejects(runCliInProcess(["--version"], { cwd: join(tmpdir(), "sy-inproc-no-such-folder") }), { code: "ENOENT" });
  assert.equal(process.cwd(), cwd);
  // The next call runs (the failed one did not stay "busy").
  const r = await runCliInProcess(["--version"]);
  assert.equal(r.code, 0);
});

test("cli-in-process: one call at a time", async () => {
  const first = runCliInProcess(["--version"]);
  await assert.rejects(runCliInProcess(["--version"]), /one call at a time/);
  assert.equal((await first).code, 0);
});
