// `switchyard worker`'s job handler: a job runs with today's command code in
// the worker's own state folder and its outcome lands in the inbox; a redelivered job whose
// instance already passed is skipped; a second passed row for one key is impossible.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startWorker } from "../../src/run/queue/worker.js";
import { JOB_MAX_ATTEMPTS, QUEUE_SCHEMA, jobKey, queueNames } from "../../src/run/queue/names.js";
import type { JobPayload } from "../../src/run/queue/job-payload.js";
import { command } from "../run/helpers.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";

const NAMES = queueNames("switchyard");

async function waitFor<T>(what: string, f: () => Promise<T | undefined>, ms = 20000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a worker runs a queued command attempt from the run's snapshot and reports it in the inbox", pgSkip, async () => {
  const db = await freshDatabase();
  const pack = mkdtempSync(join(tmpdir(), "sy-pack-"));
  writeFileSync(join(pack, "hello.txt"), "from the pack\n");
  const state = mkdtempSync(join(tmpdir(), "sy-worker-"));
  const w = await startWorker({
    connectionString: db.url,
    schema: "switchyard",
    stateDir: state,
    concurrency: 2,
    tags: ["t"],
    packs: async (_run, dest) => cpSync(pack, dest, { recursive: true }),
  });
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const task = command("greet", 'printf \'{"said":"%s"}\' "$(cat "$SWITCHYARD_PACK/hello.txt")" > "$SWITCHYARD_OUTPUT"', {
      emits: { said: "string" },
    });
    await c.query("insert into switchyard.queue_runs (run, plan) values ($1, $2)", ["R1", JSON.stringify({ tasks: [task] })]);
    const payload: JobPayload = {
      run: "R1",
      task: "greet",
      key: "k1",
      attempt: 1,
      plan: task,
      input: { key: "k1", inputs: {} },
      rounds: [],
    };
    const add = (p: JobPayload) =>
      c.query(`select ${QUEUE_SCHEMA}.add_job($1, $2::json, job_key => $3, max_attempts => $4)`, [
        NAMES.task,
        JSON.stringify(p),
        jobKey(NAMES, p.run, p.task, p.key, p.attempt),
        JOB_MAX_ATTEMPTS,
      ]);
    await add(payload);
    const row = await waitFor("the finished report", async () => {
      const r = await c.query("select status, payload, worker from switchyard.inbox where kind = 'finished'");
      return r.rows[0] as { status: string; payload: { outcome: { output: unknown } }; worker: string } | undefined;
    });
    assert.equal(row.status, "passed");
    assert.deepEqual(row.payload.outcome.output, { said: "from the pack" });
    assert.equal(row.worker, w.id);
    const started = await c.query("select count(*)::int as n from switchyard.inbox where kind = 'started'");
    assert.equal(started.rows[0].n, 1);
    // A second job for the same key (a redelivery, a duplicate) is skipped: the key has passed.
    await add({ ...payload, attempt: 2 });
    await waitFor("the duplicate job to be consumed", async () => {
      const r = await c.query(`select count(*)::int as n from ${QUEUE_SCHEMA}.jobs`);
      return r.rows[0].n === 0 ? true : undefined;
    });
    const rows = await c.query("select kind, attempt from switchyard.inbox order by id");
    assert.deepEqual(rows.rows, [
      { kind: "started", attempt: 1 },
      { kind: "finished", attempt: 1 },
    ]);
    // The partial unique index: one passed per (run, task, key), whatever the attempt.
    await assert.rejects(
      c.query(
        "insert into switchyard.inbox (run, task, key, attempt, kind, status, payload, worker) values ('R1', 'greet', 'k1', 9, 'finished', 'passed', '{}', 'x')",
      ),
      /inbox_one_passed/,
    );
    const listed = await c.query("select id, concurrency, tags from switchyard.workers");
    assert.deepEqual(listed.rows, [{ id: w.id, concurrency: 2, tags: ["t"] }]);
  } finally {
    await c.end();
    await w.drain();
    await db.drop();
  }
});
