// The statements on the live workers of a queue: the workers table (registration, graphile pool,
// heartbeat), the session advisory lock each worker holds on its id while it lives, and the
// graphile-worker calls that free the jobs of dead pools. The queue room (src/run/queue/worker.ts,
// sweeper.ts, workers-list.ts) decides when.

import { ident, QUEUE_SCHEMA, type Db } from "./queue-tables.js";

/** A worker's row. */
export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  tags: string[];
  /** graphile's worker pool id, once its pool was made. */
  pool: string | null;
  started: Date;
  heartbeat: Date;
}

/** Registers a live worker. */
export async function insertWorker(
  db: Db,
  schema: string,
  w: { id: string; host: string; pid: number; concurrency: number; tags: string[] },
): Promise<void> {
  await db.query(`insert into ${ident(schema)}.workers (id, host, pid, concurrency, tags) values ($1, $2, $3, $4, $5)`, [
    w.id,
    w.host,
    w.pid,
    w.concurrency,
    w.tags,
  ]);
}

/** Records the graphile pool a worker runs its jobs in. */
export async function setWorkerPool(db: Db, schema: string, id: string, pool: string): Promise<void> {
  await db.query(`update ${ident(schema)}.workers set pool = $2 where id = $1`, [id, pool]);
}

/** Records that a worker is alive now. */
export async function touchWorker(db: Db, schema: string, id: string): Promise<void> {
  await db.query(`update ${ident(schema)}.workers set heartbeat = now() where id = $1`, [id]);
}

/** Removes a worker's row. */
export async function deleteWorker(db: Db, schema: string, id: string): Promise<void> {
  await db.query(`delete from ${ident(schema)}.workers where id = $1`, [id]);
}

/** Every worker's id and graphile pool. */
export async function workerPools(db: Db, schema: string): Promise<Array<{ id: string; pool: string | null }>> {
  return (await db.query<{ id: string; pool: string | null }>(`select id, pool from ${ident(schema)}.workers`)).rows;
}

/** Every worker's row, by host and start. */
export async function workerRows(db: Db, schema: string): Promise<WorkerRow[]> {
  return (
    await db.query<WorkerRow>(
      `select id, host, pid, concurrency, tags, pool, started, heartbeat from ${ident(schema)}.workers order by host, started`,
    )
  ).rows;
}

/** Takes the advisory lock (`space`, hashtext(id)) for the session of `db`, if free: true when taken. */
export async function tryWorkerLock(db: Db, space: number, id: string): Promise<boolean> {
  const r = await db.query<{ ok: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as ok", [space, id]);
  return Boolean(r.rows[0]?.ok);
}

/** Gives back the advisory lock (`space`, hashtext(id)) this session holds. */
export async function unlockWorker(db: Db, space: number, id: string): Promise<void> {
  await db.query("select pg_advisory_unlock($1, hashtext($2))", [space, id]);
}

/** The jobs of graphile task `task` a pool holds, oldest lock first. */
export async function jobsLockedBy(db: Db, pool: string, task: string): Promise<Array<{ key: string; locked_at: Date }>> {
  return (
    await db.query<{ key: string; locked_at: Date }>(
      `select key, locked_at from ${QUEUE_SCHEMA}.jobs where locked_by = $1 and task_identifier = $2 order by locked_at`,
      [pool, task],
    )
  ).rows;
}

/** Pools holding jobs of graphile task `task` for longer than `graceSeconds` that are not among `livePools`. */
export async function unregisteredLockers(db: Db, task: string, graceSeconds: number, livePools: string[]): Promise<string[]> {
  const orphans = await db.query<{ locked_by: string }>(
    `select distinct locked_by from ${QUEUE_SCHEMA}.jobs
     where locked_by is not null and task_identifier = $1 and locked_at < now() - make_interval(secs => $2)
       and not (locked_by = any($3::text[]))`,
    [task, graceSeconds, livePools],
  );
  return orphans.rows.map((o) => o.locked_by);
}

/**
 * graphile's force_unlock_workers: the jobs these pools hold may run elsewhere. Every worker is
 * told at once, with the notification graphile sends for new jobs (its idle slots wake and take
 * them), rather than at its next poll.
 */
export async function forceUnlockPools(db: Db, pools: string[]): Promise<void> {
  await db.query(
    `with held as (select count(*) as n from ${QUEUE_SCHEMA}._private_jobs where locked_by = any($1::text[]))
     select ${QUEUE_SCHEMA}.force_unlock_workers($1::text[]),
       pg_notify('jobs:insert', json_build_object('r', random(), 'count', (select n from held))::text)`,
    [pools],
  );
}
