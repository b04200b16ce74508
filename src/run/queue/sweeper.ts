// Releases a dead worker's jobs within seconds. graphile-worker gives a locked
// job back only after 4 hours; every switchyard worker holds a session advisory lock on its id
// while it lives, so a lock that can be taken means its worker is gone (kill -9, a lost machine
// once TCP keepalives give up), and the sweeper calls graphile's force_unlock_workers for its
// pool: another worker then runs the job. It runs in every coordinator and every worker.

import type { Pool, PoolClient } from "pg";
import { queueDb, RunRefused } from "../store/index.js";
import { queueNames, sweepIntervalMs, unregisteredLockGraceSeconds, WORKER_LOCK_SPACE } from "./names.js";

/** Takes a worker's liveness lock on `db` (a connection kept for the worker's whole life). */
export async function holdWorkerLock(db: PoolClient | import("pg").Client, id: string): Promise<void> {
  if (!(await queueDb.tryWorkerLock(db, WORKER_LOCK_SPACE, id)))
    throw new RunRefused("worker-id-taken", `another worker already holds the id ${id}`, {
      hint: "give each worker its own --id, or stop the worker that has it",
    });
}

/** Whether the worker `id` still lives: its lock is held (taking it, to check, gives it back at once). */
export async function workerAlive(db: PoolClient, id: string): Promise<boolean> {
  if (!(await queueDb.tryWorkerLock(db, WORKER_LOCK_SPACE, id))) return true;
  await queueDb.unlockWorker(db, WORKER_LOCK_SPACE, id);
  return false;
}

/** One sweep: returns the pools whose jobs were released. */
async function sweep(pool: Pool, schema: string, graceSeconds: number): Promise<string[]> {
  const db = await pool.connect();
  try {
    const rows = await queueDb.workerPools(db, schema);
    const dead: string[] = [];
    const livePools: string[] = [];
    for (const w of rows) {
      if (!(await workerAlive(db, w.id))) {
        await queueDb.deleteWorker(db, schema, w.id);
        if (w.pool) dead.push(w.pool);
      } else if (w.pool) livePools.push(w.pool);
    }
    // A pool that took a job but died before it was registered: unknown to every live worker.
    const orphans = await queueDb.unregisteredLockers(db, queueNames(schema).task, graceSeconds, livePools);
    for (const o of orphans) if (!dead.includes(o)) dead.push(o);
    if (dead.length) await queueDb.forceUnlockPools(db, dead);
    return dead;
  } finally {
    db.release();
  }
}

/**
 * Sweeps every ~2 s ($SWITCHYARD_QUEUE_SWEEP_MS) until stopped; a failed sweep (the database
 * restarting) is tried again.
 */
export function startSweeper(pool: Pool, schema: string, onReleased?: (pools: string[]) => void): () => Promise<void> {
  const interval = sweepIntervalMs();
  const grace = unregisteredLockGraceSeconds();
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = sweep(pool, schema, grace).then(
      (pools) => {
        if (pools.length) onReleased?.(pools);
      },
      () => undefined,
    );
    void running.then(() => {
      if (!stopped) timer = setTimeout(tick, interval);
    });
  };
  let timer = setTimeout(tick, interval);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
