// The process_groups table: the process group of every running attempt of a run, with its
// leader's start time, the owner that started it and the instance, so whoever next claims the run
// from a dead owner can stop what it left running (src/run/process/process-groups.ts).

import type { Sql, Store } from "./store.js";

const SCHEMA = `CREATE TABLE IF NOT EXISTS process_groups (
  run TEXT NOT NULL, pgid INTEGER NOT NULL, started TEXT, owner TEXT NOT NULL,
  task TEXT NOT NULL, key TEXT, attempt INTEGER NOT NULL,
  PRIMARY KEY (run, pgid)
) WITHOUT ROWID`;

const ADD: Sql = {
  sqlite: "INSERT OR REPLACE INTO process_groups (run, pgid, started, owner, task, key, attempt) VALUES (?, ?, ?, ?, ?, ?, ?)",
  postgres: `INSERT INTO process_groups (run, pgid, started, owner, task, key, attempt) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (run, pgid) DO UPDATE SET started = excluded.started, owner = excluded.owner, task = excluded.task,
    key = excluded.key, attempt = excluded.attempt`,
};
// The attempt is named too: the row is forgotten with the next commit of events, and a row a
// reused pid got meanwhile belongs to another attempt.
const DEL: Sql = {
  sqlite: "DELETE FROM process_groups WHERE run = ? AND pgid = ? AND owner = ? AND task = ? AND key IS ? AND attempt = ?",
  postgres:
    "DELETE FROM process_groups WHERE run = $1 AND pgid = $2 AND owner = $3 AND task = $4 AND key IS NOT DISTINCT FROM $5 AND attempt = $6",
};
const OTHERS: Sql = { sqlite: "SELECT pgid, started FROM process_groups WHERE run = ? AND owner != ?" };
const DEL_OTHERS: Sql = { sqlite: "DELETE FROM process_groups WHERE run = ? AND owner != ?" };

/** A recorded group: its id and its leader's start time (null when it could not be read). */
export interface ProcessGroupRow {
  pgid: number;
  started: string | null;
}

/** The attempt a recorded group runs: the owner that started it and its instance. */
export interface ProcessGroupRecord {
  run: string;
  pgid: number;
  started: string | null;
  owner: string;
  task: string;
  key: string | null;
  attempt: number;
}

/** Creates the table where it is missing (SQLite; PostgreSQL has it from the start). */
export function ensureProcessGroupTable(store: Store): void {
  store.ensureTable(SCHEMA);
}

// A group's row is committed before the group runs anything, but not synced to disk (execUnsynced):
// it must outlive this process (a kill -9), and a crash of the machine ends the group too. Its
// removal once the group ended rides with the next commit of events (execWithNextCommit): a row
// left behind by a crash meanwhile names a leader that is gone, which stopOrphanedGroups drops. A
// commit of its own for each, synced, cost milliseconds per command on a slow disk
// (docs/performance.md).

/** Records (or replaces) a group, committed (not synced) when it returns. */
export function recordProcessGroup(store: Store, g: ProcessGroupRecord): void {
  store.execUnsynced(ADD, [g.run, g.pgid, g.started, g.owner, g.task, g.key, g.attempt]);
}

/** Forgets a group that ended (with the next commit of events). */
export function forgetProcessGroup(store: Store, g: Omit<ProcessGroupRecord, "started">): void {
  store.execWithNextCommit(DEL, [g.run, g.pgid, g.owner, g.task, g.key, g.attempt]);
}

/** The groups recorded for a run by owners other than `self`. */
export function othersProcessGroups(store: Store, run: string, self: string): ProcessGroupRow[] {
  return store.select<ProcessGroupRow>(OTHERS, [run, self]);
}

/** Forgets the groups recorded for a run by owners other than `self`. */
export function forgetOthersProcessGroups(store: Store, run: string, self: string): void {
  store.exec(DEL_OTHERS, [run, self]);
}
