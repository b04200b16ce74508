// Performance: a worker's start claims and reports made at once go to the store as
// one statement each (inbox-writer.ts), with the answers and rows the single statements of
// inbox.ts give, and a row the server refuses fails only its own request.

import { test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { claimStart, report, type FinishedReport, type InboxAddress } from "../../src/run/queue/inbox.js";
import { InboxWriter } from "../../src/run/queue/inbox-writer.js";
import { queueNames } from "../../src/run/queue/names.js";
import { ensureQueueSchema } from "../../src/run/queue/schema.js";
import { freshDatabase, pgSkip, type TestDatabase } from "../support/postgres.js";

const SCHEMA = "switchyard";
const RUN = "r-writer";

function finished(status: "passed" | "failed", text = "ok"): FinishedReport {
  return status === "passed" ? { outcome: { status, output: { text } } } : { outcome: { status, code: "exit", error: text } };
}

/** A pool whose inbox statements are counted. */
async function setup(): Promise<{ db: TestDatabase; pool: pg.Pool; statements: () => number }> {
  const db = await freshDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  const c = await pool.connect();
  try {
    await ensureQueueSchema(c, db.url, SCHEMA);
  } finally {
    c.release();
  }
  let n = 0;
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
  pool.query = ((text: string, values?: unknown[]) => {
    if (text.includes(".inbox")) n++;
    return query(text, values);
  }) as typeof pool.query;
  return { db, pool, statements: () => n };
}

const at = (key: string, attempt = 1): InboxAddress => ({ run: RUN, task: "work", key, attempt });

test(
  "performance: a worker's claims made at once are one statement, each answered as its own single statement would be",
  pgSkip,
  async () => {
    const { db, pool, statements } = await setup();
    try {
      // k1 passed in attempt 1; k2's attempt 2 reported a failure.
      await report(pool, SCHEMA, at("k1"), "w0", "finished", finished("passed"));
      await report(pool, SCHEMA, at("k2", 2), "w0", "finished", finished("failed"));
      const before = statements();
      const writer = new InboxWriter(pool, SCHEMA, "w1");
      const asks: Array<[InboxAddress, "skip" | "run"]> = [
        [at("k1", 2), "skip"], // its instance already passed
        [at("k2", 2), "skip"], // this very attempt already reported
        [at("k2", 3), "run"],
        ...Array.from({ length: 17 }, (_, i): [InboxAddress, "run"] => [at(`k${i + 3}`), "run"]),
      ];
      const answers = await Promise.all(asks.map(([a]) => writer.claimStart(a, { host: "h", pid: 1 })));
      assert.deepEqual(
        answers,
        asks.map(([, want]) => want),
      );
      assert.equal(statements() - before, 1, "twenty claims made in one turn go as one statement");
      const started = await pool.query<{ key: string; attempt: number; worker: string }>(
        "select key, attempt, worker from switchyard.inbox where kind = 'started' order by id",
      );
      assert.deepEqual(
        started.rows.map((r) => `${r.key}/a${r.attempt}/${r.worker}`),
        asks.filter(([, w]) => w === "run").map(([a]) => `${a.key}/a${a.attempt}/w1`),
        "a started row for each claim that runs, in the order asked, and none for a skip",
      );
      // The same answers as the single statement gives, asked again one at a time.
      for (const [a, want] of asks) assert.equal(await claimStart(pool, SCHEMA, a, "w2", {}), want);
    } finally {
      await pool.end();
      await db.drop();
    }
  },
);

test(
  "performance: a worker's reports made at once are one statement, stored in order, with one wake-up of the coordinator",
  pgSkip,
  async () => {
    const { db, pool, statements } = await setup();
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const woken: string[] = [];
    listener.on("notification", (n) => woken.push(n.payload ?? ""));
    await listener.query(`listen ${queueNames(SCHEMA).inbox}`);
    try {
      const writer = new InboxWriter(pool, SCHEMA, "w1");
      const before = statements();
      await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => writer.report(at(`k${i}`), "finished", finished(i % 3 ? "passed" : "failed", `out ${i}`))),
        writer.report(at("k0"), "finished", finished("passed", "a second report of k0 is dropped")),
        writer.report(at("k9"), "round", { round: { round: 1, body: null, verdict: "revise" } }, 1),
      ]);
      assert.equal(statements() - before, 1, "twelve reports made in one turn go as one statement");
      const rows = await pool.query<{ key: string; kind: string; status: string | null; payload: FinishedReport }>(
        "select key, kind, status, payload from switchyard.inbox order by id",
      );
      assert.deepEqual(
        rows.rows.map((r) => `${r.key} ${r.kind} ${r.status}`),
        [...Array.from({ length: 10 }, (_, i) => `k${i} finished ${i % 3 ? "passed" : "failed"}`), "k9 round null"],
      );
      assert.deepEqual(rows.rows[0]!.payload, finished("failed", "out 0"), "the first report of k0 stays");
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(woken, [RUN], "one notification for the run, however many rows");
    } finally {
      await listener.end();
      await pool.end();
      await db.drop();
    }
  },
);

test("performance: a report the server refuses fails alone; the others in its group are stored", pgSkip, async () => {
  const { db, pool } = await setup();
  try {
    const writer = new InboxWriter(pool, SCHEMA, "w1");
    // jsonb refuses the NUL character: the grouped statement fails, then each row goes alone.
    const results = await Promise.allSettled(
      ["k0", "k1", "k2", "k3", "k4"].map((k) => writer.report(at(k), "finished", finished("passed", k === "k2" ? "bad \u0000 byte" : k))),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"],
    );
    const rows = await pool.query<{ key: string }>("select key from switchyard.inbox order by id");
    assert.deepEqual(
      rows.rows.map((r) => r.key),
      ["k0", "k1", "k3", "k4"],
    );
  } finally {
    await pool.end();
    await db.drop();
  }
});
