// D-67: time in which a run only waits for review answers does not count toward max_duration. A
// run with a 5-second ceiling sends both its elements to review and stays up; the test waits until
// more than the ceiling has passed on the clock since the run was admitted (a condition on the clock,
// not a pause standing in for an event), answers, and the run goes on and passes: its gated work
// runs. The same after Ctrl-C during the wait and `resume`: the stretch the log shows the run only
// waiting is not counted either. And the ceiling still holds for work: the ceiling's own test in
// ceilings.test.ts stops runs whose work outlasts it. The waiting clock's known answers are in
// ceilings-limits.test.ts, among the tests that mutation testing runs against ceilings.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "./helpers.js";
import { until } from "../support/assertions.js";
import { reviewPlaybook } from "../support/review-pack.js";
import { testStoreSpec } from "../support/test-store.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const CEILING_S = 5;

/** A fresh run folder, its CLI, and a run started in it that stays up once both elements wait. */
async function stayingUp(prefix: string) {
  const dir = new TempDir(prefix);
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
  const store = testStoreSpec();
  if (store) env.SWITCHYARD_STORE = store;
  else delete env.SWITCHYARD_STORE;
  const fixLog = join(dir.path, "fixed.log");
  dir.file("pack/main.star", reviewPlaybook(fixLog, "go"));
  dir.file("pack/members.json", JSON.stringify({ members: ["e1", "e2"] }));
  dir.file("xdg/switchyard/config.toml", `[decisions.types]\n"triage" = { mode = "review" }\n`);
  // resume executes the run: a child process; status and the answers run in this process.
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir.path, env, encoding: "utf8", timeout: 60000 });
  const here = (...args: string[]) => spawnCliInProcess(args, { cwd: dir.path, env });
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [BIN, "run", "pack", "--quiet", "--max-duration", `${CEILING_S}s`],
    {
      cwd: dir.path,
      env,
    },
  );
  let err = "";
  child.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const exit = new Promise<number | null>((res) => child.on("exit", (code) => res(code)));
  await until("the run stays up", () => /only 2 element\(s\) waiting for review/.test(err) || child.exitCode !== null, 60000);
  assert.equal(child.exitCode, null, err);
  // Past the ceiling on the clock, counted from the run's admission (its clock starts a moment later).
  const started = Date.parse((JSON.parse((await here("status", "--json")).stdout) as { started_at: string }).started_at);
  await until(`more than ${CEILING_S}s since the run started`, () => Date.now() - started > (CEILING_S + 1) * 1000, 30000);
  const fixed = () => (existsSync(fixLog) ? readFileSync(fixLog, "utf8").split("\n").filter(Boolean).sort() : []);
  const answerBoth = async () => {
    for (const k of ["e1", "e2"]) {
      const r = await here("review", "latest", "--key", k, "--answer", "go=yes", "--as", "night-shift");
      assert.equal(r.status, 0, r.stderr);
    }
  };
  return { dir, cli, here, child, exit, err: () => err, fixed, answerBoth };
}

test("D-67: a run that stays up waiting for review past its max_duration goes on once answered", { timeout: 120000 }, async () => {
  const r = await stayingUp("sy-review-ceiling-");
  try {
    assert.equal(r.child.exitCode, null, "the ceiling did not end a run that only waits");
    await r.answerBoth();
    assert.equal(await r.exit, 0, r.err());
    assert.deepEqual(r.fixed(), ["e1", "e2"]);
    const st = JSON.parse((await r.here("status", "--json")).stdout) as { status: string };
    assert.equal(st.status, "passed");
  } finally {
    if (r.child.exitCode === null) r.child.kill("SIGKILL");
    r.dir.cleanup();
  }
});

test("D-67: resume does not count the stretch a cancelled run only waited for review", { timeout: 120000 }, async () => {
  const r = await stayingUp("sy-review-ceiling-resume-");
  try {
    r.child.kill("SIGINT");
    await r.exit;
    assert.equal((JSON.parse((await r.here("status", "--json")).stdout) as { status: string }).status, "cancelled");
    await r.answerBoth();
    const resumed = r.cli("resume", "latest", "--quiet");
    assert.equal(resumed.status, 0, resumed.stderr + resumed.stdout);
    assert.deepEqual(r.fixed(), ["e1", "e2"]);
    assert.equal((JSON.parse((await r.here("status", "--json")).stdout) as { status: string }).status, "passed");
  } finally {
    if (r.child.exitCode === null) r.child.kill("SIGKILL");
    r.dir.cleanup();
  }
});
