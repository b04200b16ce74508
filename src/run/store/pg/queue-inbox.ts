// The inbox table's statements: what workers report about the attempts they run (`started`, one
// `round` per revise round, one `finished`), and the coordinator's reads and folded marks. The
// queue room (src/run/queue/inbox.ts, inbox-writer.ts) decides what is reported and when; a
// grouped statement does for each row exactly what the single one does.

import type { Pool } from "pg";
import { ident, type Db } from "./queue-tables.js";

/** What a worker reports to the coordinator's inbox about an attempt. */
export type InboxKind = "started" | "round" | "finished";

/** An inbox row as the coordinator reads it (the id as text: a bigint). */
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

/** The attempt a row is about; an unmapped instance's key is null (stored as ""). */
export interface InboxAddress {
  run: string;
  task: string;
  key: string | null;
  attempt: number;
}

/** One report of a group: its attempt, kind, round, outcome status (finished only) and payload as JSON. */
export interface InboxReportRow {
  at: InboxAddress;
  kind: InboxKind;
  round: number;
  status: string | null;
  payload: string;
}

/**
 * Writes one report and notifies `channel` (payload: the run), in one statement so both commit
 * together; false if it was already there.
 */
export async function insertInboxReport(db: Db, schema: string, worker: string, channel: string, r: InboxReportRow): Promise<boolean> {
  // One statement: the insert and the notification commit together (a CTE runs both).
  const res = await db.query(
    `with ins as (
       insert into ${ident(schema)}.inbox (run, task, key, attempt, kind, round, status, payload, worker)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict do nothing returning id)
     select id, pg_notify($10, $1) from ins`,
    [r.at.run, r.at.task, r.at.key ?? "", r.at.attempt, r.kind, r.round, r.status, r.payload, worker, channel],
  );
  return (res.rowCount ?? 0) > 0;
}

/**
 * In one round trip: whether the attempt must be skipped (its instance passed, or this attempt
 * already finished) and, if not, its `started` row written with `payload` (JSON). True: skip.
 */
export async function insertInboxStart(db: Db, schema: string, worker: string, at: InboxAddress, payload: string): Promise<boolean> {
  const t = `${ident(schema)}.inbox`;
  const r = await db.query<{ done: boolean }>(
    `with done as (
       select 1 from ${t} where run = $1 and task = $2 and key = $3 and kind = 'finished' and (status = 'passed' or attempt = $4) limit 1),
     ins as (
       insert into ${t} (run, task, key, attempt, kind, round, status, payload, worker)
       select $1, $2, $3, $4, 'started', 0, null, $5, $6 where not exists (select 1 from done)
       on conflict do nothing returning id)
     select exists (select 1 from done) as done, (select count(*) from ins) as wrote`,
    [at.run, at.task, at.key ?? "", at.attempt, payload, worker],
  );
  return Boolean(r.rows[0]?.done);
}

/** As insertInboxStart for many attempts in one statement: the positions (1-based) of those to skip. */
export async function insertInboxStarts(
  pool: Pool,
  schema: string,
  worker: string,
  batch: Array<{ at: InboxAddress; payload: string }>,
): Promise<Set<number>> {
  const t = `${ident(schema)}.inbox`;
  const r = await pool.query<{ o: string }>(
    `with req as (
       select * from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[]) with ordinality as r(run, task, key, attempt, payload, o)),
     done as (
       select r.o from req r where exists (
         select 1 from ${t} i where i.run = r.run and i.task = r.task and i.key = r.key and i.kind = 'finished'
           and (i.status = 'passed' or i.attempt = r.attempt))),
     ins as (
       insert into ${t} (run, task, key, attempt, kind, round, status, payload, worker)
       select run, task, key, attempt, 'started', 0, null, payload, $6 from req where o not in (select o from done)
       on conflict do nothing returning id)
     select o::text from done`,
    [
      batch.map((c) => c.at.run),
      batch.map((c) => c.at.task),
      batch.map((c) => c.at.key ?? ""),
      batch.map((c) => c.at.attempt),
      batch.map((c) => c.payload),
      worker,
    ],
  );
  return new Set(r.rows.map((row) => Number(row.o)));
}

/** As insertInboxReport for many reports in one statement (one notification per run reaches a listener). */
export async function insertInboxReports(
  pool: Pool,
  schema: string,
  worker: string,
  channel: string,
  batch: InboxReportRow[],
): Promise<void> {
  const t = `${ident(schema)}.inbox`;
  // Identical notifications in one transaction reach a listener once: one wake-up per run.
  await pool.query(
    `with ins as (
       insert into ${t} (run, task, key, attempt, kind, round, status, payload, worker)
       select run, task, key, attempt, kind, round, status, payload, $9
       from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::jsonb[])
         with ordinality as r(run, task, key, attempt, kind, round, status, payload, o)
       order by o
       on conflict do nothing returning run)
     select pg_notify($10, run) from ins`,
    [
      batch.map((x) => x.at.run),
      batch.map((x) => x.at.task),
      batch.map((x) => x.at.key ?? ""),
      batch.map((x) => x.at.attempt),
      batch.map((x) => x.kind),
      batch.map((x) => x.round),
      batch.map((x) => x.status),
      batch.map((x) => x.payload),
      worker,
      channel,
    ],
  );
}

/** The payloads of the `round` rows this attempt reported, in round order. */
export async function inboxRoundPayloads<P>(db: Db, schema: string, at: InboxAddress): Promise<P[]> {
  const r = await db.query<{ payload: P }>(
    `select payload from ${ident(schema)}.inbox where run = $1 and task = $2 and key = $3 and attempt = $4 and kind = 'round' order by round`,
    [at.run, at.task, at.key ?? "", at.attempt],
  );
  return r.rows.map((row) => row.payload);
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

/** The statement that marks rows folded (run in the transaction that appends their events): $1 the ids. */
export function markFoldedSql(schema: string): string {
  return `update ${ident(schema)}.inbox set folded = true where id = any($1::bigint[])`;
}

/** Marks rows folded at once (rows nothing will append events for). */
export async function markFolded(db: Db, schema: string, ids: string[]): Promise<void> {
  await db.query(markFoldedSql(schema), [ids]);
}
