// The PostgreSQL run store: the same event log and projections as SQLite (store.ts has the
// contract, projection.ts the shared projection), in a schema of a PostgreSQL database that many
// machines share. `postgres://USER:PASSWORD@HOST:PORT/DB?schema=NAME` (schema `switchyard` by
// default). Tables are created on open, idempotently, under an advisory lock so two processes
// opening a fresh database at once do not race. Commits go through one connection (SyncPg) with
// synchronous_commit on: flush() returns once the batch is durable, as SQLite's does.
//
// For code that builds on the store (the queue and its workers):
//   - `sql` is the synchronous connection (`sql.query(text, values)`), on the store's schema
//     (search_path); it is the connection that holds the store's advisory locks.
//   - `appendWith(run, type, task, key, payload, statements)` appends an event and runs the
//     statements in the SAME transaction as the batch that commits that event, after the events
//     and projections of the batch; `addToNextCommit(statement)` rides with the next batch (a
//     flush() commits it even when no event is buffered). If the batch fails, they stay pending
//     with its events and are tried again with them. Their results are not returned. Those
//     marked `merge` (array parameters only) run as one statement per text (pg/merged-statements.ts).
//   - `putPack(run, bytes)` / `getPack(run)` keep a run's pack snapshot archive, so a
//     machine without the state folder can fetch it.
//   - the connection is never re-opened behind the caller's back: once it fails, every call
//     throws the store-unreachable StorageFault (an advisory lock held on it is gone).

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { mergeStatements, type MergeableStatement } from "./pg/merged-statements.js";
import { SqlError, SyncPg, type Statement } from "./pg/sync-pg.js";
import { projectBatch, type InstanceWrite, type PendingRow, type ProjectionOps } from "./projection.js";
import { BufferedStore } from "./store-base.js";
import { LOG_SQL, PROJECTION_SQL } from "./store-sql.js";
import { StorageFault } from "./storage-fault.js";
import { numberedParams, type Sql } from "./store.js";
import { reviewAnswersDdl } from "./review-answers.js";
import type { EventPayloads, EventType, RunEvent } from "./events.js";
import { CodedError } from "../../shared/coded-error.js";

const DEFAULT_SCHEMA = "switchyard";
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The tables, created in the store's schema on open (text columns sort bytewise, as SQLite's do). */
function ddl(s: string): string {
  const t = 'text COLLATE "C"';
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.events (
  run ${t} NOT NULL, seq integer NOT NULL, time text NOT NULL, type text NOT NULL,
  task ${t}, key ${t}, payload text NOT NULL,
  PRIMARY KEY (run, seq)
);
CREATE TABLE IF NOT EXISTS ${s}.runs (
  run ${t} PRIMARY KEY, playbook text NOT NULL, source text NOT NULL, status text NOT NULL,
  started_at ${t} NOT NULL, finished_at text, stop_reason text, pid integer,
  prior_ms bigint NOT NULL DEFAULT 0, inv_start bigint NOT NULL, inv_last bigint NOT NULL,
  spent_usd double precision NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ${s}.tasks (
  run ${t} NOT NULL, task ${t} NOT NULL, ord integer NOT NULL, kind text NOT NULL, mapped integer NOT NULL,
  status text NOT NULL, count integer, summary text, error text,
  PRIMARY KEY (run, task)
);
CREATE TABLE IF NOT EXISTS ${s}.instances (
  run ${t} NOT NULL, task ${t} NOT NULL, key ${t} NOT NULL, status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0, output text, error text, label text,
  PRIMARY KEY (run, task, key)
);
CREATE TABLE IF NOT EXISTS ${s}.owners (
  run ${t} PRIMARY KEY, pid integer NOT NULL, started text, boot text, host text NOT NULL,
  token text NOT NULL, since text NOT NULL
);
CREATE TABLE IF NOT EXISTS ${s}.process_groups (
  run ${t} NOT NULL, pgid integer NOT NULL, started text, owner text NOT NULL,
  task text NOT NULL, key text, attempt integer NOT NULL,
  PRIMARY KEY (run, pgid)
);
CREATE TABLE IF NOT EXISTS ${s}.invocations (run ${t} PRIMARY KEY, config text, decide text NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.packs (run ${t} PRIMARY KEY, archive bytea NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.cancel_requests (run ${t} PRIMARY KEY, reason text NOT NULL, at text NOT NULL);
${reviewAnswersDdl(s, t)}
CREATE TABLE IF NOT EXISTS ${s}.labs (id ${t} PRIMARY KEY, created text NOT NULL, note text NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.lab_current (only_row boolean PRIMARY KEY DEFAULT TRUE CHECK (only_row), id text NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.lab_pairs (
  lab ${t} NOT NULL, id bigserial, line text NOT NULL, dedupe text UNIQUE,
  PRIMARY KEY (lab, id)
);
CREATE SEQUENCE IF NOT EXISTS ${s}.changes;
`;
}

const INSERT_EVENTS = `INSERT INTO events (run, seq, time, type, task, key, payload)
  SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`;
const UPSERT_INSTANCES = `INSERT INTO instances (run, task, key, status, attempts, output, error, label)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::text[], $8::text[])
  ON CONFLICT (run, task, key) DO UPDATE SET status = excluded.status, attempts = GREATEST(instances.attempts, excluded.attempts),
  output = excluded.output, error = excluded.error, label = excluded.label`;
const BUMP_CHANGES = "SELECT nextval('changes')";

/** The SQLSTATE codes that mean the database cannot take a write (disk full, out of memory, read-only). */
const CANNOT_WRITE: Record<string, string> = {
  "53100": "the server's disk is full",
  "53200": "the server is out of memory",
  "53300": "the server has too many connections",
  "25006": "the database is read-only (a standby?)",
  "42501": "the user may not write these tables",
};

/** Where a PostgreSQL store lives: its connection string and schema. */
export interface PgLocation {
  /** The connection string for `pg`, without switchyard's parameters. */
  url: string;
  schema: string;
  /** The connection string without its password, for messages. */
  where: string;
}

/** Reads a `postgres://` connection string; throws a message (never naming the password) when it is not one. */
export function parsePgUrl(spec: string): PgLocation {
  let u: URL;
  try {
    u = new URL(spec);
  } catch {
    throw new CodedError("store-url", "the store's connection string is not a URL (expected postgres://USER@HOST:PORT/DATABASE)");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:")
    throw new CodedError("store-url", `the store's connection string must start with postgres:// or postgresql://, got ${u.protocol}//`);
  const schema = u.searchParams.get("schema") ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema))
    throw new CodedError(
      "store-url",
      `the store's ?schema= must be a lower-case SQL name (letters, digits, _), got ${JSON.stringify(schema)}`,
    );
  u.searchParams.delete("schema");
  const url = u.toString();
  const shown = new URL(url);
  if (shown.password) shown.password = "***";
  shown.searchParams.set("schema", schema);
  return { url, schema, where: shown.toString() };
}

/** The event log and projections in a PostgreSQL schema, shared by coordinators and workers. */
export class PostgresStore extends BufferedStore {
  readonly kind = "postgres" as const;
  readonly location: string;
  /** The connection string for other clients of the same database (the queue); never printed. */
  readonly connection: string;
  readonly schema: string;
  /** The store's connection (see the head comment). */
  readonly sql: SyncPg;
  private readonly texts = new Map<string, string>();
  /** Statements that ride with the next committed batch (appendWith, addToNextCommit). */
  private riders: MergeableStatement[] = [];
  /** Runs whose advisory lock this connection holds (tryLock). */
  private readonly locks = new Set<string>();

  constructor(spec: string, stateDir: string, opts: { timeoutMs?: number } = {}) {
    super(stateDir);
    const loc = parsePgUrl(spec);
    this.location = loc.where;
    this.connection = loc.url;
    this.schema = loc.schema;
    mkdirSync(join(stateDir, "runs"), { recursive: true });
    this.sql = new SyncPg({
      url: loc.url,
      where: loc.where,
      options: `-c search_path=${loc.schema} -c synchronous_commit=on`,
      timeoutMs: opts.timeoutMs,
    });
    try {
      this.sql.transaction([{ text: "SELECT pg_advisory_xact_lock(hashtext('switchyard schema'))" }, { text: ddl(loc.schema) }]);
    } catch (err) {
      this.sql.close();
      throw this.fault(err) ?? err;
    }
  }

  /** The projection's row writes as statements of the transaction being built. */
  private opsInto(out: Statement[]): ProjectionOps {
    const ops = Object.fromEntries(
      Object.entries(PROJECTION_SQL).map(([name, q]) => [
        name,
        { run: (...values: unknown[]) => void out.push({ text: this.text(q), values }) },
      ]),
    );
    return {
      ...(ops as unknown as Omit<ProjectionOps, "upsertInstances">),
      upsertInstances: (rows: InstanceWrite[]) =>
        void out.push({
          text: UPSERT_INSTANCES,
          values: [
            rows.map((w) => w.run),
            rows.map((w) => w.task),
            rows.map((w) => w.key),
            rows.map((w) => w.status),
            rows.map((w) => w.attempts),
            rows.map((w) => w.output),
            rows.map((w) => w.error),
            rows.map((w) => w.label),
          ],
        }),
    };
  }

  protected commitRows(rows: PendingRow[], insert: boolean): void {
    const statements: Statement[] = [];
    if (insert && rows.length)
      statements.push({
        text: INSERT_EVENTS,
        values: [
          rows.map((r) => r.run),
          rows.map((r) => r.seq),
          rows.map((r) => r.time),
          rows.map((r) => r.type),
          rows.map((r) => r.task),
          rows.map((r) => r.key),
          rows.map((r) => r.text),
        ],
      });
    projectBatch(this.opsInto(statements), rows);
    if (insert) statements.push(...mergeStatements(this.riders));
    statements.push({ text: BUMP_CHANGES });
    this.sql.transaction(statements);
  }

  protected override committedRows(): void {
    this.riders = [];
  }

  protected override hasRiders(): boolean {
    return this.riders.length > 0;
  }

  /** Appends an event whose batch also runs `statements`, in the same transaction (see the head comment). */
  appendWith<T extends EventType>(
    run: string,
    type: T,
    task: string | null,
    key: string | null,
    payload: EventPayloads[T],
    statements: MergeableStatement[],
  ): RunEvent {
    const e = this.append(run, type, task, key, payload);
    this.riders.push(...statements);
    return e;
  }

  /** Runs a statement in the transaction of the next committed batch (merged with its kind: pg/merged-statements.ts). */
  addToNextCommit(statement: MergeableStatement): void {
    this.riders.push(statement);
  }

  protected fault(err: unknown): StorageFault | undefined {
    if (err instanceof StorageFault) return err;
    if (!(err instanceof SqlError) || !err.sqlState) return undefined;
    const state = err.sqlState;
    const why = CANNOT_WRITE[state] ?? (state.startsWith("53") ? "the server lacks resources" : undefined);
    if (!why) return undefined;
    return new StorageFault(
      "state-unwritable",
      `the PostgreSQL store ${this.location} cannot be written: ${why} (SQLSTATE ${state}: ${err.message})`,
      { systemCode: state },
    );
  }

  protected disconnect(): void {
    this.sql.close();
  }

  protected clearProjections(run: string): void {
    this.sql.transaction(
      [LOG_SQL.clearRun, LOG_SQL.clearTasks, LOG_SQL.clearInstances].map((q) => ({ text: this.text(q), values: [run] })),
    );
  }

  /** The PostgreSQL text of a Sql (its own, or SQLite's with numbered parameters). */
  private text(q: Sql): string {
    if (q.postgres !== undefined) return q.postgres;
    let t = this.texts.get(q.sqlite);
    if (t === undefined) this.texts.set(q.sqlite, (t = numberedParams(q.sqlite)));
    return t;
  }

  select<R = Record<string, unknown>>(q: Sql, params?: unknown[]): R[] {
    return this.sql.query<R>(this.text(q), params);
  }

  exec(q: Sql, params?: unknown[]): void {
    this.sql.query(this.text(q), params);
  }

  ensureTable(): void {
    // every table was created when the store was opened
  }

  /** A sequence every committed batch advances (a rolled-back one may too: a spurious refresh at most). */
  changeCounter(): number {
    const r = this.sql.query<{ last_value: number; is_called: boolean }>("SELECT last_value, is_called FROM changes")[0];
    return r && r.is_called ? r.last_value : 0;
  }

  /**
   * Takes the run's session advisory lock on the store's connection, without waiting. Held until
   * unlock() or until the connection ends (a killed process loses it with its connection).
   */
  tryLock(run: string): boolean {
    if (this.locks.has(run)) return true;
    const got = this.sql.query<{ got: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got", [this.lockName(run)])[0]!
      .got;
    if (got) this.locks.add(run);
    return got;
  }

  unlock(run: string): void {
    if (!this.locks.delete(run)) return;
    this.sql.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [this.lockName(run)]);
  }

  /** Whether any session (this one included) holds the run's lock. */
  lockHeld(run: string): boolean {
    if (this.locks.has(run)) return true;
    const free = this.sql.query<{ got: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got", [this.lockName(run)])[0]!
      .got;
    if (free) this.sql.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [this.lockName(run)]);
    return !free;
  }

  private lockName(run: string): string {
    return `switchyard run ${this.schema}/${run}`;
  }

  /** Keeps a run's pack snapshot archive in the store. */
  putPack(run: string, archive: Buffer): void {
    this.sql.query("INSERT INTO packs (run, archive) VALUES ($1, $2) ON CONFLICT (run) DO UPDATE SET archive = excluded.archive", [
      run,
      archive,
    ]);
  }

  /** One round trip: throws the StorageFault of a server that cannot be reached (queue-executor.ts). */
  check(): void {
    this.sql.query("SELECT 1");
  }

  hasPack(run: string): boolean {
    return this.sql.query("SELECT 1 FROM packs WHERE run = $1", [run]).length > 0;
  }

  getPack(run: string): Buffer | undefined {
    const r = this.sql.query<{ archive: Uint8Array }>("SELECT archive FROM packs WHERE run = $1", [run])[0];
    return r ? Buffer.from(r.archive) : undefined;
  }
}
