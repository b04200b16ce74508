// `switchyard workers`, and the usage errors of `--executor workers`: lists the live workers of a store (host,
// pid, slots, tags, heartbeat, running jobs), in a table and as JSON, and leaves a killed one out;
// `--executor workers` without a PostgreSQL store, and `worker`/`workers` without one, are usage
// errors that say what to do, before anything is admitted.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";
import { cli, startWorkerProc, waitFor, type WorkerProc } from "./support.js";

test(
  "workers mode: `switchyard workers` lists live workers with their slots, tags and heartbeat; a killed one is left out",
  pgSkip,
  async () => {
    const db = await freshDatabase();
    const workers: WorkerProc[] = [];
    try {
      workers.push(await startWorkerProc(db.url, ["--concurrency", "3", "--tags", "gpu, eu-west"]));
      workers.push(await startWorkerProc(db.url, ["--concurrency", "2"]));
      const listed = cli(["workers", "--store", db.url, "--json"]);
      assert.equal(listed.status, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout) as {
        id: string;
        pid: number;
        concurrency: number;
        tags: string[];
        jobs: unknown[];
        heartbeat: string;
      }[];
      assert.deepEqual(
        rows.map((r) => [r.pid, r.concurrency, r.tags, r.jobs]).sort(),
        [
          [workers[0]!.proc.pid, 3, ["gpu", "eu-west"], []],
          [workers[1]!.proc.pid, 2, [], []],
        ].sort(),
      );
      assert.ok(rows.every((r) => Date.now() - Date.parse(r.heartbeat) < 60000));
      const table = cli(["workers", "--store", db.url]);
      assert.match(table.stdout, /^worker\s+host\s+pid\s+slots\s+tags\s+heartbeat\s+jobs\n/);
      assert.match(table.stdout, /0\/3\s+gpu,eu-west\s+\d+s ago\s+-/);

      workers[0]!.proc.kill("SIGKILL");
      await workers[0]!.exited;
      await waitFor("the killed worker to be left out", async () => {
        const r = JSON.parse(cli(["workers", "--store", db.url, "--json"]).stdout) as unknown[];
        return r.length === 1 ? true : undefined;
      });
    } finally {
      for (const w of workers) w.proc.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await db.drop();
    }
  },
);

test("--executor workers needs a PostgreSQL store; worker and workers need one too (usage errors, nothing admitted)", () => {
  const dir = new TempDir("sy-exec-");
  try {
    dir.file("pack/main.star", 'playbook(description = "x")\nhi = command(name = "hi", run = "true")\n');
    const env = { ...process.env, SWITCHYARD_STORE: "", XDG_CONFIG_HOME: join(dir.path, "xdg") };
    const state = join(dir.path, "state");
    const run = cli(["run", join(dir.path, "pack"), "--executor", "workers", "--state-dir", state], env);
    assert.equal(run.status, 2, run.stderr);
    assert.match(
      run.stderr,
      /switchyard: error: --executor workers needs a PostgreSQL store that the workers share\nhelp: add --store postgres:\/\//,
    );
    assert.ok(
      !existsSync(join(state, "runs")) || cli(["runs", "--state-dir", state], env).stdout.includes("no runs"),
      "nothing was admitted",
    );
    const bad = cli(["run", join(dir.path, "pack"), "--executor", "cloud", "--state-dir", state], env);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /switchyard: error: --executor is local or workers, got "cloud"/);
    for (const cmd of ["worker", "workers"]) {
      const r = cli([cmd], env);
      assert.equal(r.status, 2, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`switchyard: error: \`switchyard ${cmd}\` works on a PostgreSQL store shared with the coordinators`),
      );
    }
  } finally {
    dir.cleanup();
  }
});
