// Event appends per second, SQLite vs PostgreSQL, in the same process. Each store gets
// the same instance_finished events (a ~240-byte payload, as a run writes them), committed in
// batches of the given size with flush() — a commit each, as the engine's batching makes. SQLite is
// measured in both of its settings: FULL (the default: each commit fsynced, durable against power
// loss, like PostgreSQL's synchronous_commit = on) and NORMAL (SWITCHYARD_SQLITE_SYNC=normal: a
// commit survives the process dying, not the machine).
// PostgreSQL is measured when SWITCHYARD_BENCH_PG (or SWITCHYARD_TEST_PG) names a server; each
// run uses a fresh schema.
// usage: node dist/bench/store-append.js [EVENTS=20000]
//
// On a Node with node:sqlite (22.13+), a second section runs the same SqliteStore over node:sqlite
// and over better-sqlite3 (the driver is all that differs; bench/node-sqlite-driver.ts): appends,
// the fold of a finished run's events (`runs --rebuild`) and the web view's reads of it
// (docs/performance.md has the figures and the decision).

import { rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { SqliteStore, type Store } from "../src/run/index.js";
import type { SqliteSync } from "../src/run/store/store-sqlite.js";
import { PostgresStore } from "../src/run/store/store-postgres.js";
import { scratchDir } from "./scratch.js";
import { compareDrivers } from "./store-drivers.js";

const total = Number(process.argv[2] ?? 20000);
const pg = process.env.SWITCHYARD_BENCH_PG || process.env.SWITCHYARD_TEST_PG;

function measure(store: Store, batch: number): number {
  const output = { verdict: "ok", package: "left-pad", confidence: 0.93, notes: "x".repeat(120) };
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < total; i++) {
    store.append("bench", "instance_finished", "work", `k-${i}`, { attempt: 1, status: "passed", output });
    if ((i + 1) % batch === 0) store.flush();
  }
  store.flush();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  return total / s;
}

const dir = scratchDir("store-append-");
try {
  for (const batch of [16, 100, 1000]) {
    const row: string[] = [`batch ${String(batch).padStart(4)}:`];
    for (const sync of ["FULL", "NORMAL"] as SqliteSync[]) {
      const sqlite = new SqliteStore(`${dir}/sqlite-${sync}-${batch}`, undefined, sync);
      row.push(`SQLite ${sync} ${Math.round(measure(sqlite, batch)).toLocaleString("en")} events/s`);
      sqlite.close();
    }
    if (pg) {
      const u = new URL(pg);
      u.searchParams.set("schema", `bench_${randomBytes(4).toString("hex")}`);
      const store = new PostgresStore(u.toString(), `${dir}/pg-${batch}`);
      row.push(`PostgreSQL ${Math.round(measure(store, batch)).toLocaleString("en")} events/s`);
      store.sql.query(`DROP SCHEMA ${store.schema} CASCADE`);
      store.close();
    }
    process.stdout.write(`${row.join("  ")}  (${total.toLocaleString("en")} events)\n`);
  }
  if (!pg) process.stdout.write("PostgreSQL not measured: set SWITCHYARD_BENCH_PG=postgres://…\n");
  await compareDrivers(dir, total, measure);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
