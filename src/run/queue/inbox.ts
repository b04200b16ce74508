// The inbox: what workers report about the attempts they run. A worker writes
// `started`, one `round` per finished revise round and one `finished` with the outcome; the
// coordinator folds the rows into the run's events and marks them folded in the same transaction
// that appends those events — never by an id watermark, which loses a row whose smaller id
// commits after a larger one was read (research/distributed.md §4.4). `inbox_one_passed` makes a
// second passed result for one instance impossible.

import { queueDb, type Usage } from "../store/index.js";
import type { Outcome } from "../kinds/index.js";
import type { ReviseRound } from "../kinds/index.js";
import { queueNames } from "./names.js";

/** A connection or a pool: one statement at a time. */
export type Db = queueDb.Db;
/** The kinds of row a worker reports into the inbox: an attempt started, a revise round, an attempt finished. */
export type InboxKind = queueDb.InboxKind;
/** One row of the inbox, as the coordinator reads it. */
export type InboxRow = queueDb.InboxRow;
/** Which attempt an inbox row is about. */
export type InboxAddress = queueDb.InboxAddress;

/** What a `finished` row carries: the outcome, and the tail of the attempt's log. */
export interface FinishedReport {
  outcome: Outcome;
  log_tail?: string;
}

/** A revise round a worker reports as it ends. */
export interface RoundReport {
  round: ReviseRound;
  usage?: Usage;
}

/**
 * Writes one report and wakes the coordinator, in one transaction; false if it was already there.
 * A finished report deletes its graphile-worker job `job` in that transaction.
 */
export async function report(
  db: Db,
  schema: string,
  at: InboxAddress,
  worker: string,
  kind: InboxKind,
  payload: unknown,
  round = 0,
  job: string | null = null,
): Promise<boolean> {
  const status = kind === "finished" ? (payload as FinishedReport).outcome.status : null;
  return queueDb.insertInboxReport(db, schema, worker, queueNames(schema).inbox, {
    at,
    kind,
    round,
    status,
    payload: JSON.stringify(payload),
    job,
  });
}

/**
 * Before a job runs (one round trip): whether it must be skipped — its instance already passed,
 * or this attempt already reported its outcome (a job redelivered after its report) — and, if
 * not, its `started` report written. The coordinator is not woken for a start (its poll reads it):
 * only finished work changes what it records.
 */
export async function claimStart(db: Db, schema: string, at: InboxAddress, worker: string, payload: unknown): Promise<"skip" | "run"> {
  return (await queueDb.insertInboxStart(db, schema, worker, at, JSON.stringify(payload))) ? "skip" : "run";
}

/** The revise rounds this attempt already reported (a redelivered loop continues after them). */
export async function reportedRounds(db: Db, schema: string, at: InboxAddress): Promise<ReviseRound[]> {
  return (await queueDb.inboxRoundPayloads<RoundReport>(db, schema, at)).map((p) => p.round);
}
