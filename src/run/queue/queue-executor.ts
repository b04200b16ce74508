// The coordinator's side of workers mode: each command, agent and revise attempt
// becomes a graphile-worker job keyed `run/task/key/aN`, added in the same store transaction that
// records its `instance_started`, so a job exists exactly when its start is recorded. Workers
// report into the inbox; the coordinator, woken by LISTEN/NOTIFY (and a 1 s poll), hands each
// report to the engine, which appends the events, and the rows are marked folded in the commit
// that carries those events (never by watermark). Routes and evaluate stay in the coordinator;
// retries and their backoff stay the engine's; `concurrency` bounds the jobs outstanding.

import type pg from "pg";
import { loadPg } from "../../shared/lazy-packages.js";
import type { Plan, TaskPlan } from "../../plan/plan.js";
import { queueDb, type RunRepository } from "../store/index.js";
import type { AttemptRequest, InstanceExecutor } from "../engine/index.js";
import type { Outcome } from "../kinds/index.js";
import type { FinishedReport, InboxRow, RoundReport } from "./inbox.js";
import type { JobPayload } from "./job-payload.js";
import { JOB_MAX_ATTEMPTS, jobKey, queueNames, type QueueNames, QUEUE_TIMEOUT_CAP_SECONDS } from "./names.js";
import { ensureQueueSchema } from "./schema.js";
import { InputSharer } from "./shared-inputs.js";
import { startSweeper } from "./sweeper.js";

/** What the coordinator needs from the PostgreSQL store: statements committed with the next batch of events. */
export interface CommitHook {
  /**
   * Runs the statement in the transaction that commits the events appended so far (or the next
   * one); those marked `merge` run as one statement per text, their array parameters concatenated.
   */
  addToNextCommit(statement: { text: string; values?: unknown[]; merge?: boolean }): void;
  /** Commits now. */
  flush(): void;
  /** One round trip to the store: throws its StorageFault when the server cannot be reached. */
  check(): void;
  /** Events committed so far: while it grows, commits prove the server reachable. */
  readonly committed: number;
}

/** What a coordinator's queue executor needs: the shared store's connection, schema and run. */
export interface QueueExecutorOptions {
  connectionString: string;
  schema: string;
  run: string;
  commits: CommitHook;
  pollMs?: number;
}

interface Pending {
  req: AttemptRequest;
  resolve: (o: Outcome) => void;
  /** The store went away: the engine stops the run as on a failed commit. */
  reject: (err: unknown) => void;
  /** The highest revise round recorded for the instance. */
  lastRound: number;
  /** A worker reported it started (a withdrawn job then needs its worker to stop it). */
  started: boolean;
  withdrawing: boolean;
}

/** An instance's timeout capped below the queue's 4-hour lock (names.ts), revise steps included. */
function capTimeout<T extends TaskPlan>(t: T): T {
  const capped: T = { ...t, timeout_seconds: Math.min(t.timeout_seconds, QUEUE_TIMEOUT_CAP_SECONDS) };
  const r = capped.revise;
  if (r) capped.revise = { ...r, body: capTimeout(r.body), reviewer: capTimeout(r.reviewer) };
  return capped;
}

/** How long a notification of new reports waits for others before the inbox is read. */
const WAKE_GATHER_MS = 5;

/** An executor that queues attempts for workers and reads their reports from the inbox. */
export class QueueExecutor implements InstanceExecutor {
  readonly local = false;
  private readonly pending = new Map<string, Pending>();
  /** Job keys of attempts alive when this coordinator started (resume adopts them). */
  private readonly alive = new Set<string>();
  private readonly adopted = new Set<string>();
  /** Inbox rows handed to the engine, by job key, waiting for their events to be appended. */
  private readonly finishedRow = new Map<string, string>();
  private readonly handled = new Set<string>();
  private marks: string[] = [];
  private folding = false;
  private foldAgain = false;
  /** The next fold reads every unfolded row, not only those after `seen`. */
  private foldAll = true;
  /** The highest inbox id read so far. */
  private seen = "0";
  private closed = false;
  private poll: NodeJS.Timeout | undefined;
  private stopSweeper: (() => Promise<void>) | undefined;
  private listener: pg.Client | undefined;
  /** A fold asked for by a notification, sent a moment later with the others that follow it. */
  private woken: NodeJS.Timeout | undefined;
  /** `commits.committed` when the poll last looked. */
  private lastCommitted = -1;

  private readonly pool: pg.Pool;
  private readonly inputs: InputSharer;
  /** This store's queue (names.ts). */
  private readonly names: QueueNames;
  private readonly addJobs: string;

  constructor(private readonly opts: QueueExecutorOptions) {
    this.names = queueNames(opts.schema);
    this.addJobs = queueDb.addJobsSql(this.names.task, JOB_MAX_ATTEMPTS);
    this.inputs = new InputSharer(opts.run, (s) => opts.commits.addToNextCommit(s), opts.schema);
    this.pool = new (loadPg().Pool)({ connectionString: opts.connectionString, keepAlive: true, max: 4 });
    this.pool.on("error", () => undefined);
    this.pool.on("connect", (c) => c.on("error", () => undefined));
  }

  /**
   * Before the engine runs: the queue's tables, the run's plan for workers, and on resume the
   * attempts still alive (adopts).
   */
  async open(plan: Plan, repo: RunRepository | undefined): Promise<void> {
    const opts = this.opts;
    const db = await this.pool.connect();
    try {
      await ensureQueueSchema(db, opts.connectionString, opts.schema);
      await queueDb.upsertQueueRun(db, opts.schema, opts.run, JSON.stringify(plan), repo ? JSON.stringify(repo) : null);
      // Jobs first, then the inbox: a job that finishes in between has its report committed
      // before its job row is deleted, so it is seen by one read or the other.
      const prefix = `${this.names.keyPrefix}${opts.run}/`;
      for (const key of await queueDb.liveJobKeys(db, this.names.task, prefix)) this.alive.add(key);
      const rows = await queueDb.unfolded(db, opts.schema, opts.run);
      const stale: string[] = [];
      for (const r of rows) if (r.kind === "finished") this.alive.add(this.keyOf(r));
      // Reports of attempts neither alive nor finished (their job is gone): nothing to wait for.
      for (const r of rows) if (!this.alive.has(this.keyOf(r))) stale.push(r.id);
      if (stale.length) await queueDb.markFolded(db, opts.schema, stale);
    } finally {
      db.release();
    }
    await this.listen();
    // Woken by NOTIFY, a fold reads only rows after the last one seen; the poll reads them all
    // (a row can become visible after one with a higher id, see inbox.ts).
    this.poll = setInterval(() => {
      if (this.storeReachable()) this.scheduleFold(true);
    }, opts.pollMs ?? 1000);
    this.stopSweeper = startSweeper(this.pool, opts.schema);
  }

  /**
   * While attempts are out, the coordinator may append nothing for a long time, so it would not
   * notice that the server went away (and its hold on the run with it): the poll asks the store
   * once a second. A store that cannot be reached fails every outstanding attempt with its fault;
   * the engine then stops the run as on a failed commit, and `resume` adopts what still runs.
   */
  private storeReachable(): boolean {
    if (this.pending.size === 0) return true;
    // A commit since the last look reached the server: no round trip needed to know it.
    const committed = this.opts.commits.committed;
    if (committed !== this.lastCommitted) {
      this.lastCommitted = committed;
      return true;
    }
    try {
      this.opts.commits.check();
      return true;
    } catch (err) {
      const all = [...this.pending.values()];
      this.pending.clear();
      for (const p of all) p.reject(err);
      return false;
    }
  }

  private keyOf(r: InboxRow): string {
    return jobKey(this.names, this.opts.run, r.task, r.key === "" ? null : r.key, r.attempt);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const c = new (loadPg().Client)({ connectionString: this.opts.connectionString, keepAlive: true });
    c.on("notification", (n) => {
      // Each worker's group of reports is one notification: those arriving within a few
      // milliseconds are read together (one statement rather than one each).
      if (n.payload === this.opts.run && !this.woken)
        this.woken = setTimeout(() => {
          this.woken = undefined;
          this.scheduleFold();
        }, WAKE_GATHER_MS);
    });
    // The database restarted: listen again; the poll covers the gap.
    c.on("error", () => {
      if (this.listener === c) this.listener = undefined;
      setTimeout(() => void this.listen().catch(() => undefined), 1000);
    });
    await c.connect();
    await queueDb.listenTo(c, this.names.inbox);
    this.listener = c;
  }

  adopts(task: string, key: string | null, attempt: number): boolean {
    const k = jobKey(this.names, this.opts.run, task, key, attempt);
    if (!this.alive.delete(k)) return false;
    this.adopted.add(k);
    return true;
  }

  run(req: AttemptRequest): Promise<Outcome> {
    const k = jobKey(this.names, this.opts.run, req.ctx.recordTask, req.ctx.key, req.attempt);
    const adopted = this.adopted.delete(k);
    if (!adopted) {
      const { input, shared } = this.inputs.split(req.input);
      const payload: JobPayload = {
        run: this.opts.run,
        task: req.ctx.recordTask,
        key: req.ctx.key,
        attempt: req.attempt,
        plan: capTimeout(req.ctx.task),
        input,
        ...(shared ? { shared } : {}),
        rounds: req.rounds,
      };
      // Committed with the instance_started the engine has just appended (one transaction), as
      // one add_jobs with the commit's other jobs (merged statements, store-postgres.ts).
      this.opts.commits.addToNextCommit({ text: this.addJobs, values: [[JSON.stringify(payload)], [k]], merge: true });
    }
    return new Promise<Outcome>((resolve, reject) => {
      // The signal is the run's, shared by every attempt: the listener goes when the attempt
      // settles, or the run's signal would hold one per attempt ever started (and each add,
      // which walks the list, would cost more than the last).
      const signal = req.ctx.signal;
      const onAbort = () => void this.withdraw(k, p);
      const settled = () => signal.removeEventListener("abort", onAbort);
      const p: Pending = {
        req,
        resolve: (o) => (settled(), resolve(o)),
        reject: (err) => (settled(), reject(err)),
        lastRound: req.rounds.length,
        started: false,
        withdrawing: false,
      };
      this.pending.set(k, p);
      if (signal.aborted) void this.withdraw(k, p);
      else signal.addEventListener("abort", onAbort, { once: true });
      // An adopted attempt may have reported already; a new job's report can only follow its
      // commit, which wakes this coordinator (NOTIFY, else the poll): no read for it now.
      if (adopted) this.scheduleFold();
    });
  }

  /** A ceiling was reached: jobs no worker has taken yet are withdrawn; running ones finish. */
  halted(): void {
    try {
      this.opts.commits.flush();
    } catch {
      return; // the store is failing: the engine stops on its own
    }
    for (const [k, p] of this.pending) {
      if (p.started || p.withdrawing) continue;
      void queueDb
        .withdrawUntakenJob(this.pool, k)
        .then((withdrawn) => {
          if (withdrawn && this.pending.get(k) === p) {
            this.pending.delete(k);
            p.resolve({ status: "interrupted" });
          }
        })
        .catch(() => undefined);
    }
  }

  recorded(req: AttemptRequest): void {
    const k = jobKey(this.names, this.opts.run, req.ctx.recordTask, req.ctx.key, req.attempt);
    const id = this.finishedRow.get(k);
    if (id === undefined) return;
    this.finishedRow.delete(k);
    this.mark(id);
  }

  /** Marks rows folded with the next commit (after the events already appended for them). */
  private mark(id: string): void {
    if (this.marks.length === 0) {
      queueMicrotask(() => {
        const ids = this.marks;
        this.marks = [];
        if (ids.length) this.opts.commits.addToNextCommit({ text: queueDb.markFoldedSql(this.opts.schema), values: [ids], merge: true });
      });
    }
    this.marks.push(id);
  }

  private scheduleFold(all = false): void {
    if (this.closed) return;
    if (all) this.foldAll = true;
    if (this.folding) {
      this.foldAgain = true;
      return;
    }
    if (this.pending.size === 0) return;
    this.folding = true;
    const whole = this.foldAll;
    this.foldAll = false;
    void this.fold(whole)
      .catch(() => undefined) // the database is away: the next poll tries again
      .finally(() => {
        this.folding = false;
        if (this.foldAgain) {
          this.foldAgain = false;
          this.scheduleFold();
        }
      });
  }

  private async fold(all = true): Promise<void> {
    const rows = await queueDb.unfolded(this.pool, this.opts.schema, this.opts.run, all ? undefined : this.seen);
    for (const row of rows) {
      if (BigInt(row.id) > BigInt(this.seen)) this.seen = row.id;
      if (this.handled.has(row.id)) continue;
      const k = this.keyOf(row);
      const p = this.pending.get(k);
      if (!p) continue; // an attempt this coordinator is not waiting for (yet)
      this.handled.add(row.id);
      if (row.kind === "started") {
        p.started = true;
        this.mark(row.id);
      } else if (row.kind === "round") {
        const r = row.payload as RoundReport;
        if (r.round.round > p.lastRound) {
          p.lastRound = r.round.round;
          p.req.recordRound(r.round, r.usage);
        }
        this.mark(row.id);
      } else {
        this.pending.delete(k);
        this.finishedRow.set(k, row.id);
        p.resolve((row.payload as FinishedReport).outcome);
      }
    }
  }

  /** Cancel: a queued job is removed; a running one is told to stop and reports interrupted. */
  private async withdraw(k: string, p: Pending): Promise<void> {
    if (p.withdrawing) return;
    p.withdrawing = true;
    try {
      this.opts.commits.flush(); // the job's own commit first, so there is a job to remove
    } catch {
      // The store cannot be written (the run is stopping because of it): nothing more can be
      // recorded, so nothing is waited for; the job and its report wait in the database for resume.
      this.pending.delete(k);
      p.resolve({ status: "interrupted" });
      return;
    }
    for (;;) {
      if (!this.pending.has(k) || this.closed) return;
      try {
        const job = await queueDb.removeJob(this.pool, k);
        if (job?.id && job.locked_at === null) {
          // Removed before any worker took it.
          this.pending.delete(k);
          p.resolve({ status: "interrupted" });
          return;
        }
        if (job?.id) await queueDb.notify(this.pool, this.names.cancel, k);
        // Running (or already reported): wait for its report; a job whose worker died meanwhile
        // is no longer locked (the sweeper) and, its key removed, never runs again.
        await new Promise((res) => setTimeout(res, 1000));
        await this.fold();
        if (!this.pending.has(k)) return;
        const still = await queueDb.jobLocked(this.pool, job?.id ?? "0");
        if (job?.id && !still) {
          await this.fold();
          if (!this.pending.has(k)) return;
          await queueDb.deleteUntakenJob(this.pool, job.id);
          this.pending.delete(k);
          p.resolve({ status: "interrupted" });
          return;
        }
        if (!job?.id) continue; // no job with the key (already finished): its report is being written
      } catch {
        await new Promise((res) => setTimeout(res, 1000));
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    clearTimeout(this.woken);
    await this.stopSweeper?.();
    const l = this.listener;
    this.listener = undefined;
    await l?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
