// The projection of the event log: how each event changes the `runs`, `tasks` and
// `instances` rows. Both stores (store-sqlite.ts, store-postgres.ts) apply it with the same code,
// live in the transaction that commits a batch of events and again by `runs --rebuild`; each
// store only says how one row write is carried out (ProjectionOps: a prepared SQLite statement,
// or a PostgreSQL statement added to the batch's transaction).

import { chargedUsd, dispatch, eventTask, type EventHandlers, type EventType, type RunEvent } from "./events.js";

/** What a buffered event carries besides the event itself. */
export interface RowExtras {
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

/** An event waiting to be written, with the projection rows it updates. */
export type PendingRow = RunEvent & RowExtras;

/** Payload fields that are also written to an instance row's `output` column. */
export const OUTPUT_FIELD: Partial<Record<EventType, "output" | "record">> = { instance_finished: "output", decision_recorded: "record" };

/** Unmapped instances are stored under the empty key (element keys are 1–256 characters, M-1). */
export const UNMAPPED = "";

/** One row write of the projection, with its parameters in the order the SQLite statement takes them. */
export interface Op {
  run(...params: unknown[]): unknown;
}

/** The row writes a store carries out for the projection (the SQL of each is in the store). */
export interface ProjectionOps {
  touchRun: Op; // (inv_last, run): inv_last = max(inv_last, ?)
  insertRun: Op; // (run, playbook, source, started_at, pid, inv_start, inv_last)
  resumeRun: Op; // (pid, inv_start, inv_last, run)
  endRun: Op; // (status, stop_reason, finished_at, run)
  rerunRun: Op; // (pid, run)
  taskReset: Op; // (run, task)
  charge: Op; // (usd, run)
  insertTask: Op; // (run, task, ord, kind, mapped)
  taskExpanded: Op; // (count, run, task)
  taskRunning: Op; // (run, task): pending → running
  taskFailed: Op; // (error, run, task)
  taskSettled: Op; // (status, summary, run, task)
  interrupt: Op; // (run, task, key): the stored row turns pending
  /** Upserts instance rows, at most one per (run, task, key); attempts keep their maximum. */
  upsertInstances(rows: InstanceWrite[]): void;
}

/**
 * Applies a batch of events to the projections through `ops`, in order, as one committed batch
 * does (the caller holds the transaction).
 */
export function projectBatch(ops: ProjectionOps, rows: PendingRow[]): void {
  const projection = new Projection(ops);
  let lastRun = "";
  let lastTime = 0;
  for (const r of rows) {
    // A resume counts the time up to the earlier invocation's last event, so that
    // event's time must be on the run row first — when rebuilding, both are in one batch.
    if (lastRun && r.type === "run_resumed" && lastRun === r.run) ops.touchRun.run(lastTime, lastRun);
    projection.apply(r);
    if (lastRun && lastRun !== r.run) ops.touchRun.run(lastTime, lastRun);
    lastRun = r.run;
    lastTime = r.ms;
  }
  if (lastRun) ops.touchRun.run(lastTime, lastRun);
  projection.finish();
}

/** An instance row's new values, as upsertInstance writes them. */
export interface InstanceWrite {
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

  constructor(readonly s: ProjectionOps) {}

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
    const rows: InstanceWrite[] = [];
    for (const w of this.writes.values()) if (w) rows.push(w);
    if (rows.length) this.s.upsertInstances(rows);
  }
}

/** A task's id in Projection.running. */
const taskId = (e: RunEvent): string => `${e.run}\u0000${e.task}`;

/** An instance event's task and key (UNMAPPED for an unmapped task's instance). */
const instanceOf = (e: RunEvent): { run: string; task: string; key: string } => ({
  run: e.run,
  task: eventTask(e),
  key: e.key ?? UNMAPPED,
});

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
    p.taskRunning(e.run, eventTask(e));
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
  review_requested: (e, p) =>
    p.upsert({ ...instanceOf(e), status: "waiting", attempts: e.payload.attempt, output: null, error: null, label: null }),
  review_answered: () => {}, // the instance stays waiting until its decision is recorded
  run_waiting: (e, p) => void p.s.endRun.run("waiting", e.payload.reason, null, e.run),
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
