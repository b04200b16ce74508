// The store a test harness runs on: SQLite in the state folder, or — with
// SWITCHYARD_TEST_STORE=postgres and SWITCHYARD_TEST_PG=postgres://… (scripts/test.mjs sets both
// for the second pass of the run-engine suite) — a PostgreSQL store in a fresh schema of its own.

import { randomBytes } from "node:crypto";
import { SqliteStore, type Store } from "../../src/run/index.js";
import { PostgresStore } from "../../src/run/store/store-postgres.js";

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

/**
 * The --store value for a test that drives child processes (crash children, the CLI): a fresh
 * PostgreSQL schema on the PostgreSQL pass, else undefined (the state folder's switchyard.db).
 */
export function testStoreSpec(): string | undefined {
  return onPostgres ? freshPgUrl() : undefined;
}

/**
 * The environment that points the CLI at the store of one state folder: SWITCHYARD_STORE naming a
 * fresh PostgreSQL schema (the same one every time for the same folder) on the PostgreSQL pass,
 * nothing on SQLite (the folder's switchyard.db). `storeIn(state)` opens that store for the test's
 * own reads.
 */
const folderStores = new Map<string, string | undefined>();
export function storeEnv(state: string): { SWITCHYARD_STORE?: string } {
  if (!folderStores.has(state)) folderStores.set(state, testStoreSpec());
  const spec = folderStores.get(state);
  return spec ? { SWITCHYARD_STORE: spec } : {};
}

/** The store the CLI writes for a state folder (see storeEnv). */
export function storeIn(state: string): Store {
  const spec = storeEnv(state).SWITCHYARD_STORE;
  return spec ? new PostgresStore(spec, state) : new SqliteStore(state);
}

/** The --state-dir an argument list names: the key of storeEnv for CLI calls. */
export function stateDirArg(args: string[]): string {
  const i = args.indexOf("--state-dir");
  if (i < 0 || !args[i + 1]) throw new Error("the CLI call names no --state-dir");
  return args[i + 1]!;
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
