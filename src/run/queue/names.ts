// The names the coordinator and its workers agree on: the graphile-worker
// task identifier, job keys, notification channels, tables and the liveness lock space.

import { createHash } from "node:crypto";
import { queueDb } from "../store/index.js";

/** The PostgreSQL schema graphile-worker's own tables live in (its migrations create it). */
export const QUEUE_SCHEMA = queueDb.QUEUE_SCHEMA;

/**
 * Each store (a schema of the database, `?schema=`) has a queue of its own inside graphile-worker's
 * tables, so several stores in one database never see each other's jobs, workers or
 * notifications: its own task identifier (a worker asks graphile only for its store's, and the
 * sweeper looks only at those jobs), job keys that begin with the store (graphile's keys are
 * unique database-wide) and its own notification channels. The default store `switchyard` keeps
 * the names it always had. (graphile-worker's `schema` option, one set of tables per store, is not
 * used: graphile 0.17 announces a new schema's migrations to every worker of the database, and
 * each of them then shuts down, exit status 57.)
 */
export interface QueueNames {
  /** The graphile-worker task identifier every attempt of the store runs under. */
  task: string;
  /** What every job key of the store begins with (empty for the default store). */
  keyPrefix: string;
  /** NOTIFY channel: a worker wrote an inbox row (payload: the run). */
  inbox: string;
  /** NOTIFY channel: stop running attempts (payload: a job key). */
  cancel: string;
}

const DEFAULT_STORE = "switchyard";

/** The queue of the store in schema `storeSchema`. */
export function queueNames(storeSchema: string): QueueNames {
  if (storeSchema === DEFAULT_STORE)
    return { task: "switchyard_instance", keyPrefix: "", inbox: "switchyard_inbox", cancel: "switchyard_cancel" };
  // Channel names are identifiers of at most 63 bytes: a hash of the store's name fits any.
  const hash = createHash("sha256").update(storeSchema).digest("hex").slice(0, 24);
  return {
    task: `switchyard_instance:${storeSchema}`,
    keyPrefix: `${storeSchema}:`,
    inbox: `switchyard_inbox_${hash}`,
    cancel: `switchyard_cancel_${hash}`,
  };
}

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

/** How often the sweeper looks for dead workers, unless $SWITCHYARD_QUEUE_SWEEP_MS says otherwise. */
export const SWEEP_INTERVAL_MS = 2000;
/** How often a worker writes its heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 5000;

/**
 * A job locked by a pool that no live worker has registered is taken back after this long (the
 * pool of a worker that died between taking its first job and registering its pool id).
 */
export const UNREGISTERED_LOCK_GRACE_SECONDS = 30;

/** A whole number from `env[name]` within [min, max]; anything else (unset, malformed, out of range) gives `fallback`. */
function wholeFromEnv(env: NodeJS.ProcessEnv, name: string, min: number, max: number, fallback: number): number {
  const v = env[name]?.trim();
  if (!v || !/^\d+$/.test(v)) return fallback;
  const n = Number(v);
  return n >= min && n <= max ? n : fallback;
}

/**
 * The sweeper's interval in milliseconds: $SWITCHYARD_QUEUE_SWEEP_MS (100 to 60000) or 2 s. For
 * tests, and for operators who want a dead worker's jobs back sooner, or fewer sweeps
 * (docs/distributed.md); a value out of range or not a whole number is ignored.
 */
export function sweepIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  return wholeFromEnv(env, "SWITCHYARD_QUEUE_SWEEP_MS", 100, 60000, SWEEP_INTERVAL_MS);
}

/**
 * The grace for a pool no live worker has registered, in seconds: $SWITCHYARD_QUEUE_ORPHAN_GRACE_S
 * (1 to 3600) or 30. A worker registers its pool id in one statement as graphile-worker creates the
 * pool, so the grace only has to outlast that statement on a loaded server (docs/distributed.md);
 * tests shorten it to see, without waiting 30 s, that a live worker's job is not taken back after
 * the grace. A value out of range or not a whole number is ignored.
 */
export function unregisteredLockGraceSeconds(env: NodeJS.ProcessEnv = process.env): number {
  return wholeFromEnv(env, "SWITCHYARD_QUEUE_ORPHAN_GRACE_S", 1, 3600, UNREGISTERED_LOCK_GRACE_SECONDS);
}

/** How often graphile may redeliver one job (worker crashes, drains); attempts are ours. */
export const JOB_MAX_ATTEMPTS = 1000;

/** `run/task/key/aN` after the store's prefix; an unmapped instance's key is empty. */
export function jobKey(names: QueueNames, run: string, task: string, key: string | null, attempt: number): string {
  return `${names.keyPrefix}${run}/${task}/${key ?? ""}/a${attempt}`;
}
