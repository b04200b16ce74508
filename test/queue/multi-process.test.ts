// A coordinator and three `switchyard worker` processes (each
// with its own state folder and workspaces) run the triage example to the same per-key records as
// a single-machine SQLite run.

import { test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import type { ShowJson } from "../../src/run/index.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";
import { cli, cliAsync, lastJson, records, startWorkerProc, tempDir, triagePack } from "./support.js";

test("a coordinator and three workers run the triage example to the same records as one machine", pgSkip, async () => {
  const db = await freshDatabase();
  const { pack, config } = triagePack();
  // The three workers start side by side while the reference runs; the distributed run starts
  // once they have registered, beside the reference.
  const starting = [1, 2, 3].map(() => startWorkerProc(db.url, ["--config", config, "--concurrency", "3"]));
  try {
    const localState = tempDir("sy-local-");
    const coordState = tempDir("sy-coord-");
    const localRunning = cliAsync(["run", pack, "--config", config, "--state-dir", localState, "--json"]);
    await Promise.all(starting);
    const dist = await cliAsync([
      "run",
      pack,
      "--config",
      config,
      "--store",
      db.url,
      "--executor",
      "workers",
      "--state-dir",
      coordState,
      "--json",
    ]);
    const local = await localRunning;
    assert.ok(local.status === 0 || local.status === 1, local.stderr);
    const localRun = lastJson<{ run: string; status: string }>(local.stdout);
    const want = records(JSON.parse(cli(["show", localRun.run, "--json", "--state-dir", localState]).stdout) as ShowJson);
    assert.ok(Object.keys(want).length > 100, "the example has a few hundred instances");
    {
      assert.ok(dist.status === 0 || dist.status === 1, dist.stderr);
      const distRun = lastJson<{ run: string; status: string }>(dist.stdout);
      assert.equal(distRun.status, localRun.status);
      const shown = JSON.parse(cli(["show", distRun.run, "--json", "--store", db.url, "--state-dir", coordState]).stdout) as ShowJson;
      assert.deepEqual(records(shown), want);
      // The attempts ran on the workers, spread over them, each reported once.
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        const r = await c.query<{ workers: number; reports: number; keys: number }>(
          "select count(distinct worker)::int as workers, count(*)::int as reports, count(distinct (task, key, attempt))::int as keys from switchyard.inbox where kind = 'finished'",
        );
        const got = r.rows[0]!;
        const started = await c.query<{ n: number }>(
          "select count(*)::int as n from switchyard.events where run = $1 and type = 'instance_started' and task = any($2)",
          [distRun.run, Object.keys(shown.tasks).filter((t) => ["command", "agent", "revise"].includes(shown.tasks[t]!.kind))],
        );
        assert.ok(got.reports >= 20, `only ${got.reports} attempts went through the queue`);
        assert.equal(got.reports, started.rows[0]!.n, "every recorded command and agent attempt ran on a worker");
        assert.equal(got.reports, got.keys, "each attempt reported once");
        assert.ok(got.workers >= 2, `the attempts ran on ${got.workers} worker(s)`);
      } finally {
        await c.end();
      }
    }
  } finally {
    const workers = (await Promise.allSettled(starting)).flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    for (const w of workers) w.proc.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
    await db.drop();
  }
});
