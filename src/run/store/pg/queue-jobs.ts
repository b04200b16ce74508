// The statements on graphile-worker's jobs (in QUEUE_SCHEMA) and on the per-run facts workers
// read (queue_runs, queue_inputs, packs): adding a commit's jobs, finding a run's live jobs,
// withdrawing and removing them, and the plans, inputs and pack snapshots workers fetch. The queue
// room (src/run/queue/) decides when.

import type { Pool } from "pg";
import { ident, QUEUE_SCHEMA, type Db } from "./queue-tables.js";

/**
 * The statement that adds the jobs of one commit under graphile task `task`: payloads ($1) and
 * job keys ($2), in order. A key already queued and not yet taken is replaced, one already taken
 * gets a new job (add_job's default mode); a key twice in one commit keeps its last payload
 * (add_jobs refuses to touch a row twice).
 */
export const addJobsSql = (task: string, maxAttempts: number) => `select count(*) from ${QUEUE_SCHEMA}.add_jobs(array(
  select row('${task.replace(/'/g, "''")}', p, null, null, ${maxAttempts}, k, null, null)::${QUEUE_SCHEMA}.job_spec
  from (select distinct on (k) p, k, o from unnest($1::json[], $2::text[]) with ordinality as u(p, k, o) order by k, o desc) last
  order by o))`;

/** Records (or replaces) what workers need of a run: its plan and repository (JSON text). */
export async function upsertQueueRun(db: Db, schema: string, run: string, plan: string, repo: string | null): Promise<void> {
  await db.query(
    `insert into ${ident(schema)}.queue_runs (run, plan, repo) values ($1, $2, $3)
     on conflict (run) do update set plan = excluded.plan, repo = excluded.repo`,
    [run, plan, repo],
  );
}

/** The keys of jobs of graphile task `task` beginning with `prefix` that may still run. */
export async function liveJobKeys(db: Db, task: string, prefix: string): Promise<string[]> {
  const jobs = await db.query<{ key: string }>(
    `select key from ${QUEUE_SCHEMA}.jobs where task_identifier = $1 and left(key, length($2)) = $2 and attempts < max_attempts`,
    [task, prefix],
  );
  return jobs.rows.map((j) => j.key);
}

/** Deletes the job with `key` if no worker has taken it; true when it was deleted. */
export async function withdrawUntakenJob(db: Db, key: string): Promise<boolean> {
  const r = await db.query(`delete from ${QUEUE_SCHEMA}._private_jobs where key = $1 and locked_at is null returning id`, [key]);
  return (r.rowCount ?? 0) > 0;
}

/** Deletes the job with `id` if no worker holds it. */
export async function deleteUntakenJob(db: Db, id: string): Promise<void> {
  await db.query(`delete from ${QUEUE_SCHEMA}._private_jobs where id = $1 and locked_at is null`, [id]);
}

/**
 * graphile's remove_job: the job with `key` is removed if not taken, else its key is cleared so it
 * never runs again. Its id (null: no such job) and when a worker took it (null: not taken).
 */
export async function removeJob(db: Db, key: string): Promise<{ id: string | null; locked_at: Date | null } | undefined> {
  const r = await db.query<{ id: string | null; locked_at: Date | null }>(
    `select id::text, locked_at from ${QUEUE_SCHEMA}.remove_job($1)`,
    [key],
  );
  return r.rows[0];
}

/** Whether the job with `id` exists and a worker holds it. */
export async function jobLocked(db: Db, id: string): Promise<boolean> {
  const still = await db.query(`select 1 from ${QUEUE_SCHEMA}.jobs where id = $1 and locked_at is not null`, [id]);
  return (still.rowCount ?? 0) > 0;
}

/** The statement that stores shared outputs (merged per commit: run, hash and body arrays). */
export function storeInputsSql(schema: string): string {
  return `insert into ${ident(schema)}.queue_inputs (run, hash, body)
    select r, h, b from unnest($1::text[], $2::text[], $3::text[]) as u(r, h, b) on conflict do nothing`;
}

/** The JSON of a shared output of a run by its hash, or undefined. */
export async function sharedInputBody(db: Db, schema: string, run: string, hash: string): Promise<string | undefined> {
  const r = await db.query<{ body: string }>(`select body from ${ident(schema)}.queue_inputs where run = $1 and hash = $2`, [run, hash]);
  return r.rows[0]?.body;
}

/** A run's pack snapshot (the archive the store keeps), or undefined. */
export async function packArchive(pool: Pool, schema: string, run: string): Promise<Buffer | undefined> {
  const r = await pool.query<{ archive: Buffer }>(`select archive from ${ident(schema)}.packs where run = $1`, [run]);
  return r.rows[0]?.archive;
}

/** What workers need of a run: its plan and repository, or undefined when the run was never queued. */
export async function queueRun<P, R>(db: Db, schema: string, run: string): Promise<{ plan: P; repo: R | null } | undefined> {
  const r = await db.query<{ plan: P; repo: R | null }>(`select plan, repo from ${ident(schema)}.queue_runs where run = $1`, [run]);
  return r.rows[0];
}
