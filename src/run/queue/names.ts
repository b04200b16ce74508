// The names the coordinator and its workers agree on (issue 17 items 2–3): the graphile-worker
// task identifier, job keys, notification channels, tables and the liveness lock space.

/** The one graphile-worker task every switchyard attempt runs under. */
export const TASK_IDENTIFIER = "switchyard_instance";

/** The PostgreSQL schema graphile-worker's own tables live in (its migrations create it). */
export const QUEUE_SCHEMA = "graphile_worker";

/** NOTIFY channel: a worker wrote an inbox row (payload: the run). */
export const INBOX_CHANNEL = "switchyard_inbox";
/** NOTIFY channel: stop running attempts (payload: a job key, or a run followed by "/"). */
export const CANCEL_CHANNEL = "switchyard_cancel";

/**
 * The first key of the two-key advisory locks a worker holds on its id (the second is
 * hashtext(id)). A worker's lock lives exactly as long as its session, so a free lock means the
 * worker is gone (sweeper.ts).
 */
export const WORKER_LOCK_SPACE = 0x73797764; // "sywd"

/**
 * graphile-worker never refreshes a running job's lock and gives its job to another worker after
 * 4 hours; an instance's timeout is capped below that in workers mode so a live turn is never run
 * twice (docs/distributed.md).
 */
export const QUEUE_TIMEOUT_CAP_SECONDS = 3 * 3600 + 50 * 60;

/** How often the sweeper looks for dead workers, and workers write their heartbeat. */
export const SWEEP_INTERVAL_MS = 2000;
export const HEARTBEAT_INTERVAL_MS = 5000;

/**
 * A job locked by a pool that no live worker has registered is taken back after this long (the
 * pool of a worker that died between taking its first job and registering its pool id).
 */
export const UNREGISTERED_LOCK_GRACE_SECONDS = 30;

/** How often graphile may redeliver one job (worker crashes, drains); attempts are ours. */
export const JOB_MAX_ATTEMPTS = 1000;

/** `run/task/key/aN`; an unmapped instance's key is empty. */
export function jobKey(run: string, task: string, key: string | null, attempt: number): string {
  return `${run}/${task}/${key ?? ""}/a${attempt}`;
}

/** A double-quoted SQL identifier. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
