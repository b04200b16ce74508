// The synchronous PostgreSQL bridge (src/run/pg/sync-pg.ts): the caller sleeps on a shared flag
// until the connection's thread raises it. A wake-up without the flag raised happens for real —
// the thread's notify for one answer can land while the caller already waits for the next (CI
// saw "woke the caller without an answer" once) — and must send the caller back to sleep, not
// fail the query. Here another thread notifies the flag without pause while queries run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { SyncPg } from "../../src/run/store/pg/sync-pg.js";
import { testPg } from "../support/test-store.js";

const skip = testPg ? false : "SWITCHYARD_TEST_PG is not set (no PostgreSQL server for the tests)";

test(
  "synchronous PostgreSQL client: a wake-up of the store's caller without an answer is slept through; every query gets its own answer",
  { skip },
  async () => {
    const db = new SyncPg({ url: testPg!, where: "the test server" });
    const flag = (db as unknown as { flag: Int32Array }).flag;
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const noise = new Worker(
      `const { workerData: { flag, stop } } = require("node:worker_threads");
     let n = 0;
     while (Atomics.load(stop, 0) === 0) { Atomics.notify(flag, 0); if (++n % 64 === 0) Atomics.wait(stop, 0, 0, 0.05); }`,
      { eval: true, workerData: { flag, stop } },
    );
    await new Promise((r) => noise.once("online", r));
    try {
      for (let i = 0; i < 2000; i++) {
        const rows = db.query<{ n: number }>("SELECT $1::int AS n, pg_sleep(0.0002)", [i]);
        assert.equal(rows[0]!.n, i);
      }
    } finally {
      Atomics.store(stop, 0, 1);
      await noise.terminate();
      db.close();
    }
  },
);
