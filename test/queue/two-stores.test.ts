// Several stores in one database (`?schema=`) are fully independent in workers mode: each has its
// own queue (names.ts) and workers that start while the other store's run (graphile-worker would
// stop them if a store's queue were a schema of its own), so a worker runs only its own store's jobs, and its sweeper never takes
// the other store's live workers for dead (a job held longer than the grace for unregistered pools
// is not released and run a second time). The grace (30 s) and the sweeper's interval (2 s) are
// shortened through their settings for tests, so the wait past the grace is seconds, not 36.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { TempDir } from "../run/helpers.js";
import { startCli } from "../e2e/support/harness.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";
import { queueNames, sweepIntervalMs, unregisteredLockGraceSeconds } from "../../src/run/queue/names.js";
import { until } from "../support/assertions.js";
import { startWorkerProc, type WorkerProc } from "./support.js";

const KEYS = Array.from({ length: 8 }, (_, i) => `k${i}`);

// Every command logs which store's run it belongs to; k0 holds its job until the test lets it go.
const playbook = (store: string, release: string) => `playbook(description = "two stores", concurrency = 4)
items = command(name = "items", run = """echo '${JSON.stringify({ keys: KEYS })}' > "$SWITCHYARD_OUTPUT" """, emits = {"keys": "list"})
work = command(name = "work", depends_on = [items], over = items.keys, max_fanout = 100, run = """
echo "${store} $SWITCHYARD_KEY $(basename $PWD)" >> "$COMMAND_LOG"
if [ "$SWITCHYARD_KEY" = k0 ]; then while [ ! -e ${release} ]; do sleep 0.2; done; fi
printf '{"k": "%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT" """, emits = {"k": "string"})
`;

// Every worker and coordinator of the test sweeps every 300 ms and takes an unregistered pool's
// job back after 3 s.
const QUEUE_ENV = { SWITCHYARD_QUEUE_SWEEP_MS: "300", SWITCHYARD_QUEUE_ORPHAN_GRACE_S: "3" };
const GRACE_MS = unregisteredLockGraceSeconds(QUEUE_ENV) * 1000;
const SWEEP_MS = sweepIntervalMs(QUEUE_ENV);

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

test(
  "two stores in one database, each with a worker, run at once: each worker runs only its own store's jobs; nothing is released or run again",
  {
    ...pgSkip,
    timeout: 180000,
  },
  async () => {
    const db = await freshDatabase();
    const dir = new TempDir("sy-two-stores-");
    const workers: WorkerProc[] = [];
    const errs: string[] = [];
    try {
      const release = join(dir.path, "release");
      const stores = ["sa", "sb"].map((name) => {
        const u = new URL(db.url);
        u.searchParams.set("schema", name);
        return { name, url: u.toString(), log: join(dir.path, `${name}.log`) };
      });
      for (const s of stores) {
        const w = await startWorkerProc(s.url, ["--concurrency", "4"], { ...process.env, ...QUEUE_ENV, COMMAND_LOG: s.log });
        const i = errs.push("") - 1;
        w.proc.stderr!.on("data", (b: Buffer) => (errs[i] += b.toString()));
        workers.push(w);
        dir.file(`${s.name}/main.star`, playbook(s.name, release));
      }
      const env = { ...process.env, ...QUEUE_ENV, XDG_CONFIG_HOME: join(dir.path, "xdg") };
      const coords = stores.map((s) =>
        startCli(["run", s.name, "--store", s.url, "--executor", "workers", "--state-dir", join(dir.path, `coord-${s.name}`), "--quiet"], {
          cwd: dir.path,
          env,
        }),
      );
      // Both k0 jobs are held by their workers; they stay held past the grace after which a pool no
      // live worker of the store has registered is taken for dead, and a few sweeps more.
      const t0 = Date.now();
      while (!stores.every((s) => lines(s.log).some((l) => / k0 /.test(l)))) {
        assert.ok(
          Date.now() - t0 < 120000,
          `k0 never started in both stores: ${stores.map((s) => lines(s.log).join("; "))} ${errs.join("\n")}`,
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, GRACE_MS + 3 * SWEEP_MS));
      writeFileSync(release, "");
      const results = await Promise.all(coords.map((c) => c.done));
      for (const r of results) assert.equal(r.code, 0, r.err + r.out);
      for (const s of stores) {
        const got = lines(s.log);
        assert.deepEqual(
          got.map((l) => l.split(" ")[0]),
          KEYS.map(() => s.name),
          `the worker of ${s.name} ran only ${s.name}'s commands:\n${got.join("\n")}`,
        );
        assert.deepEqual(
          got.map((l) => l.split(" ")[1]).sort(),
          KEYS,
          `each key of ${s.name} ran once, in its first attempt:\n${got.join("\n")}`,
        );
        assert.ok(
          got.every((l) => l.endsWith(".a1")),
          got.join("\n"),
        );
      }
      for (const e of errs) assert.doesNotMatch(e, /released the jobs|queue (error|warning)/);

      // The shortened grace is in force, so the wait above went past it: a job of store sa held by
      // a pool no worker ever registered (a worker that died before registering) is given back by
      // sa's sweeper after the grace, well before the 30 s a default grace would take.
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        await c.query(`select graphile_worker.add_job($1, '{}'::json, run_at => now() + interval '1 hour', job_key => $2)`, [
          queueNames("sa").task,
          "sa:ghost",
        ]);
        await c.query(`update graphile_worker._private_jobs set locked_by = 'ghost-pool', locked_at = now() where key = 'sa:ghost'`);
      } finally {
        await c.end();
      }
      await until(
        "sa's sweeper gives the ghost pool's job back",
        () => /released the jobs of dead worker pools ghost-pool/.test(errs[0]!),
        20000,
      );
      assert.doesNotMatch(errs[1]!, /released the jobs/, "sb's sweeper never looks at sa's jobs");
    } finally {
      writeFileSync(join(dir.path, "release"), "");
      for (const w of workers) w.proc.kill("SIGTERM");
      await Promise.all(workers.map((w) => w.exited));
      dir.cleanup();
      await db.drop();
    }
  },
);
