// The run store: one SQLite database in WAL mode in the state folder. The `events`
// table is the truth; `runs`, `tasks` and `instances` are projections maintained by the same
// code that rebuilds them (applyEvent), so `switchyard runs --rebuild` gives identical rows.
//
// Appends are buffered and committed in small transactions (every few milliseconds, or when
// the buffer grows), so a busy run is not bound by one commit per event. `flush()` commits
// synchronously; the engine calls it before acting on anything recorded (a decision, an
// expansion), so whatever a later step depends on is on disk first. The buffer is FIFO, so the
// log on disk is always a prefix of what happened: never a later event without an earlier one.
//
// Within one committed batch every event is inserted, in order, but the instance rows it
// projects are written once per (run, task, key), with the batch's final state (Projection
// below): an instance started and decided in the same batch costs one row write, not two. The
// result is the row that applying the events one by one gives (tested against `--rebuild`).
//
// A storage fault (a full disk, a read-only or corrupt file: storage-fault.ts) never escapes as a
// raw SqliteError. Opening a damaged database throws a StorageFault; a commit that fails keeps
// its events buffered, in order, and is reported to `onFault` (the engine then stops its work)
// or, without a handler, thrown as a StorageFault.

import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  chargedUsd,
  decodeEvent,
  dispatch,
  type EventHandlers,
  type EventPayloads,
  type EventType,
  type RunEvent,
  type RunStatus,
  type StoredEvent,
} from "./events.js";
import { noteDatabase, storageFault, type StorageFault } from "./storage-fault.js";

type DB = Database.Database;

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

export interface TaskRow {
  task: string;
  kind: string;
  mapped: boolean;
  status: string;
  count: number | null;
  summary: unknown;
  error: string | null;
}

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

/** What a buffered event carries besides the event itself. */
interface RowExtras {
  /** The payload's JSON, as inserted. */
  text: string;
  /** The event's time in epoch milliseconds (parsed once). */
  ms: number;
  /**
   * The JSON of the payload's output/record, when append() already serialised it as part of
   * `text` (so the instance row reuses it instead of serialising it again).
   */
  outputText?: string;
}

type PendingRow = RunEvent & RowExtras;

/** Payload fields that are also written to an instance row's `output` column. */
const OUTPUT_FIELD: Partial<Record<EventType, "output" | "record">> = { instance_finished: "output", decision_recorded: "record" };

/** Unmapped instances are stored under the empty key (element keys are 1–256 characters, M-1). */
const UNMAPPED = "";

/** Events per INSERT statement when a batch is committed (rows are inserted in order). */
const EVENTS_PER_INSERT = 16;

/** Events per transaction when the projections are rebuilt. */
const REBUILD_BATCH = 4000;

export class Store {
  readonly db: DB;
  readonly stateDir: string;
  private buffer: PendingRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private seqs = new Map<string, number>();
  private stmts: ReturnType<typeof prepare>;
  /** Stands for the output field while the payload is serialised, then is replaced by its JSON. */
  private readonly marker = `\u0000switchyard-output-${randomBytes(8).toString("hex")}`;
  private readonly markerJson = JSON.stringify(this.marker);
  /** Events committed so far by this store (for figures). */
  committed = 0;
  /** Told of a commit that failed with a storage fault (its events stay buffered); see flush(). */
  onFault: ((fault: StorageFault) => void) | null = null;
  private faulted = false;

  constructor(stateDir: string) {
    this.stateDir = stateDir;
    mkdirSync(join(stateDir, "runs"), { recursive: true });
    const file = join(stateDir, "switchyard.db");
    noteDatabase(file);
    try {
      this.db = new Database(file);
      this.open();
    } catch (err) {
      throw storageFault(err, file) ?? err;
    }
    this.stmts = prepare(this.db);
  }

  private open(): void {
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    // Checkpoint the WAL every ~32 MB instead of SQLite's ~4 MB: a busy run then copies each
    // page it keeps rewriting (the instance rows) into the database file, and syncs, far less
    // often, on the thread that also drives the run (measured: ~10 % more decisions/s in
    // bench/decisions.ts). Durability is unchanged: a commit is in the WAL either way.
    this.db.pragma("wal_autocheckpoint = 8000");
    this.db.exec(SCHEMA);
  }

  runDir(run: string): string {
    return join(this.stateDir, "runs", run);
  }

  /** Appends an event to the buffer; it is committed within a few milliseconds, or by flush(). */
  append<T extends EventType>(run: string, type: T, task: string | null, key: string | null, payload: EventPayloads[T]): RunEvent {
    let seq = this.seqs.get(run);
    if (seq === undefined) {
      const row = this.stmts.maxSeq.get(run) as { m: number | null };
      seq = row.m ?? 0;
    }
    seq += 1;
    this.seqs.set(run, seq);
    const now = new Date();
    const time = now.toISOString();
    // For a generic T, TypeScript cannot see that (type, payload) is one member of the union.
    const row = { run, seq, time, type, task, key, payload, text: "", ms: now.getTime() } as PendingRow;
    this.serialise(row);
    this.buffer.push(row);
    if (this.buffer.length >= 4000) this.flushOrReport();
    else if (!this.timer) this.timer = setTimeout(() => this.flushOrReport(), 15);
    return { run, seq, time, type, task, key, payload } as RunEvent;
  }

  /**
   * Sets row.text to JSON.stringify(row.payload), and row.outputText to the JSON of its output
   * or record (the instance row's `output`), serialising that part once: the payload is
   * serialised with a marker string in its place, and the marker's JSON is then replaced by the
   * output's JSON, which is what JSON.stringify writes at that place.
   */
  private serialise(row: PendingRow): void {
    const field = OUTPUT_FIELD[row.type];
    const payload = row.payload as Record<string, unknown>;
    const value = field === undefined ? undefined : payload[field];
    const sub = value === undefined ? undefined : JSON.stringify(value);
    if (sub === undefined) {
      row.text = JSON.stringify(payload);
      return;
    }
    const outer = JSON.stringify({ ...payload, [field!]: this.marker });
    const at = outer.indexOf(this.markerJson);
    row.text = outer.slice(0, at) + sub + outer.slice(at + this.markerJson.length);
    row.outputText = sub;
  }

  /** Commits every buffered event (and its projection) in one transaction. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      this.commitRows(rows, true);
    } catch (err) {
      // Nothing of the batch was committed (one transaction): keep it for a later try.
      this.buffer = rows.concat(this.buffer);
      const fault = storageFault(err, join(this.stateDir, "switchyard.db"));
      if (!fault) throw err;
      this.faulted = true;
      if (!this.onFault) throw fault;
      this.onFault(fault);
      return;
    }
    this.committed += rows.length;
  }

  /** flush() where nobody could catch a fault (a timer, an append): reported, never thrown. */
  private flushOrReport(): void {
    try {
      this.flush();
    } catch (err) {
      if (!this.onFault || !storageFault(err, "")) throw err;
    }
  }

  /** Events appended but not committed (after a storage fault). */
  get uncommitted(): number {
    return this.buffer.length;
  }

  private commitRows(rows: PendingRow[], insert: boolean): void {
    const tx = this.db.transaction(() => {
      const projection = new Projection(this.stmts);
      let lastRun = "";
      let lastTime = 0;
      if (insert) this.insertEvents(rows);
      for (const r of rows) {
        // A resume counts the time up to the earlier invocation's last event, so that
        // event's time must be on the run row first — when rebuilding, both are in one batch.
        if (lastRun && r.type === "run_resumed" && lastRun === r.run) this.stmts.touchRun.run(lastTime, lastRun);
        projection.apply(r);
        if (lastRun && lastRun !== r.run) this.stmts.touchRun.run(lastTime, lastRun);
        lastRun = r.run;
        lastTime = r.ms;
      }
      if (lastRun) this.stmts.touchRun.run(lastTime, lastRun);
      projection.finish();
    });
    tx();
  }

  /** Inserts the events in order, EVENTS_PER_INSERT rows per statement (fewer calls into SQLite). */
  private insertEvents(rows: PendingRow[]): void {
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
        this.stmts.insertEvents.run(params);
      }
    }
    for (; i < rows.length; i++) {
      const r = rows[i]!;
      this.stmts.insertEvent.run(r.run, r.seq, r.time, r.type, r.task, r.key, r.text);
    }
  }

  close(): void {
    try {
      this.flush();
    } catch (err) {
      // A fault already reported (the command is ending because of it) is not thrown again.
      if (!(this.faulted && storageFault(err, ""))) throw err;
    } finally {
      this.db.close();
    }
  }

  /** Every event of a run in order (the truth R-4 folds). */
  *events(run: string): IterableIterator<RunEvent> {
    for (const r of this.stmts.events.iterate(run) as IterableIterator<StoredEvent>) {
      yield decodeEvent(run, r);
    }
  }

  eventCount(run: string): number {
    return (this.stmts.maxSeq.get(run) as { m: number | null }).m ?? 0;
  }

  /**
   * Drops the projections (of one run, or all) and replays the events through the same code
   * that maintains them live. Batches of events are applied as they were committed.
   */
  rebuild(run?: string): number {
    this.flush();
    const runs = run ? [run] : (this.db.prepare("SELECT DISTINCT run FROM events").pluck().all() as string[]);
    let n = 0;
    for (const r of runs) {
      this.db.transaction(() => {
        this.db.prepare("DELETE FROM runs WHERE run = ?").run(r);
        this.db.prepare("DELETE FROM tasks WHERE run = ?").run(r);
        this.db.prepare("DELETE FROM instances WHERE run = ?").run(r);
      })();
      // Read in pages, each one read whole before it is applied: the connection cannot write
      // while a statement still iterates over it.
      for (let after = 0; ;) {
        const page = this.stmts.eventsAfter.all(r, after, REBUILD_BATCH) as StoredEvent[];
        if (page.length === 0) break;
        const batch = page.map((e): PendingRow => ({ ...decodeEvent(r, e), text: "", ms: Date.parse(e.time) }));
        this.commitRows(batch, false);
        n += batch.length;
        after = page[page.length - 1]!.seq;
      }
      // The live projection touched inv_last once per committed batch; rebuilding in other
      // batches gives the same value because only the latest event time counts.
    }
    return n;
  }

  run(run: string): RunRow | undefined {
    const r = this.stmts.run.get(run) as
      (Omit<RunRow, "elapsed_ms"> & { prior_ms: number; inv_start: number; inv_last: number }) | undefined;
    if (!r) return undefined;
    const { prior_ms, inv_start, inv_last, ...rest } = r;
    return { ...rest, elapsed_ms: prior_ms + (inv_last - inv_start) };
  }

  runs(): RunRow[] {
    const ids = this.db.prepare("SELECT run FROM runs ORDER BY started_at, run").pluck().all() as string[];
    return ids.map((id) => this.run(id)!);
  }

  latestRun(): string | undefined {
    return this.db.prepare("SELECT run FROM runs ORDER BY started_at DESC, run DESC LIMIT 1").pluck().get() as string | undefined;
  }

  tasks(run: string): TaskRow[] {
    return (this.stmts.tasks.all(run) as Array<Omit<TaskRow, "mapped" | "summary"> & { mapped: number; summary: string | null }>).map(
      (t) => ({
        ...t,
        mapped: t.mapped === 1,
        summary: t.summary === null ? null : JSON.parse(t.summary),
      }),
    );
  }

  instances(run: string, task?: string): InstanceRow[] {
    const rows = (task ? this.stmts.instancesOfTask.all(run, task) : this.stmts.instances.all(run)) as Array<
      Omit<InstanceRow, "output"> & { key: string; output: string | null }
    >;
    return rows.map((r) => ({ ...r, key: r.key === UNMAPPED ? null : r.key, output: r.output === null ? null : JSON.parse(r.output) }));
  }
}

function prepare(db: DB) {
  return {
    insertEvent: db.prepare("INSERT INTO events (run, seq, time, type, task, key, payload) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    insertEvents: db.prepare(
      `INSERT INTO events (run, seq, time, type, task, key, payload) VALUES ${Array(EVENTS_PER_INSERT).fill("(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
    ),
    maxSeq: db.prepare("SELECT MAX(seq) AS m FROM events WHERE run = ?"),
    events: db.prepare("SELECT seq, time, type, task, key, payload FROM events WHERE run = ? ORDER BY seq"),
    eventsAfter: db.prepare("SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND seq > ? ORDER BY seq LIMIT ?"),
    touchRun: db.prepare("UPDATE runs SET inv_last = MAX(inv_last, ?) WHERE run = ?"),
    insertRun: db.prepare(
      "INSERT INTO runs (run, playbook, source, status, started_at, pid, prior_ms, inv_start, inv_last, spent_usd) VALUES (?, ?, ?, 'running', ?, ?, 0, ?, ?, 0)",
    ),
    resumeRun: db.prepare(
      "UPDATE runs SET status = 'running', finished_at = NULL, stop_reason = NULL, pid = ?, prior_ms = prior_ms + (inv_last - inv_start), inv_start = ?, inv_last = ? WHERE run = ?",
    ),
    endRun: db.prepare("UPDATE runs SET status = ?, stop_reason = ?, finished_at = ?, pid = NULL WHERE run = ?"),
    rerunRun: db.prepare("UPDATE runs SET status = 'running', finished_at = NULL, stop_reason = NULL, pid = ? WHERE run = ?"),
    taskReset: db.prepare("UPDATE tasks SET status = 'pending', summary = NULL, error = NULL WHERE run = ? AND task = ?"),
    charge: db.prepare("UPDATE runs SET spent_usd = spent_usd + ? WHERE run = ?"),
    insertTask: db.prepare("INSERT INTO tasks (run, task, ord, kind, mapped, status) VALUES (?, ?, ?, ?, ?, 'pending')"),
    taskExpanded: db.prepare("UPDATE tasks SET count = ?, status = 'running' WHERE run = ? AND task = ?"),
    taskRunning: db.prepare("UPDATE tasks SET status = 'running' WHERE run = ? AND task = ? AND status = 'pending'"),
    taskFailed: db.prepare("UPDATE tasks SET status = 'failed', error = ? WHERE run = ? AND task = ?"),
    taskSettled: db.prepare("UPDATE tasks SET status = ?, summary = ? WHERE run = ? AND task = ?"),
    upsertInstance: db.prepare(
      `INSERT INTO instances (run, task, key, status, attempts, output, error, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run, task, key) DO UPDATE SET status = excluded.status, attempts = MAX(attempts, excluded.attempts),
       output = excluded.output, error = excluded.error, label = excluded.label`,
    ),
    interrupt: db.prepare("UPDATE instances SET status = 'pending' WHERE run = ? AND task = ? AND key = ?"),
    run: db.prepare(
      "SELECT run, playbook, source, status, started_at, finished_at, stop_reason, pid, prior_ms, inv_start, inv_last, spent_usd FROM runs WHERE run = ?",
    ),
    tasks: db.prepare("SELECT task, kind, mapped, status, count, summary, error FROM tasks WHERE run = ? ORDER BY ord"),
    instances: db.prepare("SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = ? ORDER BY task, key"),
    instancesOfTask: db.prepare(
      "SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = ? AND task = ? ORDER BY key",
    ),
  };
}

type Statements = ReturnType<typeof prepare>;

/** An instance row's new values, as upsertInstance writes them. */
interface InstanceWrite {
  run: string;
  task: string;
  key: string;
  status: string;
  attempts: number;
  output: string | null;
  error: string | null;
  label: string | null;
}

/**
 * The projection of one batch: how its events change the runs/tasks/instances rows. Run and
 * task rows are written as each event comes (they are few); instance rows are collected per
 * (run, task, key) and written by finish(), once each, with the state that applying the batch's
 * events one by one leaves. Nothing in a batch reads an instance row, so writing them last is
 * the same as writing them in turn.
 */
class Projection {
  /** Per instance: its final upsert, or null when the batch only interrupted it. */
  private readonly writes = new Map<string, InstanceWrite | null>();
  private readonly interrupts: Array<[string, string, string]> = [];
  /** Tasks whose status this batch already set to running (taskRunning again changes nothing). */
  readonly running = new Set<string>();

  constructor(readonly s: Statements) {}

  /** upsertInstance, deferred: the later write wins, attempts keep their maximum (as in SQL). */
  upsert(w: InstanceWrite): void {
    const id = `${w.run}\u0000${w.task}\u0000${w.key}`;
    const before = this.writes.get(id);
    if (before && before.attempts > w.attempts) w.attempts = before.attempts;
    this.writes.set(id, w);
  }

  /** interrupt, deferred: a row this batch wrote turns pending; else the stored row does. */
  interrupt(run: string, task: string, key: string): void {
    const id = `${run}\u0000${task}\u0000${key}`;
    const before = this.writes.get(id);
    if (before) before.status = "pending";
    else if (before === undefined) {
      this.writes.set(id, null);
      this.interrupts.push([run, task, key]);
    }
  }

  taskRunning(run: string, task: string): void {
    const id = `${run}\u0000${task}`;
    if (this.running.has(id)) return;
    this.s.taskRunning.run(run, task);
    this.running.add(id);
  }

  apply(r: PendingRow): void {
    dispatch(PROJECT, r, this, r);
    const usd = chargedUsd(r);
    if (usd) this.s.charge.run(usd, r.run);
  }

  /** Writes the instance rows (interrupts of rows this batch did not write first). */
  finish(): void {
    for (const [run, task, key] of this.interrupts) this.s.interrupt.run(run, task, key);
    for (const w of this.writes.values())
      if (w) this.s.upsertInstance.run(w.run, w.task, w.key, w.status, w.attempts, w.output, w.error, w.label);
  }
}

/** A task's id in Projection.running. */
const taskId = (e: RunEvent): string => `${e.run}\u0000${e.task}`;

/** An instance event's task and key (UNMAPPED for an unmapped task's instance). */
const instanceOf = (e: RunEvent): { run: string; task: string; key: string } => ({ run: e.run, task: e.task!, key: e.key ?? UNMAPPED });

/** How each event changes the runs/tasks/instances rows (the projection of R-3); spend is charged by Projection.apply. */
const PROJECT: EventHandlers<[Projection, RowExtras]> = {
  plan_admitted: (e, p, r) => {
    p.s.insertRun.run(e.run, e.payload.plan.playbook, e.payload.source_path, e.time, e.payload.pid, r.ms, r.ms);
    e.payload.plan.tasks.forEach((task, i) => p.s.insertTask.run(e.run, task.name, i, task.kind, task.over ? 1 : 0));
  },
  run_resumed: (e, p, r) => void p.s.resumeRun.run(e.payload.pid, r.ms, r.ms, e.run),
  task_expanded: (e, p) => {
    p.s.taskExpanded.run(e.payload.count, e.run, e.task);
    p.running.add(taskId(e));
  },
  task_failed: (e, p) => {
    p.s.taskFailed.run(e.payload.error, e.run, e.task);
    p.running.delete(taskId(e));
  },
  instance_started: (e, p) => {
    p.upsert({ ...instanceOf(e), status: "running", attempts: e.payload.attempt, output: null, error: null, label: null });
    p.taskRunning(e.run, e.task!);
  },
  instance_finished: (e, p, r) => {
    const output = e.payload.output === undefined ? null : (r.outputText ?? JSON.stringify(e.payload.output));
    p.upsert({
      ...instanceOf(e),
      status: e.payload.status,
      attempts: e.payload.attempt,
      output,
      error: e.payload.error ?? null,
      label: null,
    });
  },
  instance_retried: (e, p) =>
    p.upsert({ ...instanceOf(e), status: "pending", attempts: e.payload.attempt, output: null, error: e.payload.error, label: null }),
  instance_interrupted: (e, p) => {
    const { run, task, key } = instanceOf(e);
    p.interrupt(run, task, key);
  },
  gate_closed: (e, p) =>
    p.upsert({ ...instanceOf(e), status: "not_taken", attempts: 0, output: null, error: null, label: e.payload.label ?? null }),
  decision_recorded: (e, p, r) =>
    p.upsert({
      ...instanceOf(e),
      status: "passed",
      attempts: e.payload.attempt,
      output: r.outputText ?? JSON.stringify(e.payload.record),
      error: null,
      label: null,
    }),
  revise_round: () => {}, // its cost is charged by apply(), like every event's
  fold_settled: (e, p) => {
    p.s.taskSettled.run(e.payload.status, JSON.stringify(e.payload.summary), e.run, e.task);
    p.running.delete(taskId(e));
  },
  task_settled: (e, p) => {
    p.s.taskSettled.run(e.payload.status, null, e.run, e.task);
    p.running.delete(taskId(e));
  },
  run_stopped: (e, p) => void p.s.endRun.run("stopped", e.payload.reason, null, e.run),
  run_cancelled: (e, p) => void p.s.endRun.run("cancelled", e.payload.reason, null, e.run),
  run_finished: (e, p) => void p.s.endRun.run(e.payload.status, null, e.time, e.run),
  rerun_requested: (e, p) => void p.s.rerunRun.run(e.payload.pid, e.run),
  instance_reset: (e, p) => p.upsert({ ...instanceOf(e), status: "pending", attempts: 0, output: null, error: null, label: null }),
  task_reset: (e, p) => {
    p.s.taskReset.run(e.run, e.task);
    p.running.delete(taskId(e));
  },
  pack_refreshed: () => {},
};
