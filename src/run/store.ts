// The run store: one SQLite database in WAL mode in the state folder. The `events`
// table is the truth; `runs`, `tasks` and `instances` are projections maintained by the same
// code that rebuilds them (applyEvent), so `switchyard runs --rebuild` gives identical rows.
//
// Appends are buffered and committed in small transactions (every few milliseconds, or when
// the buffer grows), so a busy run is not bound by one commit per event. `flush()` commits
// synchronously; the engine calls it before acting on anything recorded (a decision, an
// expansion), so whatever a later step depends on is on disk first. The buffer is FIFO, so the
// log on disk is always a prefix of what happened: never a later event without an earlier one.

import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EventPayloads, EventType, RunEvent, RunStatus } from "./events.js";

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

interface PendingRow {
  run: string;
  seq: number;
  time: string;
  type: EventType;
  task: string | null;
  key: string | null;
  payload: unknown;
  text: string;
}

/** Unmapped instances are stored under the empty key (element keys are 1–256 characters, M-1). */
const UNMAPPED = "";

export class Store {
  readonly db: DB;
  readonly stateDir: string;
  private buffer: PendingRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private seqs = new Map<string, number>();
  private stmts: ReturnType<typeof prepare>;
  /** Events committed so far by this store (for figures). */
  committed = 0;

  constructor(stateDir: string) {
    this.stateDir = stateDir;
    mkdirSync(join(stateDir, "runs"), { recursive: true });
    this.db = new Database(join(stateDir, "switchyard.db"));
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(SCHEMA);
    this.stmts = prepare(this.db);
  }

  runDir(run: string): string {
    return join(this.stateDir, "runs", run);
  }

  /** Appends an event to the buffer; it is committed within a few milliseconds, or by flush(). */
  append<T extends EventType>(run: string, type: T, task: string | null, key: string | null, payload: EventPayloads[T]): RunEvent<T> {
    let seq = this.seqs.get(run);
    if (seq === undefined) {
      const row = this.stmts.maxSeq.get(run) as { m: number | null };
      seq = row.m ?? 0;
    }
    seq += 1;
    this.seqs.set(run, seq);
    const time = new Date().toISOString();
    const text = JSON.stringify(payload);
    this.buffer.push({ run, seq, time, type, task, key, payload, text });
    if (this.buffer.length >= 4000) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), 15);
    return { run, seq, time, type, task, key, payload };
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
    this.commitRows(rows, true);
    this.committed += rows.length;
  }

  private commitRows(rows: PendingRow[], insert: boolean): void {
    const tx = this.db.transaction(() => {
      let lastRun = "";
      let lastTime = 0;
      for (const r of rows) {
        if (insert) this.stmts.insertEvent.run(r.run, r.seq, r.time, r.type, r.task, r.key, r.text);
        applyEvent(this.stmts, r);
        if (lastRun && lastRun !== r.run) this.stmts.touchRun.run(lastTime, lastRun);
        lastRun = r.run;
        lastTime = Date.parse(r.time);
      }
      if (lastRun) this.stmts.touchRun.run(lastTime, lastRun);
    });
    tx();
  }

  close(): void {
    this.flush();
    this.db.close();
  }

  /** Every event of a run in order (the truth R-4 folds). */
  *events(run: string): IterableIterator<RunEvent> {
    for (const r of this.stmts.events.iterate(run) as IterableIterator<{
      seq: number;
      time: string;
      type: EventType;
      task: string | null;
      key: string | null;
      payload: string;
    }>) {
      yield { run, seq: r.seq, time: r.time, type: r.type, task: r.task, key: r.key, payload: JSON.parse(r.payload) } as RunEvent;
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
      let batch: PendingRow[] = [];
      for (const e of this.events(r)) {
        batch.push({ run: r, seq: e.seq, time: e.time, type: e.type, task: e.task, key: e.key, payload: e.payload, text: "" });
        if (batch.length >= 4000) {
          this.commitRows(batch, false);
          n += batch.length;
          batch = [];
        }
      }
      if (batch.length) this.commitRows(batch, false);
      n += batch.length;
      // The live projection touched inv_last once per committed batch; rebuilding in other
      // batches gives the same value because only the latest event time counts.
    }
    return n;
  }

  run(run: string): RunRow | undefined {
    const r = this.stmts.run.get(run) as (Omit<RunRow, "elapsed_ms"> & { prior_ms: number; inv_start: number; inv_last: number }) | undefined;
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
    return (this.stmts.tasks.all(run) as Array<Omit<TaskRow, "mapped" | "summary"> & { mapped: number; summary: string | null }>).map((t) => ({
      ...t,
      mapped: t.mapped === 1,
      summary: t.summary === null ? null : JSON.parse(t.summary),
    }));
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
    maxSeq: db.prepare("SELECT MAX(seq) AS m FROM events WHERE run = ?"),
    events: db.prepare("SELECT seq, time, type, task, key, payload FROM events WHERE run = ? ORDER BY seq"),
    touchRun: db.prepare("UPDATE runs SET inv_last = MAX(inv_last, ?) WHERE run = ?"),
    insertRun: db.prepare(
      "INSERT INTO runs (run, playbook, source, status, started_at, pid, prior_ms, inv_start, inv_last, spent_usd) VALUES (?, ?, ?, 'running', ?, ?, 0, ?, ?, 0)",
    ),
    resumeRun: db.prepare(
      "UPDATE runs SET status = 'running', finished_at = NULL, stop_reason = NULL, pid = ?, prior_ms = prior_ms + (inv_last - inv_start), inv_start = ?, inv_last = ? WHERE run = ?",
    ),
    endRun: db.prepare("UPDATE runs SET status = ?, stop_reason = ?, finished_at = ?, pid = NULL WHERE run = ?"),
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
    instancesOfTask: db.prepare("SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = ? AND task = ? ORDER BY key"),
  };
}

/** The projection: how one event changes the runs/tasks/instances rows. */
function applyEvent(s: ReturnType<typeof prepare>, r: PendingRow): void {
  const key = r.key ?? UNMAPPED;
  const t = Date.parse(r.time);
  switch (r.type) {
    case "plan_admitted": {
      const p = r.payload as EventPayloads["plan_admitted"];
      s.insertRun.run(r.run, p.plan.playbook, p.source_path, r.time, p.pid, t, t);
      p.plan.tasks.forEach((task, i) => s.insertTask.run(r.run, task.name, i, task.kind, task.over ? 1 : 0));
      break;
    }
    case "run_resumed": {
      const p = r.payload as EventPayloads["run_resumed"];
      s.resumeRun.run(p.pid, t, t, r.run);
      break;
    }
    case "task_expanded":
      s.taskExpanded.run((r.payload as EventPayloads["task_expanded"]).count, r.run, r.task);
      break;
    case "task_failed":
      s.taskFailed.run((r.payload as EventPayloads["task_failed"]).error, r.run, r.task);
      break;
    case "instance_started": {
      const p = r.payload as EventPayloads["instance_started"];
      s.upsertInstance.run(r.run, r.task, key, "running", p.attempt, null, null, null);
      s.taskRunning.run(r.run, r.task);
      break;
    }
    case "instance_finished": {
      const p = r.payload as EventPayloads["instance_finished"];
      s.upsertInstance.run(r.run, r.task, key, p.status, p.attempt, p.output === undefined ? null : JSON.stringify(p.output), p.error ?? null, null);
      if (p.usage?.cost_usd) s.charge.run(p.usage.cost_usd, r.run);
      break;
    }
    case "instance_retried": {
      const p = r.payload as EventPayloads["instance_retried"];
      s.upsertInstance.run(r.run, r.task, key, "pending", p.attempt, null, p.error, null);
      if (p.usage?.cost_usd) s.charge.run(p.usage.cost_usd, r.run);
      break;
    }
    case "instance_interrupted":
      s.interrupt.run(r.run, r.task, key);
      break;
    case "gate_closed": {
      const p = r.payload as EventPayloads["gate_closed"];
      s.upsertInstance.run(r.run, r.task, key, "not_taken", 0, null, null, p.label ?? null);
      break;
    }
    case "decision_recorded": {
      const p = r.payload as EventPayloads["decision_recorded"];
      s.upsertInstance.run(r.run, r.task, key, "passed", p.attempt, JSON.stringify(p.record), null, null);
      break;
    }
    case "revise_round": {
      const p = r.payload as EventPayloads["revise_round"];
      if (p.usage?.cost_usd) s.charge.run(p.usage.cost_usd, r.run);
      break;
    }
    case "fold_settled": {
      const p = r.payload as EventPayloads["fold_settled"];
      s.taskSettled.run(p.status, JSON.stringify(p.summary), r.run, r.task);
      break;
    }
    case "task_settled":
      s.taskSettled.run((r.payload as EventPayloads["task_settled"]).status, null, r.run, r.task);
      break;
    case "run_stopped":
      s.endRun.run("stopped", (r.payload as EventPayloads["run_stopped"]).reason, null, r.run);
      break;
    case "run_cancelled":
      s.endRun.run("cancelled", (r.payload as EventPayloads["run_cancelled"]).reason, null, r.run);
      break;
    case "run_finished":
      s.endRun.run((r.payload as EventPayloads["run_finished"]).status, null, r.time, r.run);
      break;
  }
}
