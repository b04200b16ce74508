// The invocations table: how a run was started (its --config and --decide), kept in the state
// database beside the run so that `resume` asks the same runners and models (src/cli/
// run-invocation.ts decides what to keep and when to reuse it). Not part of the event log.

import type { Sql, Store } from "./store.js";

const SCHEMA = "CREATE TABLE IF NOT EXISTS invocations (run TEXT PRIMARY KEY, config TEXT, decide TEXT NOT NULL) WITHOUT ROWID";
const WRITE: Sql = {
  sqlite: "INSERT OR REPLACE INTO invocations (run, config, decide) VALUES (?, ?, ?)",
  postgres:
    "INSERT INTO invocations (run, config, decide) VALUES ($1, $2, $3) ON CONFLICT (run) DO UPDATE SET config = excluded.config, decide = excluded.decide",
};
const READ: Sql = { sqlite: "SELECT config, decide FROM invocations WHERE run = ?" };

/** A run's invocation as the table keeps it: the machine config's path and the --decide flags as JSON text. */
export interface InvocationRow {
  config: string | null;
  decide: string;
}

/** Records (or replaces) the invocation of a run, committed when it returns. */
export function writeInvocation(store: Store, run: string, config: string | null, decide: string): void {
  store.ensureTable(SCHEMA);
  store.exec(WRITE, [run, config, decide]);
}

/** The recorded invocation of a run, or undefined (throws on a database that cannot be read). */
export function readInvocation(store: Store, run: string): InvocationRow | undefined {
  store.ensureTable(SCHEMA);
  return store.select<InvocationRow>(READ, [run])[0];
}
