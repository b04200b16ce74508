// Performance with the queue's guarantees kept: a worker's claims and reports made at once go to
// the store as one statement together (inbox-writer.ts), and a finished report deletes its
// graphile-worker job in its own transaction, so a job whose outcome is recorded is never handed
// out again (docs/distributed.md, "What is guaranteed").

import { test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { report, type FinishedReport, type InboxAddress } from "../../src/run/queue/inbox.js";
import { InboxWriter } from "../../src/run/queue/inbox-writer.js";
import { ensureQueueSchema } from "../../src/run/queue/schema.js";
import { freshDatabase, pgSkip, type TestDatabase } from "../support/postgres.js";

const SCHEMA = "switchyard";
const RUN = "r-grouped";

const at = (key: string, attempt = 1): InboxAddress => ({ run: RUN, task: "work", key, attempt });
const passed = (text: string): FinishedReport => ({ outcome: { status: "passed", output: { text } } });

/** A fresh database with the queue's tables, and a pool that counts its statements (one checkout each). */
async function setup(): Promise<{ db: TestDatabase; pool: pg.Pool; statements: () => number }> {
  const db = await freshDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  let checkouts = 0;
  pool.on("acquire", () => void checkouts++);
  const c = await pool.connect();
  await ensureQueueSchema(c, db.url, SCHEMA).finally(() => c.release());
  return { db, pool, statements: () => checkouts };
}

/** Adds a graphile-worker job with key `key` and returns its id. */
async function job(pool: pg.Pool, key: string): Promise<string> {
  const r = await pool.query<{ id: string }>("select id::text from graphile_worker.add_job('t', '{}'::json, job_key => $1)", [key]);
  return r.rows[0]!.id;
}

async function jobKeys(pool: pg.Pool): Promise<string[]> {
  const r = await pool.query<{ key: string }>("select key from graphile_worker.jobs order by key");
  return r.rows.map((j) => j.key);
}

test("performance: claims and reports made at once are one statement, each answered as alone", pgSkip, async () => {
  const { db, pool, statements } = await setup();
  try {
    await report(pool, SCHEMA, at("done"), "w0", "finished", passed("earlier"));
    const ids = { k1: await job(pool, "k1"), k2: await job(pool, "k2"), k3: await job(pool, "k3") };
    const writer = new InboxWriter(pool, SCHEMA, "w1");
    const before = statements();
    const [a, b, , ,] = await Promise.all([
      writer.claimStart(at("done", 2), {}), // its instance already passed: skip
      writer.claimStart(at("k4"), {}),
      writer.report(at("k1"), "finished", passed("one"), 0, ids.k1),
      writer.report(at("k2"), "round", { round: { round: 1, body: null, verdict: "revise" } }, 1),
      writer.report(at("done"), "finished", passed("a second report is dropped"), 0, ids.k3),
    ]);
    assert.equal(statements() - before, 1, "two claims and three reports made in one turn go as one statement");
    assert.deepEqual([a, b], ["skip", "run"]);
    const rows = await pool.query<{ key: string; kind: string; worker: string }>(
      "select key, kind, worker from switchyard.inbox order by id",
    );
    // Reports keep their order among themselves; a claim and a report of one batch are never of
    // one attempt (the claim comes before its attempt runs), so their relative order is free.
    assert.deepEqual(rows.rows.map((r) => `${r.key} ${r.kind} ${r.worker}`).sort(), [
      "done finished w0",
      "k1 finished w1",
      "k2 round w1",
      "k4 started w1",
    ]);
    // k1's job ended with its report; k3's too (its attempt's outcome was already there); the
    // round report ends no job: k2's stays.
    assert.deepEqual(await jobKeys(pool), ["k2"]);
  } finally {
    await pool.end();
    await db.drop();
  }
});

test("a lone finished report deletes its job in the transaction that records it; a refused one leaves its job", pgSkip, async () => {
  const { db, pool } = await setup();
  try {
    const ok = await job(pool, "ok");
    const bad = await job(pool, "bad");
    const writer = new InboxWriter(pool, SCHEMA, "w1");
    await writer.report(at("ok"), "finished", passed("fine"), 0, ok);
    assert.deepEqual(await jobKeys(pool), ["bad"]);
    // jsonb refuses the NUL character: nothing of the report is committed, so its job stays
    // (graphile gives it to another worker, which runs the attempt again: at least once).
    await assert.rejects(writer.report(at("bad"), "finished", passed("bad \u0000 byte"), 0, bad));
    assert.deepEqual(await jobKeys(pool), ["bad"]);
    const rows = await pool.query<{ key: string }>("select key from switchyard.inbox order by id");
    assert.deepEqual(
      rows.rows.map((r) => r.key),
      ["ok"],
    );
  } finally {
    await pool.end();
    await db.drop();
  }
});
