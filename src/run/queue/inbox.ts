// The inbox (issue 17 item 2): what workers report about the attempts they run. A worker writes
// `started`, one `round` per finished revise round and one `finished` with the outcome; the
// coordinator folds the rows into the run's events and marks them folded in the same transaction
// that appends those events — never by an id watermark, which loses a row whose smaller id
// commits after a larger one was read (research/distributed.md §4.4). `inbox_one_passed` makes a
// second passed result for one instance impossible.

import type { ClientBase, Pool } from "pg";

/** A connection or a pool: one statement at a time. */
export type Db = ClientBase | Pool;
import type { Usage } from "../store/index.js";
import type { Outcome } from "../kinds/index.js";
import type { ReviseRound } from "../kinds/index.js";
import { ident, queueNames } from "./names.js";

export type InboxKind = "started" | "round" | "finished";

/** What a `finished` row carries: the outcome, and the tail of the attempt's log. */
export interface FinishedReport {
  outcome: Outcome;
  log_tail?: string;
}

export interface RoundReport {
  round: ReviseRound;
  usage?: Usage;
}

export interface InboxRow {
  id: string;
  task: string;
  key: string;
  attempt: number;
  kind: InboxKind;
  round: number;
  payload: unknown;
  worker: string;
}

export interface InboxAddress {
  run: string;
  task: string;
  key: string | null;
  attempt: number;
}

/** Writes one report and wakes the coordinator, in one transaction; false if it was already there. */
export async function report(
  db: Db,
  schema: string,
  at: InboxAddress,
  worker: string,
  kind: InboxKind,
  payload: unknown,
  round = 0,
): Promise<boolean> {
  const status = kind === "finished" ? (payload as FinishedReport).outcome.status : null;
  // One statement: the insert and the notification commit together (a CTE runs both).
  const r = await db.query(
    `with ins as (
       insert into ${ident(schema)}.inbox (run, task, key, attempt, kind, round, status, payload, worker)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict do nothing returning id)
     select id, pg_notify($10, $1) from ins`,
    [at.run, at.task, at.key ?? "", at.attempt, kind, round, status, JSON.stringify(payload), worker, queueNames(schema).inbox],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * Before a job runs (one round trip): whether it must be skipped — its instance already passed,
 * or this attempt already reported its outcome (a job redelivered after its report) — and, if
 * not, its `started` report written. The coordinator is not woken for a start (its poll reads it):
 * only finished work changes what it records.
 */
export async function claimStart(db: Db, schema: string, at: InboxAddress, worker: string, payload: unknown): Promise<"skip" | "run"> {
  const t = `${ident(schema)}.inbox`;
  const r = await db.query<{ done: boolean }>(
    `with done as (
       select 1 from ${t} where run = $1 and task = $2 and key = $3 and kind = 'finished' and (status = 'passed' or attempt = $4) limit 1),
     ins as (
       insert into ${t} (run, task, key, attempt, kind, round, status, payload, worker)
       select $1, $2, $3, $4, 'started', 0, null, $5, $6 where not exists (select 1 from done)
       on conflict do nothing returning id)
     select exists (select 1 from done) as done, (select count(*) from ins) as wrote`,
    [at.run, at.task, at.key ?? "", at.attempt, JSON.stringify(payload), worker],
  );
  return r.rows[0]?.done ? "skip" : "run";
}

/** The revise rounds this attempt already reported (a redelivered loop continues after them). */
export async function reportedRounds(db: Db, schema: string, at: InboxAddress): Promise<ReviseRound[]> {
  const r = await db.query<{ payload: RoundReport }>(
    `select payload from ${ident(schema)}.inbox where run = $1 and task = $2 and key = $3 and attempt = $4 and kind = 'round' order by round`,
    [at.run, at.task, at.key ?? "", at.attempt],
  );
  return r.rows.map((row) => row.payload.round);
}

/**
 * The run's rows not yet folded, in id order; with `after`, only rows with a higher id. Ids are
 * taken before commit, so a row may become visible after one with a higher id: a reader that
 * follows a watermark must also read everything now and then (the coordinator's poll does).
 */
export async function unfolded(db: Db, schema: string, run: string, after?: string): Promise<InboxRow[]> {
  const r = await db.query<InboxRow>(
    `select id::text, task, key, attempt, kind, round, payload, worker from ${ident(schema)}.inbox
     where run = $1 and not folded and id > $2 order by id`,
    [run, after ?? "0"],
  );
  return r.rows;
}

/** The statement that marks rows folded (run in the transaction that appends their events). */
export function markFoldedSql(schema: string): string {
  return `update ${ident(schema)}.inbox set folded = true where id = any($1::bigint[])`;
}
