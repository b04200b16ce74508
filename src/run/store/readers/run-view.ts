// The reads of the web view (src/ui/run-reader.ts): counts, the grid, a cell, a page of instances
// and fingerprints, each a named query in both stores' dialects. Only reads: the store is never
// appended to. Every query but the whole-folder counts is bounded by one run (the events table's
// key is (run, seq)), so a page costs what that run holds, not what the folder holds.

import type { Sql, Store } from "../store.js";

// The queries, in both stores' dialects (PostgreSQL's where it is not SQLite's with numbered parameters).
const Q = {
  counts: { sqlite: "SELECT run, status, COUNT(*) AS n FROM instances GROUP BY run, status" },
  countsByTask: { sqlite: "SELECT task, status, COUNT(*) AS n FROM instances WHERE run = ? GROUP BY task, status" },
  decisions: {
    sqlite:
      "SELECT i.run AS run, COUNT(*) AS n FROM instances i JOIN tasks t ON t.run = i.run AND t.task = i.task WHERE t.kind = 'route' AND i.status = 'passed' GROUP BY i.run",
  },
  plan: { sqlite: "SELECT payload FROM events WHERE run = ? AND seq = 1" },
  cellEvents: {
    sqlite: "SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND task = ? AND key IS ? ORDER BY seq",
    postgres:
      "SELECT seq, time, type, task, key, payload FROM events WHERE run = $1 AND task = $2 AND key IS NOT DISTINCT FROM $3 ORDER BY seq",
  },
  code: {
    sqlite:
      "SELECT json_extract(payload, '$.code') AS code FROM events WHERE run = ? AND task = ? AND key IS ? AND type IN ('instance_finished', 'instance_retried', 'task_failed') ORDER BY seq DESC LIMIT 1",
    postgres:
      "SELECT (payload::jsonb)->>'code' AS code FROM events WHERE run = $1 AND task = $2 AND key IS NOT DISTINCT FROM $3 AND type IN ('instance_finished', 'instance_retried', 'task_failed') ORDER BY seq DESC LIMIT 1",
  },
  grid: { sqlite: "SELECT task, key, status, output, label FROM instances WHERE run = ? AND key <> '' ORDER BY task, key" },
  instance: { sqlite: "SELECT status, attempts, output, error, label FROM instances WHERE run = ? AND task = ? AND key = ?" },
  changed: { sqlite: "SELECT run, status, inv_last, spent_usd FROM runs" },
  // Parameters: run, then task, status and key substring (each null for any) twice each, then limit and offset.
  page: {
    sqlite: `SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = ? AND (? IS NULL OR task = ?)
      AND (? IS NULL OR status = ?) AND (? IS NULL OR instr(key, ?) > 0) ORDER BY task, key LIMIT ? OFFSET ?`,
    postgres: `SELECT task, key, status, attempts, output, error, label FROM instances WHERE run = $1 AND ($2::text IS NULL OR task = $3)
      AND ($4::text IS NULL OR status = $5) AND ($6::text IS NULL OR strpos(key, $7) > 0) ORDER BY task, key LIMIT $8 OFFSET $9`,
  },
  pageCount: {
    sqlite: `SELECT COUNT(*) AS n FROM instances WHERE run = ? AND (? IS NULL OR task = ?)
      AND (? IS NULL OR status = ?) AND (? IS NULL OR instr(key, ?) > 0)`,
    postgres: `SELECT COUNT(*) AS n FROM instances WHERE run = $1 AND ($2::text IS NULL OR task = $3)
      AND ($4::text IS NULL OR status = $5) AND ($6::text IS NULL OR strpos(key, $7) > 0)`,
  },
} satisfies Record<string, Sql>;

/** How many instances have one status: per run (instanceCountsByRun) or per task of a run. */
export interface StatusCount {
  status: string;
  n: number;
}

/** An instance's row as the projection keeps it: output still as JSON text. */
export interface RawInstance {
  status: string;
  attempts: number;
  output: string | null;
  error: string | null;
  label: string | null;
}

/** An event's row as the store keeps it: payload still as JSON text. */
export interface RawEventRow {
  seq: number;
  time: string;
  type: string;
  task: string | null;
  key: string | null;
  payload: string;
}

/** One cell of the grid: a mapped instance's task, key, status, output (JSON text) and label. */
export interface GridRow {
  task: string;
  key: string;
  status: string;
  output: string | null;
  label: string | null;
}

/** Which instances a page holds: each field null for any; `key` is a substring of the key. */
export interface InstancePageQuery {
  task: string | null;
  status: string | null;
  key: string | null;
  limit: number;
  offset: number;
}

/** Instances per run and status, over every run of the store. */
export function instanceCountsByRun(store: Store): Array<StatusCount & { run: string }> {
  return store.select(Q.counts, []);
}

/** Instances per task and status of one run. */
export function instanceCountsByTask(store: Store, run: string): Array<StatusCount & { task: string }> {
  return store.select(Q.countsByTask, [run]);
}

/** Passed route instances (decisions made) per run, over every run that has any. */
export function decisionCountsByRun(store: Store): Array<{ run: string; n: number }> {
  return store.select(Q.decisions, []);
}

/** The payload (JSON text) of a run's first event, the plan_admitted that holds its plan. */
export function admittedPayload(store: Store, run: string): string | undefined {
  return store.select<{ payload: string }>(Q.plan, [run])[0]?.payload;
}

/** Every event of one instance (key null: an unmapped task's), in order. */
export function instanceEvents(store: Store, run: string, task: string, key: string | null): RawEventRow[] {
  return store.select(Q.cellEvents, [run, task, key]);
}

/** The code of the instance's latest failure or retry (or its task's failure), or null. */
export function latestFailureCode(store: Store, run: string, task: string, key: string | null): string | null {
  return store.select<{ code: string | null }>(Q.code, [run, task, key])[0]?.code ?? null;
}

/** Every mapped instance of a run, ordered by task and key. */
export function gridRows(store: Store, run: string): GridRow[] {
  return store.select(Q.grid, [run]);
}

/** One instance's row (key "" for an unmapped task's), or undefined. */
export function instanceRow(store: Store, run: string, task: string, key: string): RawInstance | undefined {
  return store.select<RawInstance>(Q.instance, [run, task, key])[0];
}

/** Per run: its status, its last invocation's activity and its spend (what tells a changed run). */
export function runActivity(store: Store): Array<{ run: string; status: string; inv_last: number; spent_usd: number }> {
  return store.select(Q.changed, []);
}

/** A page of a run's instances matching the query, ordered by task and key, and how many match in all. */
export function instancePage(
  store: Store,
  run: string,
  q: InstancePageQuery,
): { total: number; rows: Array<RawInstance & { task: string; key: string }> } {
  const params = [run, q.task, q.task, q.status, q.status, q.key, q.key, q.limit, q.offset];
  const total = store.select<{ n: number }>(Q.pageCount, params.slice(0, 7))[0]?.n ?? 0;
  return { total, rows: store.select(Q.page, params) };
}
