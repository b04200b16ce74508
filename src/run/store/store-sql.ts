// The statements both stores run on the event log and its projections, in both dialects (a Sql:
// SQLite's text, and PostgreSQL's where it is not the same text with numbered parameters).

import type { ProjectionOps } from "./projection.js";
import type { Sql } from "./store.js";

const q = (sqlite: string, postgres?: string): Sql => (postgres === undefined ? { sqlite } : { sqlite, postgres });

/** The SQL of the event log, in SQLite's dialect and PostgreSQL's where they differ. */
export const LOG_SQL = {
  maxSeq: q("SELECT MAX(seq) AS m FROM events WHERE run = ?"),
  eventsAfter: q("SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND seq > ? ORDER BY seq LIMIT ?"),
  eventRuns: q("SELECT DISTINCT run FROM events ORDER BY run"),
  run: q(
    "SELECT run, playbook, source, status, started_at, finished_at, stop_reason, pid, prior_ms, inv_start, inv_last, spent_usd FROM runs WHERE run = ?",
  ),
  runIds: q("SELECT run FROM runs ORDER BY started_at, run"),
  latestRun: q("SELECT run FROM runs ORDER BY started_at DESC, run DESC LIMIT 1"),
  tasks: q("SELECT task, kind, mapped, status, count, summary, error FROM tasks WHERE run = ? ORDER BY ord"),
  instances: q("SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = ? ORDER BY task, key"),
  instancesOfTask: q("SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = ? AND task = ? ORDER BY key"),
  clearRun: q("DELETE FROM runs WHERE run = ?"),
  clearTasks: q("DELETE FROM tasks WHERE run = ?"),
  clearInstances: q("DELETE FROM instances WHERE run = ?"),
};

/** The SQL of each projection row write (ProjectionOps), the parameters in the order listed there. */
export const PROJECTION_SQL: Record<Exclude<keyof ProjectionOps, "upsertInstances">, Sql> = {
  touchRun: q(
    "UPDATE runs SET inv_last = MAX(inv_last, ?) WHERE run = ?",
    "UPDATE runs SET inv_last = GREATEST(inv_last, $1) WHERE run = $2",
  ),
  insertRun: q(
    "INSERT INTO runs (run, playbook, source, status, started_at, pid, prior_ms, inv_start, inv_last, spent_usd) VALUES (?, ?, ?, 'running', ?, ?, 0, ?, ?, 0)",
  ),
  resumeRun: q(
    "UPDATE runs SET status = 'running', finished_at = NULL, stop_reason = NULL, pid = ?, prior_ms = prior_ms + (inv_last - inv_start), inv_start = ?, inv_last = ? WHERE run = ?",
  ),
  endRun: q("UPDATE runs SET status = ?, stop_reason = ?, finished_at = ?, pid = NULL WHERE run = ?"),
  rerunRun: q("UPDATE runs SET status = 'running', finished_at = NULL, stop_reason = NULL, pid = ? WHERE run = ?"),
  taskReset: q("UPDATE tasks SET status = 'pending', summary = NULL, error = NULL WHERE run = ? AND task = ?"),
  charge: q("UPDATE runs SET spent_usd = spent_usd + ? WHERE run = ?"),
  insertTask: q("INSERT INTO tasks (run, task, ord, kind, mapped, status) VALUES (?, ?, ?, ?, ?, 'pending')"),
  taskExpanded: q("UPDATE tasks SET count = ?, status = 'running' WHERE run = ? AND task = ?"),
  taskRunning: q("UPDATE tasks SET status = 'running' WHERE run = ? AND task = ? AND status = 'pending'"),
  taskFailed: q("UPDATE tasks SET status = 'failed', error = ? WHERE run = ? AND task = ?"),
  taskSettled: q("UPDATE tasks SET status = ?, summary = ? WHERE run = ? AND task = ?"),
  interrupt: q("UPDATE instances SET status = 'pending' WHERE run = ? AND task = ? AND key = ?"),
};
