// The SQLite run store (R-2, R-3; the contract is in store.ts): one database in WAL mode in the
// state folder. The `events` table is the truth; `runs`, `tasks` and `instances` are projections
// maintained by the code that rebuilds them (projection.ts), so `switchyard runs --rebuild` gives
// identical rows.
//
// Appends are buffered and committed in small transactions (every few milliseconds, or when
// the buffer grows), so a busy run is not bound by one commit per event. `flush()` commits
// synchronously; the engine calls it before acting on anything recorded (a decision, an
// expansion), so whatever a later step depends on is on disk first. The buffer is FIFO, so the
// log on disk is always a prefix of what happened: never a later event without an earlier one.
//
// Within one committed batch every event is inserted, in order, but the instance rows it
// projects are written once per (run, task, key), with the batch's final state (Projection in
// projection.ts): an instance started and decided in the same batch costs one row write, not two. The
// result is the row that applying the events one by one gives (tested against `--rebuild`).
//
// Durability: WAL with `synchronous = FULL` by default, so a commit returns only once the WAL is
// fsynced: a committed event survives a power loss or an OS crash, not only a `kill -9` (the
// PostgreSQL store's synchronous_commit = on gives the same). The buffer above makes that cheap:
// one fsync per committed batch, not per event. SWITCHYARD_SQLITE_SYNC=normal selects SQLite's
// `synchronous = NORMAL` instead (no fsync at commit: a commit survives the process dying but the
// last commits can be lost with the machine); the cost of each is measured in bench/store-append.ts
// and stated in docs/architecture.md ("How durable a commit is").
//
// A storage fault (a full disk, a read-only or corrupt file: storage-fault.ts) never escapes as a
// raw SqliteError. Opening a damaged database throws a StorageFault; a commit that fails keeps
// its events buffered, in order, and is reported to `onFault` (the engine then stops its work)
// or, without a handler, thrown as a StorageFault. A driver that cannot be loaded (no native
// build for this Node) is a SqliteDriverMissing (sqlite-driver.ts).

import type Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectBatch, type PendingRow, type ProjectionOps } from "./projection.js";
import { BufferedStore } from "./store-base.js";
import { LOG_SQL, PROJECTION_SQL } from "./store-sql.js";
import { openSqlite } from "./sqlite-driver.js";
import { noteDatabase, storageFault, walSyncFault, type StorageFault } from "./storage-fault.js";
import { sqlitePath, type Sql } from "./store.js";
import { BackgroundWalSync } from "./wal-sync.js";

type DB = Database.Database;

/** SQLite's `synchronous` setting for the event log: FULL (durable against power loss) or NORMAL. */
export type SqliteSync = "FULL" | "NORMAL";

/**
 * The `synchronous` setting $SWITCHYARD_SQLITE_SYNC selects: `normal` (any case) gives NORMAL;
 * unset, `full` or any other value gives FULL, so a misspelt setting errs on the durable side.
 */
export function sqliteSyncFrom(env: NodeJS.ProcessEnv = process.env): SqliteSync {
  return env.SWITCHYARD_SQLITE_SYNC?.trim().toLowerCase() === "normal" ? "NORMAL" : "FULL";
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  run TEXT NOT NULL, seq INTEGER NOT NULL, time TEXT NOT NULL, type TEXT NOT NULL,
  task TEXT, key TEXT, payload TEXT NOT NULL,
  PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
  run TEXT PRIMARY KEY, playbook TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT, stop_reason TEXT, pid INTEGER,
  prior_ms INTEGER NOT NULL DEFAULT 0, inv_start INTEGER NOT NULL, inv_last INTEGER NOT NULL,
  spent_usd REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tasks (
  run TEXT NOT NULL, task TEXT NOT NULL, ord INTEGER NOT NULL, kind TEXT NOT NULL, mapped INTEGER NOT NULL,
  status TEXT NOT NULL, count INTEGER, summary TEXT, error TEXT,
  PRIMARY KEY (run, task)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS instances (
  run TEXT NOT NULL, task TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, output TEXT, error TEXT, label TEXT,
  PRIMARY KEY (run, task, key)
) WITHOUT ROWID;
`;

/** Events per INSERT statement when a batch is committed (rows are inserted in order). */
const EVENTS_PER_INSERT = 16;

const INSERT_EVENT = "INSERT INTO events (run, seq, time, type, task, key, payload) VALUES (?, ?, ?, ?, ?, ?, ?)";
const INSERT_EVENTS = `INSERT INTO events (run, seq, time, type, task, key, payload) VALUES ${Array(EVENTS_PER_INSERT).fill("(?, ?, ?, ?, ?, ?, ?)").join(", ")}`;
const UPSERT_INSTANCE = `INSERT INTO instances (run, task, key, status, attempts, output, error, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (run, task, key) DO UPDATE SET status = excluded.status, attempts = MAX(attempts, excluded.attempts),
  output = excluded.output, error = excluded.error, label = excluded.label`;

const UNSYNCED: Sql = { sqlite: "PRAGMA synchronous = NORMAL" };
const SYNCED: Sql = { sqlite: "PRAGMA synchronous = FULL" };

/** The event log and projections in the state folder's SQLite file. */
export class SqliteStore extends BufferedStore {
  readonly kind = "sqlite" as const;
  readonly location: string;
  readonly db: DB;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly ops: ProjectionOps;
  private readonly insertEvent: Database.Statement;
  private readonly insertEvents: Database.Statement;
  /** Whether commits are synced (FULL): only then does execUnsynced switch syncing off for its commit. */
  private readonly synced: boolean;
  /** Statements that wait for the next commit of events (execWithNextCommit). */
  private riders: Array<{ q: Sql; params: unknown[] }> = [];
  /** Syncs the WAL after commits made by flushWithBackgroundSync. */
  private readonly walSync: BackgroundWalSync;

  /**
   * `file` is the database (the state folder's switchyard.db unless `--store sqlite:PATH` names
   * another); `sync` how commits are synced ($SWITCHYARD_SQLITE_SYNC unless given); `open` makes
   * the connection (bench/store-drivers.ts passes one over node:sqlite to compare the two drivers
   * on the same store: docs/performance.md).
   */
  constructor(stateDir: string, file = sqlitePath(stateDir), sync: SqliteSync = sqliteSyncFrom(), open: (file: string) => DB = openSqlite) {
    super(stateDir);
    mkdirSync(join(stateDir, "runs"), { recursive: true });
    this.location = file;
    this.synced = sync === "FULL";
    noteDatabase(file);
    try {
      this.db = open(file);
      this.open(sync);
    } catch (err) {
      throw storageFault(err, file) ?? err;
    }
    this.walSync = new BackgroundWalSync(`${file}-wal`, (err) => this.onFault?.(walSyncFault(err, file)));
    this.insertEvent = this.db.prepare(INSERT_EVENT);
    this.insertEvents = this.db.prepare(INSERT_EVENTS);
    const upsert = this.db.prepare(UPSERT_INSTANCE);
    const ops = Object.fromEntries(Object.entries(PROJECTION_SQL).map(([name, q]) => [name, this.db.prepare(q.sqlite)]));
    this.ops = {
      ...(ops as unknown as Omit<ProjectionOps, "upsertInstances">),
      upsertInstances: (rows) => {
        for (const w of rows) upsert.run(w.run, w.task, w.key, w.status, w.attempts, w.output, w.error, w.label);
      },
    };
  }

  private open(sync: SqliteSync): void {
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`synchronous = ${sync}`);
    this.db.pragma("busy_timeout = 5000");
    // Checkpoint the WAL every ~32 MB instead of SQLite's ~4 MB: a busy run then copies each
    // page it keeps rewriting (the instance rows) into the database file, and syncs, far less
    // often, on the thread that also drives the run (measured: ~10 % more decisions/s in
    // bench/decisions.ts). Durability is unchanged: a commit is in the WAL (and, with FULL,
    // synced) either way; a checkpoint only moves committed pages.
    this.db.pragma("wal_autocheckpoint = 8000");
    this.db.exec(SCHEMA);
  }

  protected commitRows(rows: PendingRow[], insert: boolean): void {
    this.db.transaction(() => {
      if (insert) {
        this.writeEvents(rows);
        for (const r of this.riders) this.exec(r.q, r.params);
      }
      projectBatch(this.ops, rows);
    })();
  }

  protected override hasRiders(): boolean {
    return this.riders.length > 0;
  }

  protected override committedRows(): void {
    this.riders = [];
  }

  override execWithNextCommit(q: Sql, params: unknown[] = []): void {
    this.riders.push({ q, params });
    this.commitSoon();
  }

  /** Inserts the events in order, EVENTS_PER_INSERT rows per statement (fewer calls into SQLite). */
  private writeEvents(rows: PendingRow[]): void {
    let i = 0;
    if (rows.length >= EVENTS_PER_INSERT) {
      const params: unknown[] = new Array(EVENTS_PER_INSERT * 7);
      for (; i + EVENTS_PER_INSERT <= rows.length; i += EVENTS_PER_INSERT) {
        for (let j = 0; j < EVENTS_PER_INSERT; j++) {
          const r = rows[i + j]!;
          const o = j * 7;
          params[o] = r.run;
          params[o + 1] = r.seq;
          params[o + 2] = r.time;
          params[o + 3] = r.type;
          params[o + 4] = r.task;
          params[o + 5] = r.key;
          params[o + 6] = r.text;
        }
        this.insertEvents.run(params);
      }
    }
    for (; i < rows.length; i++) {
      const r = rows[i]!;
      this.insertEvent.run(r.run, r.seq, r.time, r.type, r.task, r.key, r.text);
    }
  }

  protected fault(err: unknown): StorageFault | undefined {
    return storageFault(err, this.location);
  }

  protected disconnect(): void {
    try {
      this.walSync.close();
    } catch (err) {
      throw walSyncFault(err, this.location);
    } finally {
      this.db.close();
    }
  }

  /**
   * flush(), but the commit does not wait for the disk: it is made with `synchronous = NORMAL`
   * (in the WAL when it returns, so it survives this process being killed) and the WAL is then
   * synced in the background (wal-sync.ts), within milliseconds; a synced commit or close()
   * meanwhile syncs it too. With NORMAL chosen for every commit, the same as flush().
   */
  override flushWithBackgroundSync(): void {
    if (!this.synced || this.db.inTransaction) return this.flush();
    const before = this.committed;
    this.statement(UNSYNCED).run();
    try {
      this.flush();
    } finally {
      this.statement(SYNCED).run();
    }
    if (this.committed !== before) this.walSync.request();
  }

  /** Resolves once the commits of flushWithBackgroundSync so far are synced (or their sync failed, reported to onFault). */
  walSynced(): Promise<void> {
    return this.walSync.settled();
  }

  protected clearProjections(run: string): void {
    this.db.transaction(() => {
      for (const q of [LOG_SQL.clearRun, LOG_SQL.clearTasks, LOG_SQL.clearInstances]) this.statement(q).run(run);
    })();
  }

  /** The prepared statement of a Sql (prepared once). */
  private statement(q: Sql): Database.Statement {
    let s = this.statements.get(q.sqlite);
    if (!s) this.statements.set(q.sqlite, (s = this.db.prepare(q.sqlite)));
    return s;
  }

  select<R = Record<string, unknown>>(q: Sql, params: unknown[] = []): R[] {
    return this.statement(q).all(...params) as R[];
  }

  exec(q: Sql, params: unknown[] = []): void {
    this.statement(q).run(...params);
  }

  /**
   * One commit with `synchronous = NORMAL`: written to the WAL (so it survives this process being
   * killed) without waiting for the disk, which on a slow disk costs milliseconds per commit. The
   * next synced commit syncs it along with its own pages; the WAL keeps commits in order.
   */
  override execUnsynced(q: Sql, params: unknown[] = []): void {
    if (!this.synced || this.db.inTransaction) return this.exec(q, params);
    this.statement(UNSYNCED).run();
    try {
      this.exec(q, params);
    } finally {
      this.statement(SYNCED).run();
    }
  }

  ensureTable(ddl: string): void {
    this.db.exec(ddl);
  }

  /** SQLite's data_version: it changes when another connection commits. */
  changeCounter(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }

  /**
   * Runs `fn` in one write transaction taken at once (BEGIN IMMEDIATE), so of several processes
   * doing it at the same time one goes first and the others wait (ownership's claim).
   */
  immediate<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
}
