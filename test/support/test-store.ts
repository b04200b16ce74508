// The store a test harness runs on: SQLite in the state folder, or — with
// SWITCHYARD_TEST_STORE=postgres and SWITCHYARD_TEST_PG=postgres://… (scripts/test.mjs sets both
// for the second pass of the run-engine suite) — a PostgreSQL store in a fresh schema of its own.

import { randomBytes } from "node:crypto";
import { SqliteStore, type Store } from "../../src/run/index.js";
import { PostgresStore } from "../../src/run/store-postgres.js";

export const onPostgres = process.env.SWITCHYARD_TEST_STORE === "postgres";

/** The PostgreSQL server of the tests (undefined: PostgreSQL tests are skipped). */
export const testPg = process.env.SWITCHYARD_TEST_PG || undefined;

/** A connection string for a new, empty schema on the test server. */
export function freshPgUrl(base = testPg): string {
  if (!base) throw new Error("SWITCHYARD_TEST_PG is not set");
  const u = new URL(base);
  u.searchParams.set("schema", `t_${process.pid}_${randomBytes(4).toString("hex")}`);
  return u.toString();
}

/** The store of a harness's state folder: SQLite, or PostgreSQL in a fresh schema on the PostgreSQL pass. */
export function testStore(state: string): Store {
  return onPostgres ? new PostgresStore(freshPgUrl(), state) : new SqliteStore(state);
}

/** The SQL of a whole projection table, in order, for comparing rows across a rebuild. */
export const TABLE = {
  runs: { sqlite: "SELECT * FROM runs ORDER BY run" },
  tasks: { sqlite: "SELECT * FROM tasks ORDER BY run, task" },
  instances: { sqlite: "SELECT * FROM instances ORDER BY run, task, key" },
};
