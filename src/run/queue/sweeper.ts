// Releases a dead worker's jobs within seconds. graphile-worker gives a locked
// job back only after 4 hours; every switchyard worker holds a session advisory lock on its id
// while it lives, so a lock that can be taken means its worker is gone (kill -9, a lost machine
// once TCP keepalives give up), and the sweeper calls graphile's force_unlock_workers for its
// pool: another worker then runs the job. It runs in every coordinator and every worker.

import type { Pool, PoolClient } from "pg";
import { ident, QUEUE_SCHEMA, queueNames, SWEEP_INTERVAL_MS, UNREGISTERED_LOCK_GRACE_SECONDS, WORKER_LOCK_SPACE } from "./names.js";

/** Takes a worker's liveness lock on `db` (a connection kept for the worker's whole life). */
export async function holdWorkerLock(db: PoolClient | import("pg").Client, id: string): Promise<void> {
  const r = await db.query<{ ok: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as ok", [WORKER_LOCK_SPACE, id]);
  if (!r.rows[0]?.ok) throw new Error(`another worker already holds the id ${id}`);
}

/** Whether the worker `id` still lives: its lock is held (taking it, to check, gives it back at once). */
export async function workerAlive(db: PoolClient, id: string): Promise<boolean> {
  const r = await db.query<{ free: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as free", [WORKER_LOCK_SPACE, id]);
  if (!r.rows[0]?.free) return true;
  await db.query("select pg_advisory_unlock($1, hashtext($2))", [WORKER_LOCK_SPACE, id]);
  return false;
}

/** One sweep: returns the pools whose jobs were released. */
async function sweep(pool: Pool, schema: string): Promise<string[]> {
  const db = await pool.connect();
  try {
    const rows = (await db.query<{ id: string; pool: string | null }>(`select id, pool from ${ident(schema)}.workers`)).rows;
    const dead: string[] = [];
    const livePools: string[] = [];
    for (const w of rows) {
      if (!(await workerAlive(db, w.id))) {
        await db.query(`delete from ${ident(schema)}.workers where id = $1`, [w.id]);
        if (w.pool) dead.push(w.pool);
      } else if (w.pool) livePools.push(w.pool);
    }
    // A pool that took a job but died before it was registered: unknown to every live worker.
    const orphans = await db.query<{ locked_by: string }>(
      `select distinct locked_by from ${QUEUE_SCHEMA}.jobs
       where locked_by is not null and task_identifier = $1 and locked_at < now() - make_interval(secs => $2)
         and not (locked_by = any($3::text[]))`,
      [queueNames(schema).task, UNREGISTERED_LOCK_GRACE_SECONDS, livePools],
    );
    for (const o of orphans.rows) if (!dead.includes(o.locked_by)) dead.push(o.locked_by);
    if (dead.length) await db.query(`select ${QUEUE_SCHEMA}.force_unlock_workers($1::text[])`, [dead]);
    return dead;
  } finally {
    db.release();
  }
}

/** Sweeps every ~2 s until stopped; a failed sweep (the database restarting) is tried again. */
export function startSweeper(pool: Pool, schema: string, onReleased?: (pools: string[]) => void): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = sweep(pool, schema).then(
      (pools) => {
        if (pools.length) onReleased?.(pools);
      },
      () => undefined,
    );
    void running.then(() => {
      if (!stopped) timer = setTimeout(tick, SWEEP_INTERVAL_MS);
    });
  };
  let timer = setTimeout(tick, SWEEP_INTERVAL_MS);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
