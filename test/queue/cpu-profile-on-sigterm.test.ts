// For tuning (docs/distributed.md, "Draining a worker"): a worker drained by SIGTERM and a
// coordinator cancelled by SIGTERM both end through a normal exit, so Node's --cpu-prof writes
// their profiles (a process that dies of a signal writes none).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { freshDatabase, pgSkip } from "../support/postgres.js";
import { BIN, tempDir, waitFor } from "./support.js";

/** `switchyard ARGS` under `node --cpu-prof`, profiles into `profDir`; resolves its exit code and signal. */
function profiled(
  profDir: string,
  args: string[],
): { proc: ChildProcess; stderr: () => string; exit: Promise<[number | null, string | null]> } {
  const proc = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profDir}`, BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return { proc, stderr: () => err, exit: new Promise((res) => proc.on("exit", (code, signal) => res([code, signal]))) };
}

/** The CPU profiles in `dir` that parse as V8 profiles of the main thread and its helpers. */
function profiles(dir: string): string[] {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  for (const f of files) assert.ok(Array.isArray((JSON.parse(readFileSync(join(dir, f), "utf8")) as { nodes?: unknown }).nodes), f);
  return files;
}

test("a worker drained by SIGTERM and a coordinator cancelled by SIGTERM write their --cpu-prof profiles", pgSkip, async () => {
  const db = await freshDatabase();
  const dir = tempDir("sy-prof-");
  const pack = join(dir, "pack");
  mkdirSync(pack);
  writeFileSync(join(pack, "main.star"), `playbook(description = "profiled")\nslow = command(name = "slow", run = "sleep 60")\n`);
  const c = new pg.Client({ connectionString: db.url });
  const worker = profiled(join(dir, "wprof"), ["worker", "--store", db.url, "--state-dir", join(dir, "w"), "--grace", "1"]);
  try {
    await waitFor("the worker to start", async () => (worker.stderr().includes(" runs up to ") ? true : undefined));
    const coordinator = profiled(join(dir, "cprof"), [
      "run",
      pack,
      "--store",
      db.url,
      "--executor",
      "workers",
      "--state-dir",
      join(dir, "c"),
      "-q",
    ]);
    await c.connect();
    await waitFor("the attempt to start on the worker", async () => {
      const r = await c.query("select 1 from switchyard.inbox where kind = 'started'").catch(() => undefined);
      return r?.rowCount ? true : undefined;
    });
    coordinator.proc.kill("SIGTERM");
    const [code, signal] = await coordinator.exit;
    assert.equal(signal, null, "the coordinator exits on its own after the cancel");
    assert.equal(code, 1, `a cancelled run's status: ${coordinator.stderr()}`);
    assert.ok(profiles(join(dir, "cprof")).length >= 1, "the coordinator's profile");
    worker.proc.kill("SIGTERM");
    assert.deepEqual(await worker.exit, [0, null], worker.stderr());
    assert.equal(profiles(join(dir, "wprof")).length, 1, "the worker's profile");
  } finally {
    if (worker.proc.exitCode === null && worker.proc.signalCode === null) worker.proc.kill("SIGKILL");
    await c.end().catch(() => undefined);
    await db.drop();
  }
});
