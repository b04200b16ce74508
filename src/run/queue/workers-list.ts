// What `switchyard workers` shows: the live workers, each with its running jobs
// and last heartbeat. A row whose worker's liveness lock is free is a dead worker the sweeper has
// not yet cleared: it is left out (and its jobs are about to run elsewhere).

import type { Pool } from "pg";
import { ident, QUEUE_SCHEMA, queueNames } from "./names.js";
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
    const exists = await db.query("select to_regclass($1) as t", [`${ident(schema)}.workers`]);
    if (!exists.rows[0]?.t) return [];
    const rows = await db.query<{
      id: string;
      host: string;
      pid: number;
      concurrency: number;
      tags: string[];
      pool: string | null;
      started: Date;
      heartbeat: Date;
    }>(`select id, host, pid, concurrency, tags, pool, started, heartbeat from ${ident(schema)}.workers order by host, started`);
    const out: WorkerInfo[] = [];
    for (const w of rows.rows) {
      if (!(await workerAlive(db, w.id))) continue;
      const jobs = w.pool
        ? await db.query<{ key: string; locked_at: Date }>(
            `select key, locked_at from ${QUEUE_SCHEMA}.jobs where locked_by = $1 and task_identifier = $2 order by locked_at`,
            [w.pool, queueNames(schema).task],
          )
        : { rows: [] };
      out.push({
        id: w.id,
        host: w.host,
        pid: w.pid,
        concurrency: w.concurrency,
        tags: w.tags,
        started: w.started.toISOString(),
        heartbeat: w.heartbeat.toISOString(),
        jobs: jobs.rows.map((j) => ({ job: j.key ?? "(withdrawn)", since: j.locked_at.toISOString() })),
      });
    }
    return out;
  } finally {
    db.release();
  }
}
