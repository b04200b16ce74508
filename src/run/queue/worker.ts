// `switchyard worker`: runs graphile-worker with one task handler that runs a
// switchyard attempt here with today's workspace and launcher code (executor.ts's local
// executor), and reports it into the inbox. Before it runs a job it checks the inbox: a job
// redelivered after its instance passed, or after its attempt reported, is skipped. Each worker
// holds its liveness lock and `workers` row for its whole life, heartbeats, and runs a sweeper.

import { EventEmitter } from "node:events";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { Runner, Task, WorkerEvents } from "graphile-worker";
import { loadGraphileWorker, loadPg } from "../../shared/lazy-packages.js";
import type { AgentRunnerConfig } from "../agents/index.js";
import type { EvaluatorFactory, KindEnv, Outcome } from "../kinds/index.js";
import type { Plan } from "../../plan/plan.js";
import { keyDirName } from "../engine/index.js";
import { Launcher } from "../process/index.js";
import { localExecutor } from "../engine/index.js";
import { extractPack, queueDb } from "../store/index.js";
import { DEFAULT_MAX_FILE_BYTES } from "../process/index.js";
import { errorText } from "../values/index.js";
import { reportedRounds, type FinishedReport, type InboxAddress } from "./inbox.js";
import { InboxWriter } from "./inbox-writer.js";
import { HEARTBEAT_INTERVAL_MS, jobKey, queueNames } from "./names.js";
import { ensureQueueSchema, quietConsole, quietLogger } from "./schema.js";
import { holdWorkerLock, startSweeper } from "./sweeper.js";
import { RunCache, type PackSource } from "./run-cache.js";
import { InputJoiner } from "./shared-inputs.js";
import type { JobPayload } from "./job-payload.js";
import { CodedError } from "../../shared/coded-error.js";
import { SnapshotError } from "../engine/index.js";

/** How to run a worker: the shared store, its state folder, concurrency and tags, and what attempts may use. */
export interface WorkerOptions {
  connectionString: string;
  /** The store's schema (the inbox and workers tables live there). */
  schema: string;
  stateDir: string;
  concurrency: number;
  tags: string[];
  /** Where a run's pack snapshot comes from (default: the store's copy, shared-snapshot.ts). */
  packs?: PackSource;
  agentRunners?: Record<string, AgentRunnerConfig>;
  secretEnv?: string[];
  maxFileBytes?: number;
  /** `(packDir, plan) => (task) => fn` for evaluate steps inside revise loops. */
  evaluators?: (packDir: string, plan: Plan) => EvaluatorFactory;
  /** How long a drain lets running attempts finish before they are interrupted (default 60 s). */
  graceMs?: number;
  log?: (line: string) => void;
}

/** A running worker: its id, how to drain it, and whether it lost the store. */
export interface RunningWorker {
  id: string;
  /** Stops taking jobs, lets running ones finish within the grace period, then interrupts them. */
  drain(): Promise<void>;
  /** Resolves when the worker has stopped; rejects with the error that cut it off from the store. */
  done: Promise<void>;
  /** Whether its liveness session with the store was lost (whatever failed next is a consequence). */
  storeLost(): boolean;
}

/** How often an idle slot looks for a job without being told of one. */
const POLL_MS = 5000;

/** How long graphile-worker gathers job completions before it sends them (most jobs are already deleted). */
const COMPLETE_BATCH_MS = 1000;

/** The last bytes of an attempt's log, shipped back with its outcome. */
const LOG_TAIL_BYTES = 4096;

function logTail(path: string): string | undefined {
  try {
    const size = statSync(path).size;
    const n = Math.min(size, LOG_TAIL_BYTES);
    if (n === 0) return undefined;
    const buf = Buffer.alloc(n);
    const fd = openSync(path, "r");
    try {
      readSync(fd, buf, 0, n, size - n);
    } finally {
      closeSync(fd);
    }
    return buf.toString("utf8");
  } catch {
    return undefined;
  }
}

/** An outcome too large for the inbox fails the attempt (the reliability size cap, untrusted-file.ts). */
function capped(out: Outcome, limit: number): Outcome {
  if (out.status !== "passed") return out;
  const bytes = Buffer.byteLength(JSON.stringify(out.output ?? null));
  if (bytes <= limit) return out;
  return {
    status: "failed",
    code: "report-too-large",
    error: `report-too-large: the instance's output is ${bytes} bytes of JSON, over the ${limit}-byte limit a worker sends back (set SWITCHYARD_MAX_FILE_MB to raise it)`,
    ...(out.usage ? { usage: out.usage } : {}),
  };
}

/** Attempts running in this worker by job key, so that a cancel notification can stop them. */
type RunningAttempts = Map<string, { run: string; abort: AbortController; cancelled: boolean }>;

/** What the job handler works with: the worker's connections, caches and environment. */
interface HandlerDeps {
  opts: WorkerOptions;
  id: string;
  pool: pg.Pool;
  names: ReturnType<typeof queueNames>;
  cache: RunCache;
  inputs: InputJoiner;
  inbox: InboxWriter;
  baseEnv: NodeJS.ProcessEnv;
  limit: number;
  launcher: () => Launcher | null;
  running: RunningAttempts;
  log: (line: string) => void;
}

/** The default pack source: the snapshot archive the store keeps for each run. */
function storePacks(pool: pg.Pool, schema: string): PackSource {
  return async (run, dest) => {
    const archive = await queueDb.packArchive(pool, schema, run);
    if (!archive) throw new SnapshotError("snapshot-missing", `the store holds no pack snapshot for run ${run}`);
    extractPack(archive, dest);
  };
}

/** Opens the worker's dedicated session, takes its liveness lock and registers it in the workers table. */
async function openWorkerSession(opts: WorkerOptions, id: string, pgOpts: pg.ClientConfig): Promise<pg.Client> {
  const session = new (loadPg().Client)(pgOpts);
  await session.connect();
  await holdWorkerLock(session, id);
  await queueDb.insertWorker(session, opts.schema, {
    id,
    host: hostname(),
    pid: process.pid,
    concurrency: opts.concurrency,
    tags: opts.tags,
  });
  return session;
}

/** Stops the running attempts a cancel notification names: one job key, or every job of a run (`RUN/`). */
async function listenForCancels(session: pg.Client, names: ReturnType<typeof queueNames>, running: RunningAttempts): Promise<void> {
  await queueDb.listenTo(session, names.cancel);
  session.on("notification", (n) => {
    if (n.channel !== names.cancel || !n.payload) return;
    for (const [k, r] of running) {
      if (k === n.payload || (n.payload.endsWith("/") && `${r.run}/` === n.payload)) {
        r.cancelled = true;
        r.abort.abort();
      }
    }
  });
}

/** The kind environment an attempt of a run runs in on this worker. */
function attemptEnv(d: HandlerDeps, run: string, facts: Awaited<ReturnType<RunCache["get"]>>): KindEnv {
  const { opts } = d;
  return {
    run,
    plan: facts.plan,
    packDir: facts.packDir,
    baseEnv: d.baseEnv,
    agentRunners: opts.agentRunners ?? {},
    ...(facts.repo ? { repo: facts.repo } : {}),
    maxFileBytes: d.limit,
    launcher: d.launcher,
    evaluatorFor: (task) => {
      if (!opts.evaluators) throw new CodedError("internal", `no evaluator was given to the worker for ${task.name}`);
      return opts.evaluators(facts.packDir, facts.plan)(task);
    },
  };
}

/** The rounds of a revise attempt already reported, by the job's payload or by an earlier delivery: the loop continues after them. */
async function priorRounds(d: HandlerDeps, p: JobPayload, at: InboxAddress): Promise<JobPayload["rounds"]> {
  const prior = [...p.rounds];
  if (p.plan.kind === "revise") {
    const db2 = await d.pool.connect();
    try {
      for (const r of await reportedRounds(db2, d.opts.schema, at)) if (r.round > prior.length) prior.push(r);
    } finally {
      db2.release();
    }
  }
  return prior;
}

/**
 * The queue's one task: runs an attempt here unless the inbox already has it, reports its rounds
 * and its outcome into the inbox, and throws (so the queue retries elsewhere) when drained mid-way.
 */
function jobHandler(d: HandlerDeps): Task {
  return async (raw, helpers) => {
    const p = raw as JobPayload;
    const at: InboxAddress = { run: p.run, task: p.task, key: p.key, attempt: p.attempt };
    const key = jobKey(d.names, p.run, p.task, p.key, p.attempt);
    if ((await d.inbox.claimStart(at, { host: hostname(), pid: process.pid })) === "skip") {
      d.log(`skipped ${key}: its result is already in the inbox`);
      return;
    }
    const facts = await d.cache.get(p.run);
    const input = await d.inputs.join(p.run, p.input, p.shared);
    const env = attemptEnv(d, p.run, facts);
    const abort = new AbortController();
    const entry = { run: p.run, abort, cancelled: false };
    d.running.set(key, entry);
    const onShutdown = () => abort.abort();
    helpers.abortSignal?.addEventListener("abort", onShutdown);
    const base = join(d.cache.runDir(p.run), "work", p.task);
    const dir = p.key !== null ? join(base, `${keyDirName(p.key)}.a${p.attempt}`) : join(base, `a${p.attempt}`);
    const prior = await priorRounds(d, p, at);
    let rounds: Promise<unknown> = Promise.resolve();
    let out: Outcome;
    try {
      out = await localExecutor.run({
        ctx: { env, task: p.plan, recordTask: p.task, key: p.key, dir, signal: abort.signal },
        input,
        attempt: p.attempt,
        rounds: prior,
        recordRound: (r, usage) => {
          rounds = rounds.then(() => d.inbox.report(at, "round", { round: r, ...(usage ? { usage } : {}) }, r.round));
        },
        mayStartRound: () => !abort.signal.aborted,
      });
    } catch (err) {
      out = { status: "failed", code: "internal", error: `internal: ${errorText(err)}` };
    } finally {
      d.running.delete(key);
      helpers.abortSignal?.removeEventListener("abort", onShutdown);
    }
    await rounds;
    if (out.status === "interrupted" && !entry.cancelled) {
      // Drained (SIGTERM past its grace period): not a result; the queue gives the job to another worker.
      throw new CodedError("worker-stopped", `worker ${d.id} stopped before ${key} finished`);
    }
    const tail = logTail(`${dir}.log`);
    const finished: FinishedReport = { outcome: capped(out, d.limit), ...(tail !== undefined ? { log_tail: tail } : {}) };
    await d.inbox.report(at, "finished", finished, 0, String(helpers.job.id));
    d.log(`${key}: ${out.status}`);
  };
}

/** Starts graphile-worker over the pool with the one task handler; its console output is quieted until it stops. */
async function startQueue(
  opts: WorkerOptions,
  id: string,
  pool: pg.Pool,
  taskName: string,
  handler: Task,
): Promise<{ runner: Runner; restoreConsole: () => void }> {
  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  events.on("pool:create", ({ workerPool }) => {
    void queueDb.setWorkerPool(pool, opts.schema, id, workerPool.id).catch(() => undefined);
  });
  const restoreConsole = quietConsole();
  const runner: Runner = await loadGraphileWorker()
    .run({
      pgPool: pool,
      concurrency: opts.concurrency,
      noHandleSignals: true,
      // Each idle slot asks for a job this often: only a backstop (new jobs and jobs the sweeper
      // releases wake idle slots by notification); a retried job waits for it. Every poll is a
      // transaction on the server, so it is not short: 32 idle slots at 1 s cost as many
      // transactions as the jobs themselves in the queue benchmark.
      pollInterval: POLL_MS,
      taskList: { [taskName]: handler },
      logger: quietLogger(),
      events,
      gracefulShutdownAbortTimeout: opts.graceMs ?? 60000,
      // A job that ran is deleted with its finished report (inbox-writer.ts): graphile's own
      // completion, which then finds nothing to delete, can wait and go in large batches. A job
      // it completes without a report (skipped: its result was already in the inbox) and left
      // locked by a worker killed in that window runs again elsewhere and is skipped there too.
      preset: { worker: { completeJobBatchDelay: COMPLETE_BATCH_MS } },
    })
    .catch((err: unknown) => {
      restoreConsole();
      throw err;
    });
  return { runner, restoreConsole };
}

/**
 * Starts a worker: registers it in the store, takes jobs from the queue until drained or cut off
 * from the store, heartbeats, and sweeps the jobs of dead workers.
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const log = opts.log ?? (() => undefined);
  const id = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const schema = opts.schema;
  const pgOpts = { connectionString: opts.connectionString, keepAlive: true };
  const pool = new (loadPg().Pool)({ ...pgOpts, max: opts.concurrency + 2 });
  // A connection lost (the database restarting) fails its query; the pool opens a new one next time.
  pool.on("error", () => undefined);
  pool.on("connect", (c) => c.on("error", () => undefined));
  const first = await pool.connect();
  try {
    await ensureQueueSchema(first, opts.connectionString, schema);
  } finally {
    first.release();
  }
  // The liveness lock and cancel notifications share one dedicated session.
  const session = await openWorkerSession(opts, id, pgOpts);
  const secrets = new Set(opts.secretEnv ?? []);
  const baseEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!secrets.has(k)) baseEnv[k] = v;
  let launcher: Launcher | null | undefined;
  const running: RunningAttempts = new Map();
  const names = queueNames(schema);
  await listenForCancels(session, names, running);

  const handler = jobHandler({
    opts,
    id,
    pool,
    names,
    cache: new RunCache(pool, schema, opts.stateDir, opts.packs ?? storePacks(pool, schema)),
    inputs: new InputJoiner(pool, schema),
    inbox: new InboxWriter(pool, schema, id),
    baseEnv,
    limit: opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    launcher: () => {
      if (launcher === undefined) {
        const l = new Launcher(baseEnv);
        launcher = l.available ? l : null;
      }
      return launcher;
    },
    running,
    log,
  });
  const { runner, restoreConsole } = await startQueue(opts, id, pool, names.task, handler);
  const heartbeat = setInterval(() => {
    void queueDb.touchWorker(pool, schema, id).catch(() => undefined);
  }, HEARTBEAT_INTERVAL_MS);
  const stopSweeper = startSweeper(pool, schema, (pools) => log(`released the jobs of dead worker pools ${pools.join(", ")}`));
  let draining: Promise<void> | null = null;
  const shutdown = async () => {
    clearInterval(heartbeat);
    await stopSweeper();
    launcher?.close();
    await queueDb.deleteWorker(session, schema, id).catch(() => undefined);
    await session.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
    restoreConsole();
  };
  /** Why the liveness session was lost, if it was: `done` rejects with it. */
  let lost: unknown;
  const done = runner.promise.then(
    async () => {
      // The queue stopped by itself (not drained): one of its connections failed; if the store is
      // gone, that is why.
      if (lost === undefined && draining === null) await queueDb.ping(session).catch((err: unknown) => (lost = err));
      await shutdown();
      if (lost !== undefined) throw lost;
    },
    async (err) => {
      await shutdown();
      throw err;
    },
  );
  // The liveness session lost (the database restarted): this worker can no longer prove it is
  // alive, so its jobs may already run elsewhere; it stops.
  session.on("error", (err) => {
    lost ??= err;
    void runner.stop().catch(() => undefined);
  });
  return {
    id,
    drain: () => (draining ??= runner.stop().then(() => done)),
    done,
    storeLost: () => lost !== undefined,
  };
}
