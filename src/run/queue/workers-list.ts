// What `switchyard workers` shows: the live workers, each with its running jobs
// and last heartbeat. A row whose worker's liveness lock is free is a dead worker the sweeper has
// not yet cleared: it is left out (and its jobs are about to run elsewhere).

import type { Pool } from "pg";
import { queueDb } from "../store/index.js";
import { queueNames } from "./names.js";
import { workerAlive } from "./sweeper.js";

/** A job a worker holds, and since when. */
export interface WorkerJob {
  job: string;
  /** When the worker took it. */
  since: string;
}

/** A live worker as `switchyard workers` lists it. */
export interface WorkerInfo {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  tags: string[];
  started: string;
  heartbeat: string;
  jobs: WorkerJob[];
}

/** The live workers of a shared store, with the jobs they hold. */
export async function listWorkers(pool: Pool, schema: string): Promise<WorkerInfo[]> {
  const db = await pool.connect();
  try {
    if (!(await queueDb.queueTablesExist(db, schema))) return [];
    const rows = await queueDb.workerRows(db, schema);
    const out: WorkerInfo[] = [];
    for (const w of rows) {
      if (!(await workerAlive(db, w.id))) continue;
      const jobs = w.pool ? await queueDb.jobsLockedBy(db, w.pool, queueNames(schema).task) : [];
      out.push({
        id: w.id,
        host: w.host,
        pid: w.pid,
        concurrency: w.concurrency,
        tags: w.tags,
        started: w.started.toISOString(),
        heartbeat: w.heartbeat.toISOString(),
        jobs: jobs.map((j) => ({ job: j.key ?? "(withdrawn)", since: j.locked_at.toISOString() })),
      });
    }
    return out;
  } finally {
    db.release();
  }
}
