// The inbox table's statements: what workers report about the attempts they run (`started`, one
// `round` per revise round, one `finished`), and the coordinator's reads and folded marks. The
// queue room (src/run/queue/inbox.ts, inbox-writer.ts) decides what is reported and when; a
// grouped statement does for each row exactly what the single one does.

import type { Pool } from "pg";
import { ident, QUEUE_SCHEMA, type Db } from "./queue-tables.js";

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

/**
 * One report of a group: its attempt, kind, round, outcome status (finished only) and payload as
 * JSON; for a finished report, the graphile-worker job it ends (deleted with the report).
 */
export interface InboxReportRow {
  at: InboxAddress;
  kind: InboxKind;
  round: number;
  status: string | null;
  payload: string;
  job?: string | null;
}

/** The job rows a finished report deletes: the job is done once its report is committed. */
const deleteJobs = (param: string) => `delete from ${QUEUE_SCHEMA}._private_jobs where id = any(${param}::bigint[])`;

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
       on conflict do nothing returning id),
     done as (${deleteJobs("$11")})
     select id, pg_notify($10, $1) from ins`,
    [r.at.run, r.at.task, r.at.key ?? "", r.at.attempt, r.kind, r.round, r.status, r.payload, worker, channel, r.job ? [r.job] : []],
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

/**
 * A worker's grouped inbox writes in one statement (one transaction): each claim as
 * insertInboxStart, each report as insertInboxReport (its job deleted with it, one notification
 * per run: identical notifications in one transaction reach a listener once). Returns the
 * positions (1-based) of the claims to skip.
 */
export async function writeInbox(
  pool: Pool,
  schema: string,
  worker: string,
  channel: string,
  claims: Array<{ at: InboxAddress; payload: string }>,
  reports: InboxReportRow[],
): Promise<Set<number>> {
  const t = `${ident(schema)}.inbox`;
  const r = await pool.query<{ o: string | null }>(
    `with req as (
       select * from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[]) with ordinality as r(run, task, key, attempt, payload, o)),
     done as (
       select r.o from req r where exists (
         select 1 from ${t} i where i.run = r.run and i.task = r.task and i.key = r.key and i.kind = 'finished'
           and (i.status = 'passed' or i.attempt = r.attempt))),
     starts as (
       insert into ${t} (run, task, key, attempt, kind, round, status, payload, worker)
       select run, task, key, attempt, 'started', 0, null, payload, $6 from req where o not in (select o from done)
       on conflict do nothing returning id),
     reports as (
       insert into ${t} (run, task, key, attempt, kind, round, status, payload, worker)
       select run, task, key, attempt, kind, round, status, payload, $6
       from unnest($7::text[], $8::text[], $9::text[], $10::int[], $11::text[], $12::int[], $13::text[], $14::jsonb[])
         with ordinality as r(run, task, key, attempt, kind, round, status, payload, o)
       order by o
       on conflict do nothing returning run),
     jobs as (${deleteJobs("$15")})
     select o::text from done
     union all select null from (select pg_notify($16, run) from (select distinct run from reports) d) n`,
    [
      claims.map((c) => c.at.run),
      claims.map((c) => c.at.task),
      claims.map((c) => c.at.key ?? ""),
      claims.map((c) => c.at.attempt),
      claims.map((c) => c.payload),
      worker,
      reports.map((x) => x.at.run),
      reports.map((x) => x.at.task),
      reports.map((x) => x.at.key ?? ""),
      reports.map((x) => x.at.attempt),
      reports.map((x) => x.kind),
      reports.map((x) => x.round),
      reports.map((x) => x.status),
      reports.map((x) => x.payload),
      reports.flatMap((x) => (x.job ? [x.job] : [])),
      channel,
    ],
  );
  return new Set(r.rows.flatMap((row) => (row.o === null ? [] : [Number(row.o)])));
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
