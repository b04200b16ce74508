// The run store: where the event log and its projections live. Two implement it:
// SqliteStore (store-sqlite.ts, the default: one SQLite file in the state folder) and
// PostgresStore (store-postgres.ts: a schema in a PostgreSQL database shared by many machines).
// The contract is synchronous and the same for both:
//   - append() buffers an event; it is committed within a few milliseconds, or by flush();
//   - flush() returns once every buffered event and its projection are committed durably, in
//     one transaction, in order (the log is always a prefix of what happened);
//   - a commit that fails is a StorageFault: its events stay buffered and the fault goes to
//     onFault (the engine then stops its work) or, without a handler, is thrown;
//   - the projections (runs, tasks, instances) are written by the shared code of projection.ts
//     in the transaction of their events, and rebuild() replays the log through it.
// Reads outside the event log and its projections (ownership, process groups, the web view)
// go through select()/exec() with SQL written for both dialects (a Sql), always by a named
// function of this room: no SQL text outside src/run/store/.

import { join } from "node:path";
import type { EventPayloads, EventType, RunEvent, RunStatus, StoredEvent } from "./events.js";
import type { StorageFault } from "./storage-fault.js";

/** A run's row in the runs projection. */
export interface RunRow {
  run: string;
  playbook: string;
  source: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  stop_reason: string | null;
  pid: number | null;
  /** Wall-clock time of the run summed over invocations. */
  elapsed_ms: number;
  spent_usd: number;
}

/** A task's row in the tasks projection. */
export interface TaskRow {
  task: string;
  kind: string;
  mapped: boolean;
  status: string;
  count: number | null;
  summary: unknown;
  error: string | null;
}

/** An instance's row in the instances projection. */
export interface InstanceRow {
  task: string;
  /** null for an unmapped task's instance. */
  key: string | null;
  status: string;
  attempts: number;
  output: unknown;
  error: string | null;
  label: string | null;
}

/**
 * One statement in both dialects: SQLite's text with `?` parameters, and PostgreSQL's where it
 * differs (by default SQLite's, with each `?` numbered `$1`, `$2`, …).
 */
export interface Sql {
  sqlite: string;
  postgres?: string;
}

/** Which database a store is. */
export type StoreKind = "sqlite" | "postgres";

/** Where runs are recorded: the event log, its projections, and the run folders; SQLite or PostgreSQL. */
export interface Store {
  readonly kind: StoreKind;
  /** The local state folder: run folders (snapshots, attempt workspaces, logs) and labs. */
  readonly stateDir: string;
  /** Where the store is, for messages: a file, or a connection string without its password. */
  readonly location: string;
  /** Events committed so far by this store (for figures). */
  committed: number;
  /** Told of a commit that failed with a storage fault (its events stay buffered); see flush(). */
  onFault: ((fault: StorageFault) => void) | null;
  /** Events appended but not committed (after a storage fault). */
  readonly uncommitted: number;

  runDir(run: string): string;
  /** Appends an event to the buffer; it is committed within a few milliseconds, or by flush(). */
  append<T extends EventType>(run: string, type: T, task: string | null, key: string | null, payload: EventPayloads[T]): RunEvent;
  /** Commits every buffered event (and its projection) in one transaction. */
  flush(): void;
  /**
   * Commits as flush() does, durable against this process dying when it returns and against the
   * machine crashing milliseconds later: SQLite syncs the commit to disk in the background
   * (PostgreSQL: flush()). For commits nothing acts on yet (a group of model decisions, which
   * are acted on only after a flush(): docs/runs.md).
   */
  flushWithBackgroundSync(): void;
  close(): void;

  /** Every event of a run in order (the truth R-4 folds). */
  events(run: string): IterableIterator<RunEvent>;
  /** Up to `limit` events of a run after sequence number `after`, in order. */
  eventsAfter(run: string, after: number, limit: number): StoredEvent[];
  eventCount(run: string): number;
  /**
   * Drops the projections (of one run, or all) and replays the events through the same code
   * that maintains them live. Returns the number of events replayed.
   */
  rebuild(run?: string): number;
  run(run: string): RunRow | undefined;
  runs(): RunRow[];
  latestRun(): string | undefined;
  tasks(run: string): TaskRow[];
  instances(run: string, task?: string): InstanceRow[];

  /** A number that changes whenever anything is committed by anyone (cheap: the web view polls it). */
  changeCounter(): number;
  /** Rows of a read-only statement. */
  select<R = Record<string, unknown>>(q: Sql, params?: unknown[]): R[];
  /** A write outside the event log (ownership, process groups), committed when it returns. */
  exec(q: Sql, params?: unknown[]): void;
  /**
   * Like exec, but durable only against this process dying, not against the machine crashing
   * (SQLite: no sync at this commit; PostgreSQL: exec). For rows about what this machine runs
   * right now (process groups): a crash of the machine ends what they describe as well.
   */
  execUnsynced(q: Sql, params?: unknown[]): void;
  /**
   * A write outside the event log that waits for the next commit of events (within a few
   * milliseconds, or flush()) and is made in its transaction (SQLite; PostgreSQL: exec). For
   * writes that may come late, such as forgetting a process group that ended.
   */
  execWithNextCommit(q: Sql, params?: unknown[]): void;
  /** Creates a side table (SQLite; PostgreSQL creates every table when the store is opened). */
  ensureTable(ddl: string): void;
}

/** The state database's file in a state folder (the default store). */
export function sqlitePath(stateDir: string): string {
  return join(stateDir, "switchyard.db");
}

/** `?` → `$1`, `$2`, … (our statements have no `?` inside string literals). */
export function numberedParams(sqlite: string): string {
  let n = 0;
  return sqlite.replace(/\?/g, () => `$${++n}`);
}
