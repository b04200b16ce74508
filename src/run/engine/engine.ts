// The scheduler (§5, §6, §9): executes an admitted plan durably, per element.
//
// Tasks expand when every direct dependency has settled (M-2: a dependent of a mapped task
// expands only after the whole dependency is terminal), so the graph advances task by task while
// instances of one task run concurrently. Each instance's fate is decided at expansion from its
// dependencies' statuses — per key on aligned edges, per task otherwise — and its gate (G-1 …
// G-6); only instances that survive are queued. Everything is keyed by (task, key) (M-4), kept
// in maps, and touched a bounded number of times, so the cost is linear in instances.
//
// Resume is the same code: the engine first folds the run's events, keeps every passed
// instance (decisions included: never asked again), and re-derives the rest. Re-deriving a
// not-taken or blocked instance that the log already holds writes nothing, so resuming a
// finished run runs nothing and writes almost nothing.
//
// This file keeps the lifecycle, the queues and the pump. Folding the log is fold-events.ts;
// whether an instance runs, gating.ts; what it reads, instance-input.ts; route instances,
// route-instance.ts; the ceilings, ceilings.ts; the per-task state, task-state.ts.

import { setMaxListeners } from "node:events";
import { join } from "node:path";
import type { Plan, TaskOf, TaskPlan } from "../../plan/plan.js";
import type { AgentRunnerConfig } from "../agents/index.js";
import { applyOverrides, type SettingsOverrides } from "./admit.js";
import {
  chargedUsd,
  type InstanceStatus,
  type RunEvent,
  type RunRepository,
  type RunStatus,
  type Settings,
  type TerminalStatus,
} from "../store/index.js";
import { isTerminal } from "../store/index.js";
import type { DecisionRecord, Judge } from "../kinds/index.js";
import { elementKeys, KeyError, keyDirName } from "./keys.js";
import {
  failedOutcome,
  type AttemptContext,
  type EvaluatorFactory,
  type InstanceInput,
  type KindEnv,
  type Outcome,
} from "../kinds/index.js";
import { CodedError, codedText } from "../../shared/coded-error.js";
import { prepareAttempt, type AttemptFiles } from "../kinds/index.js";
import { runEvaluate } from "../kinds/index.js";
import { localExecutor, type AttemptRequest, type InstanceExecutor, type WorkTask } from "./executor.js";
import { localSnapshot } from "../store/index.js";
import type { Store } from "../store/index.js";
import { errorText, isPlainObject } from "../values/index.js";
import { Launcher, type LauncherDialect } from "../process/index.js";
import { ceilingReached, WaitingClock, type Halt } from "./ceilings.js";
import { foldEvents } from "./fold-events.js";
import { closeInstance, disposition, sharedDisposition, type Emit } from "./gating.js";
import { buildInput, InputError, taskFold } from "./instance-input.js";
import { claimRun, type RunOwnership } from "../store/index.js";
import { GroupRecorder, stopOrphanedGroups } from "../process/index.js";
import { StorageFault } from "../store/index.js";
import { decideModelRoute, outputRoute } from "./route-instance.js";
import { DecisionLayerRefused, RunRefused } from "../store/index.js";
import { UNMAPPED, TaskState, taskStatus, type Inst, type Recorded, type TaskRecord } from "./task-state.js";
import { MAX_RATE_LIMITED_TRIES } from "../agents/index.js";
import { ReviewWaits, type ReviewQueueChange } from "./review-waits.js";
import { entryOf, itemAt } from "../../shared/checked-index.js";

/** What a run engine runs: the store, the run, and what it may call (judge, agent runners, executor) and override. */
export interface EngineOptions {
  store: Store;
  run: string;
  /** false for the invocation that admitted the run; true for `resume`. */
  resume: boolean;
  agentRunners?: Record<string, AgentRunnerConfig>;
  judge?: Judge;
  /** `(task) => fn` for evaluate tasks (the CLI wires src/plan's loadEvaluator). */
  evaluators?: EvaluatorFactory;
  /** Environment variable names never passed to commands or agents (provider keys, R-20). */
  secretEnv?: string[];
  /** Flags that override the recorded settings for this invocation. */
  overrides?: SettingsOverrides;
  onEvent?: (e: RunEvent) => void;
  /** First retry delay; doubles per retry (default 1000 ms). */
  retryBaseMs?: number;
  /** Spawn every command from Node instead of through launcher shells (tests, comparison). */
  directSpawn?: boolean;
  /** Use only this launcher (tests, comparison); by default the first one present. */
  launcherDialect?: LauncherDialect;
  /** Take over a run whose recorded owner cannot be verified (`resume --force`, ownership.ts). */
  force?: boolean;
  /** A claim already made by the caller (rerun claims before it records anything). */
  owner?: RunOwnership;
  /** Most bytes read from one file an instance leaves (default 16 MB, untrusted-file.ts). */
  maxFileBytes?: number;
  /** Where command, agent and revise attempts run (default: here, executor.ts). */
  executor?: InstanceExecutor;
  /** When only instances waiting for review are left, end the run as `waiting` instead of staying up (D-62). */
  detachReviews?: boolean;
  /** Told once each time only instances waiting for review are left and the run stays up (D-62). */
  onOnlyWaiting?: (waiting: number) => void;
  /** Told when questions start waiting for review and when the queue empties (D-66). */
  onReviewQueue?: (change: ReviewQueueChange) => void;
}

/** How an invocation of a run ended: its status, and why when it stopped or was cancelled. */
export interface RunOutcome {
  run: string;
  status: RunStatus;
  /** For stopped and cancelled runs: why. */
  reason?: string;
  /** For a stopped run: the reason's code (ceiling-reached). */
  code?: string;
}

/** One task's counts as the progress display shows them. */
export interface TaskProgress {
  task: string;
  kind: string;
  mapped: boolean;
  status: InstanceStatus;
  total: number | null;
  counts: Record<InstanceStatus, number>;
}

const SYNC_SLICE = 2000; // in-engine instances run per turn of the event loop before yielding
/** Queued command instances (per concurrency slot) whose files are prepared ahead of a free slot. */
const PREFETCH_PER_SLOT = 2;

/** Runs (or resumes) one run: schedules its instances within the concurrency limits, records every event, and stops at its deadline or on cancel. */
export class RunEngine {
  readonly run: string;
  readonly plan: Plan;
  readonly settings: Settings;
  private readonly store: Store;
  private readonly opts: EngineOptions;
  private readonly tasks = new Map<string, TaskState>();
  private readonly order: TaskState[] = [];
  private readonly packDir: string;
  private readonly repo: RunRepository | undefined;
  /** The run's recorded repository, for workers in workers mode. */
  get repository(): RunRepository | undefined {
    return this.repo;
  }
  /** The pack snapshot this run uses, $SWITCHYARD_PACK. */
  get packDirectory(): string {
    return this.packDir;
  }
  /** What the log says about each instance, by task and key. */
  private readonly recorded: Map<string, Map<string, Recorded>>;
  private readonly taskRecords: Map<string, TaskRecord>;
  private readonly priorMs: number;
  /** Of priorMs, the time earlier invocations only waited for review answers (D-67). */
  private readonly priorWaitMs: number;
  /** This invocation's time only waiting for review answers (D-67). */
  private readonly waitClock = new WaitingClock();
  private invStart = Date.now();
  private spent: number;
  private kindEnv!: KindEnv;
  private evaluatorCache = new Map<TaskPlan, (input: unknown) => unknown>();
  private launcher: Launcher | null | undefined;
  /** Attempt preparations in flight (prefetch). */
  private preparing = new Set<Promise<AttemptFiles>>();

  private expandQueue: TaskState[] = [];
  private inlineQueue: Array<[TaskState, Inst]> = [];
  private inlineHead = 0;
  private workQueue: Array<[TaskState, Inst]> = [];
  private workHead = 0;
  private decisionQueue: Array<[TaskState, Inst]> = [];
  private decisionHead = 0;
  private workRunning = 0;
  private decisionRunning = 0;
  private retryTimers = new Set<NodeJS.Timeout>();
  private settledTasks = 0;
  private halt: Halt | null = null;
  // Every running decision and process listens on this signal (decision_concurrency of them and
  // more), so Node's "possible memory leak" warning at 11 listeners does not apply.
  private abort = (() => {
    const c = new AbortController();
    setMaxListeners(0, c.signal);
    return c;
  })();
  private pumpScheduled = false;
  private pumping = false;
  private done: ((o: RunOutcome) => void) | null = null;
  private failure: ((e: unknown) => void) | null = null;
  private finished = false;
  /** This process's claim on the run, made before the log is folded (one owner per run). */
  private readonly owner: RunOwnership | undefined;
  /** Records the process group of every running command and agent (process-groups.ts). */
  private groups: GroupRecorder | undefined;
  /** The state database stopped taking events: nothing new starts, the run ends with this. */
  private storageFault: StorageFault | null = null;
  /** Route instances waiting for people (D-62). */
  private readonly reviews: ReviewWaits;
  /** Whether the run was said to be waiting only for reviews (said again after it moves on). */
  private saidOnlyWaiting = false;

  constructor(opts: EngineOptions) {
    this.opts = opts;
    this.store = opts.store;
    this.run = opts.run;
    this.owner = opts.owner ?? (this.store.run(opts.run) ? claimRun(this.store, opts.run, { force: opts.force }) : undefined);
    this.reviews = new ReviewWaits({
      store: this.store,
      run: this.run,
      emit: (type, task, key, payload) => this.emit(type, task, key, payload),
      judge: opts.judge,
      decided: (ts, inst, attempt, record) => {
        this.waitClock.stop();
        this.complete(ts, inst, attempt, { status: "passed", output: record }, false);
        this.schedulePump();
      },
      onChange: opts.onReviewQueue,
    });
    let folded: ReturnType<typeof foldEvents>;
    try {
      folded = foldEvents(this.store, this.run);
    } catch (err) {
      this.owner?.release();
      throw err;
    }
    const packDir = localSnapshot(this.store, opts.run, folded.packDir);
    if (packDir === undefined) {
      // Every step runs from the snapshot: without it the run cannot go on faithfully.
      this.refuse(
        new RunRefused(
          "snapshot-missing",
          `run ${opts.run}'s pack snapshot ${folded.packDir} is missing (was the run folder ${this.store.runDir(opts.run)} deleted?); the run cannot continue without it. Start a new run with \`switchyard run ${this.store.run(opts.run)?.source ?? "PACK"}\``,
        ),
      );
    }
    this.plan = folded.plan;
    this.packDir = packDir ?? folded.packDir;
    this.repo = folded.repo;
    this.recorded = folded.recorded;
    this.taskRecords = folded.taskRecords;
    this.priorMs = folded.priorMs;
    this.priorWaitMs = folded.priorWaitMs;
    this.spent = folded.spentUsd;
    this.settings = applyOverrides(folded.settings, opts.overrides);
    for (const t of this.plan.tasks) {
      const ts = new TaskState(t);
      this.tasks.set(t.name, ts);
      this.order.push(ts);
    }
    for (const ts of this.order) {
      for (const d of ts.plan.depends_on) {
        const dep = this.tasks.get(d);
        if (!dep) this.refuse(new RunRefused("bad-plan", `the plan's task ${ts.name} depends on unknown task ${d}`));
        ts.deps.push(dep);
        dep.dependents.push(ts);
        (ts.plan.aligned_with.includes(d) && ts.mapped && dep.mapped ? ts.aligned : ts.others).push(dep);
      }
      ts.waiting = ts.deps.length;
    }
  }

  // ---- public ----

  /** Counts per task for progress displays. */
  progress(): TaskProgress[] {
    return this.order.map((ts) => ({
      task: ts.name,
      kind: ts.plan.kind,
      mapped: ts.mapped,
      status: ts.status,
      total: ts.total,
      counts: { ...ts.counts },
    }));
  }

  /** Ctrl-C: running instances are killed, nothing new starts, the run can be resumed. */
  cancel(reason = "cancelled"): void {
    if (this.finished) return;
    if (!this.halt || this.halt.kind !== "cancelled") this.halt = { kind: "cancelled", reason };
    this.abort.abort();
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    this.schedulePump();
  }

  execute(): Promise<RunOutcome> {
    const types = new Set<string>();
    for (const t of this.plan.tasks) {
      if (t.kind === "route" && t.route.decide === "model") for (const q of t.route.questions) types.add(q.type);
    }
    if (types.size > 0) {
      if (!this.opts.judge) {
        this.refuse(new DecisionLayerRefused("no-judge", "the plan has model-decided routes but no decision layer was given (D-1)"));
      }
      const problems = this.opts.judge.preflight?.([...types].sort()) ?? [];
      if (problems.length)
        this.refuse(new DecisionLayerRefused("preflight", `the decision layer refused this run (D-30):\n  ${problems.join("\n  ")}`));
    }
    for (const ts of this.order) {
      const r = this.taskRecords.get(ts.name);
      if (r) {
        ts.recSettled = r.settled;
        ts.recExpanded = r.expanded;
        ts.recFailed = r.failed?.code;
      }
    }
    const secrets = new Set(this.opts.secretEnv ?? []);
    const baseEnv: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!secrets.has(k)) baseEnv[k] = v;
    const factory = this.opts.evaluators;
    this.kindEnv = {
      run: this.run,
      plan: this.plan,
      packDir: this.packDir,
      baseEnv,
      agentRunners: this.opts.agentRunners ?? {},
      ...(this.repo ? { repo: this.repo } : {}),
      ...(this.opts.maxFileBytes !== undefined ? { maxFileBytes: this.opts.maxFileBytes } : {}),
      launcher: () => {
        if (this.launcher === undefined) {
          const l = new Launcher(baseEnv, this.opts.launcherDialect);
          this.launcher = l.available && this.opts.directSpawn !== true ? l : null;
        }
        return this.launcher;
      },
      evaluatorFor: (task) => {
        let fn = this.evaluatorCache.get(task);
        if (!fn) {
          if (!factory) throw new CodedError("internal", `no evaluator was given to the engine for ${task.name}`);
          fn = factory(task);
          this.evaluatorCache.set(task, fn);
        }
        return fn;
      },
    };
    this.invStart = Date.now();
    if (this.opts.resume) this.emit("run_resumed", null, null, { settings: this.settings, pid: process.pid });
    this.store.flush();
    for (const ts of this.order) if (ts.waiting === 0) this.expandQueue.push(ts);
    return new Promise<RunOutcome>((resolve, reject) => {
      // Attempt files still being prepared (for instances that will not start now) are finished
      // before the run returns, so nothing writes into the state folder afterwards.
      // The claim is given up only then.
      const settled = () =>
        Promise.allSettled([...this.preparing]).then(() => {
          this.store.onFault = null;
          this.owner?.release();
        });
      // A commit that fails (a full disk, ...) stops the run as a cancel does.
      this.store.onFault = (f) => {
        this.storageFault ??= f;
        this.cancel(`the state database cannot be written`);
      };
      this.done = (o) => void settled().then(() => resolve(o));
      this.failure = (e) => void settled().then(() => reject(e));
      // A dead owner's instances may still run: they are stopped before anything runs again.
      const owner = this.owner;
      if (!owner) return this.schedulePump();
      this.groups = new GroupRecorder(this.store, this.run, owner.identity.token);
      stopOrphanedGroups(this.store, this.run, owner.identity.token, owner.previous).then(
        () => this.schedulePump(),
        (err) => this.fail(err),
      );
    });
  }

  /** Refuses to run: the claim is given up first. */
  private refuse(err: RunRefused): never {
    this.owner?.release();
    throw err;
  }

  // ---- events ----

  private readonly emit: Emit = (type, task, key, payload) => {
    const e = this.store.append(this.run, type, task, key, payload);
    this.spent += chargedUsd(e);
    this.opts.onEvent?.(e);
  };

  // ---- the pump ----

  /** Model decisions recorded since the store last committed (counted from `decisionsCommitted`). */
  private uncommittedDecisions = 0;
  /** store.committed when a decision was last counted: a change means the store committed since. */
  private decisionsCommitted = 0;

  private schedulePump(): void {
    if (this.pumpScheduled || this.finished) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      try {
        this.pump();
      } catch (err) {
        this.fail(err);
      }
    });
  }

  private fail(err: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.reviews.stop();
    this.abort.abort();
    this.launcher?.close();
    try {
      this.store.flush();
    } catch {
      // the original error matters more
    }
    this.failure?.(err);
  }

  private pump(): void {
    if (this.pumping || this.finished) return;
    this.pumping = true;
    try {
      let ops = 0;
      for (;;) {
        let progressed = false;
        for (let next = this.expandQueue.shift(); next !== undefined; next = this.expandQueue.shift()) {
          this.expand(next);
          progressed = true;
        }
        if (this.halt) break;
        while (this.inlineHead < this.inlineQueue.length && ops < SYNC_SLICE) {
          if (this.checkCeilings()) break;
          const [ts, inst] = itemAt(this.inlineQueue, this.inlineHead++);
          this.startInstance(ts, inst);
          ops++;
          progressed = true;
        }
        if (this.halt) break;
        while (this.workRunning < this.settings.concurrency && this.workHead < this.workQueue.length && ops < SYNC_SLICE) {
          if (this.checkCeilings()) break;
          const [ts, inst] = itemAt(this.workQueue, this.workHead++);
          if (ts.plan.kind === "evaluate") ops++;
          this.startInstance(ts, inst);
          progressed = true;
        }
        if (this.halt) break;
        this.prefetch();
        while (this.decisionRunning < this.settings.decision_concurrency && this.decisionHead < this.decisionQueue.length) {
          if (this.checkCeilings()) break;
          const [ts, inst] = itemAt(this.decisionQueue, this.decisionHead++);
          this.startInstance(ts, inst);
          progressed = true;
        }
        if (this.inlineHead === this.inlineQueue.length && this.inlineHead > 0) {
          this.inlineQueue = [];
          this.inlineHead = 0;
        }
        if (this.workHead === this.workQueue.length && this.workHead > 0) {
          this.workQueue = [];
          this.workHead = 0;
        }
        if (this.decisionHead === this.decisionQueue.length && this.decisionHead > 0) {
          this.decisionQueue = [];
          this.decisionHead = 0;
        }
        if (ops >= SYNC_SLICE) {
          // Let timers, signals and finished processes in before the next slice.
          this.pumping = false;
          this.schedulePump();
          return;
        }
        if (!progressed || this.halt) break;
      }
    } finally {
      this.pumping = false;
    }
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.finished) return;
    const active = this.workRunning + this.decisionRunning + this.retryTimers.size;
    if (active > 0) return;
    const queuedNow =
      this.expandQueue.length +
      (this.inlineQueue.length - this.inlineHead) +
      (this.workQueue.length - this.workHead) +
      (this.decisionQueue.length - this.decisionHead);
    if (this.halt || queuedNow === 0) this.launcher?.close();
    if (this.halt) {
      this.finished = true;
      this.reviews.stop();
      if (this.halt.kind === "cancelled") this.emit("run_cancelled", null, null, { reason: this.halt.reason });
      else this.emit("run_stopped", null, null, { ceiling: this.halt.ceiling, reason: this.halt.reason });
      this.store.flush(); // after a storage fault, one more try: what can be recorded is
      if (this.storageFault) this.failure?.(this.storageFault);
      else
        this.done?.({
          run: this.run,
          status: this.halt.kind,
          reason: this.halt.reason,
          ...(this.halt.kind === "stopped" ? { code: this.halt.code } : {}),
        });
      return;
    }
    const queued =
      this.expandQueue.length +
      (this.inlineQueue.length - this.inlineHead) +
      (this.workQueue.length - this.workHead) +
      (this.decisionQueue.length - this.decisionHead);
    if (queued > 0) return;
    if (this.reviews.size > 0) return this.onlyWaiting();
    if (this.settledTasks < this.order.length) {
      const stuck = this.order.filter((t) => !t.settled).map((t) => t.name);
      this.fail(new CodedError("internal", `the scheduler has nothing to run but tasks are unsettled: ${stuck.join(", ")}`));
      return;
    }
    this.finished = true;
    const failed = this.order.some((t) => t.status === "failed" || t.status === "blocked");
    const status = failed ? "failed" : "passed";
    this.emit("run_finished", null, null, { status });
    this.store.flush();
    if (this.storageFault) this.failure?.(this.storageFault);
    else this.done?.({ run: this.run, status });
  }

  /** Nothing runs but instances wait for people (D-62): end as `waiting` when detached, else stay up and say so once. */
  private onlyWaiting(): void {
    // Answers given while nothing looked (a resume, a detached run) are taken before waiting.
    if (this.reviews.poll() > 0) return;
    if (this.opts.detachReviews) {
      this.finished = true;
      this.reviews.stop();
      const reason = `${this.reviews.size} element(s) wait for review; answer them with \`switchyard review ${this.run}\`, then \`switchyard resume ${this.run}\``;
      this.emit("run_waiting", null, null, { waiting: this.reviews.size, reason });
      this.store.flush();
      if (this.storageFault) this.failure?.(this.storageFault);
      else this.done?.({ run: this.run, status: "waiting", reason });
      return;
    }
    this.waitClock.start();
    if (this.saidOnlyWaiting) return;
    this.saidOnlyWaiting = true;
    this.opts.onOnlyWaiting?.(this.reviews.size);
  }

  // ---- ceilings (R-6) ----

  elapsedMs(): number {
    return this.priorMs + (Date.now() - this.invStart);
  }

  /** The time max_duration counts: the run's wall-clock time less the time it only waited for review answers (D-67). */
  private countedMs(): number {
    return this.elapsedMs() - this.priorWaitMs - this.waitClock.ms();
  }

  spentUsd(): number {
    return this.spent;
  }

  /** Whether nothing new may start: the run is halted, or a ceiling was just reached (which halts it). */
  private checkCeilings(): boolean {
    if (this.halt) return true;
    this.halt = ceilingReached(this.settings, this.countedMs(), this.spent);
    if (this.halt) this.executor.halted?.();
    return this.halt !== null;
  }

  // ---- expansion (M-1, M-2; whether each instance runs: gating.ts) ----

  private expand(ts: TaskState): void {
    // Whatever this task reads was recorded by its dependencies: make it durable first.
    this.store.flush();
    ts.expanded = true;
    ts.status = "running";
    let keys: Array<string | null>;
    if (ts.mapped) {
      const over = ts.plan.over;
      if (!over) throw new CodedError("internal-error", `mapped task ${ts.name} has no over`);
      const producer = entryOf(this.tasks, over.task, "the run's tasks");
      if (producer.mapped) {
        const message = `${ts.name} maps over ${over.task}.${over.field}, but ${over.task} is itself mapped: its output is a fold, not a list (M-1)`;
        this.failTask(ts, codedText({ code: "over-value-not-list", message }), "over-value-not-list");
        return;
      }
      const pi = entryOf(producer.inst, UNMAPPED, `${over.task}'s instances`);
      if (pi.status !== "passed") {
        // No list to expand: the task takes its producer's fate as a whole.
        const status: TerminalStatus = pi.status === "not_taken" ? "not_taken" : "blocked";
        ts.label = pi.label;
        ts.total = 0;
        this.settle(ts, status);
        return;
      }
      const list = isPlainObject(pi.output) ? pi.output[over.field] : undefined;
      let ks: string[];
      try {
        ks = elementKeys(list, `${over.task}.${over.field}`, ts.plan.max_fanout ?? 10000);
      } catch (err) {
        if (err instanceof KeyError) {
          this.failTask(ts, `${ts.name}: ${codedText(err)}`, err.code);
          return;
        }
        throw err;
      }
      keys = ks;
      if (ts.recExpanded !== ks.length) this.emit("task_expanded", ts.name, null, { count: ks.length });
    } else keys = [null];
    ts.total = keys.length;
    const recs = this.recorded.get(ts.name);
    const shared = sharedDisposition(ts, this.tasks);
    for (const key of keys) {
      const k = key ?? UNMAPPED;
      const rec = recs?.get(k);
      const inst: Inst = { key, status: "pending", attempts: rec?.attempts ?? 0, tries: 0, rounds: rec?.rounds ?? [], rec };
      ts.inst.set(k, inst);
      ts.counts.pending += 1;
      if (rec?.status === "passed") {
        inst.output = rec.output;
        ts.setStatus(inst, "passed");
        continue;
      }
      const d = shared ?? disposition(ts, key, this.tasks);
      if (d) {
        closeInstance(ts, inst, d, this.emit);
        continue;
      }
      if (rec?.status === "waiting" && rec.review) {
        // Sent to review before (D-65): it waits again with the answers recorded so far.
        ts.open += 1;
        this.reviews.wait(ts, inst, rec.review);
        continue;
      }
      if (rec?.kept !== undefined) {
        // A rerun cleared this route instance but kept its decision: its gate is open
        // again, so the recorded answer is reused, never asked again.
        inst.output = rec.kept;
        this.emit("decision_recorded", ts.name, key, { attempt: inst.attempts, record: rec.kept as DecisionRecord, reused: true });
        ts.setStatus(inst, "passed");
        continue;
      }
      ts.open += 1;
      this.enqueue(ts, inst);
    }
    if (ts.open === 0) this.settle(ts, taskStatus(ts));
    else this.reviews.finishAnswered();
  }

  private failTask(ts: TaskState, error: string, code: string): void {
    if (ts.recFailed !== code) this.emit("task_failed", ts.name, null, { error, code });
    ts.total = 0;
    this.settle(ts, "failed");
  }

  private enqueue(ts: TaskState, inst: Inst): void {
    const t = ts.plan;
    if (t.kind === "route") (t.route.decide === "model" ? this.decisionQueue : this.inlineQueue).push([ts, inst]);
    else this.workQueue.push([ts, inst]);
  }

  /** A task is settled: record it, build its fold (M-2, G-7), release its dependents. */
  private settle(ts: TaskState, status: TerminalStatus): void {
    ts.settled = true;
    ts.status = status;
    this.settledTasks += 1;
    if (ts.mapped) {
      const fold = taskFold(ts);
      ts.fold = fold;
      if (ts.recSettled !== status) this.emit("fold_settled", ts.name, null, { status, summary: fold.summary });
    } else if (ts.recSettled !== status) {
      this.emit("task_settled", ts.name, null, { status });
    }
    for (const d of ts.dependents) {
      d.waiting -= 1;
      if (d.waiting === 0) this.expandQueue.push(d);
    }
  }

  // ---- running instances ----

  private attemptDir(ts: TaskState, inst: Inst, attempt = inst.attempts): string {
    const base = join(this.store.runDir(this.run), "work", ts.name);
    return inst.key !== null ? join(base, `${keyDirName(inst.key)}.a${attempt}`) : join(base, `a${attempt}`);
  }

  /**
   * Starts preparing the files (workspace, input, log) of the next queued command instances while
   * every slot is busy, so a freed slot starts its process at once instead of first waiting for
   * file creation, which dominates a short command's cost on slow disks. Nothing is recorded and
   * no process starts: R-5 counts running instances only. The input is final (every dependency
   * settled before the task expanded), and an attempt folder left prepared but never started (a
   * ceiling, a cancel, a crash) is cleared and reused by the next start of that attempt.
   */
  private prefetch(): void {
    if (this.halt || !this.executor.local) return;
    const end = Math.min(this.workQueue.length, this.workHead + this.settings.concurrency * PREFETCH_PER_SLOT);
    for (let i = this.workHead; i < end; i++) {
      const [ts, inst] = itemAt(this.workQueue, i);
      if (ts.plan.kind !== "command" || inst.prepared) continue;
      let input: InstanceInput;
      try {
        input = buildInput(ts, inst.key);
      } catch (err) {
        if (err instanceof InputError) continue; // startInstance fails it
        throw err;
      }
      const attempt = inst.attempts + 1;
      const files = prepareAttempt(this.attemptDir(ts, inst, attempt), input);
      this.preparing.add(files);
      // An error surfaces when the attempt starts (runCommand awaits the same promise).
      files.then(
        () => this.preparing.delete(files),
        () => this.preparing.delete(files),
      );
      inst.prepared = { attempt, input, files };
    }
  }

  private get executor(): InstanceExecutor {
    return this.opts.executor ?? localExecutor;
  }

  /** Starts an instance's next attempt (or adopts one still alive on the queue): its input, then its kind's work. */
  private startInstance(ts: TaskState, inst: Inst): void {
    // Resume in workers mode: an attempt still alive on the queue is waited for, not started again.
    const adopted = inst.rec?.status === "running" && inst.tries === 0 && this.executor.adopts?.(ts.name, inst.key, inst.attempts) === true;
    if (!adopted) inst.attempts += 1;
    const attempt = inst.attempts;
    const prepared = inst.prepared?.attempt === attempt ? inst.prepared : undefined;
    inst.prepared = undefined;
    let input: InstanceInput;
    try {
      input = prepared ? prepared.input : buildInput(ts, inst.key);
    } catch (err) {
      if (err instanceof InputError) {
        this.complete(ts, inst, attempt, failedOutcome(err.code, err.message), false);
        return;
      }
      throw err;
    }
    const plan = ts.plan;
    if (plan.kind === "evaluate") {
      const out = runEvaluate(this.ctx(ts, inst), input);
      this.complete(ts, inst, attempt, out, true);
      return;
    }
    if (plan.kind === "route" && plan.route.decide === "output") {
      this.complete(ts, inst, attempt, outputRoute(ts, plan.route, inst.key, input, this.tasks), false);
      return;
    }
    ts.setStatus(inst, "running");
    if (!adopted) this.emit("instance_started", ts.name, inst.key, { attempt });
    if (plan.kind === "route") {
      this.startDecision(ts, inst, plan.route, input, attempt);
      return;
    }
    if (plan.kind !== "command" && plan.kind !== "agent" && plan.kind !== "revise") {
      this.complete(ts, inst, attempt, { status: "failed", error: `unknown task kind ${ts.plan.kind}`, code: "bad-plan" }, false);
      return;
    }
    this.startWork(ts, inst, this.attemptRequest(ts, inst, plan, input, attempt, prepared?.files));
  }

  /** Asks the decision model a route's questions for one instance. */
  private startDecision(ts: TaskState, inst: Inst, route: TaskOf<"route">["route"], input: InstanceInput, attempt: number): void {
    const judge = this.opts.judge;
    if (!judge) throw new CodedError("internal-error", `model-decided route ${ts.name} started without a judge`);
    this.decisionRunning += 1;
    decideModelRoute(ts, route, inst.key, input, {
      judge,
      run: this.run,
      playbook: this.plan.playbook,
      tasks: this.tasks,
      signal: this.abort.signal,
      cancelled: () => this.halt?.kind === "cancelled",
      attempt,
      ...(this.groups ? { groups: this.groups.hooks(ts.name, inst.key, attempt) } : {}),
    }).then(
      (out) => {
        this.decisionRunning -= 1;
        if (out.status === "waiting") {
          if (!this.finished) this.reviews.request(ts, inst, attempt, out.questions, out.decided, out.state);
          this.saidOnlyWaiting = false;
        } else this.complete(ts, inst, attempt, out, true);
        this.schedulePump();
      },
      (err) => this.fail(err),
    );
  }

  /** What the executor runs for one attempt of a command, agent or revise instance. */
  private attemptRequest(
    ts: TaskState,
    inst: Inst,
    plan: WorkTask,
    input: InstanceInput,
    attempt: number,
    preparedFiles: Promise<AttemptFiles> | undefined,
  ): AttemptRequest {
    return {
      ctx: { ...this.ctx(ts, inst), task: plan },
      input,
      attempt,
      ...(preparedFiles ? { prepared: preparedFiles } : {}),
      rounds: inst.rounds,
      recordRound: (r, usage) => {
        inst.rounds = [...inst.rounds, r];
        this.emit("revise_round", ts.name, inst.key, {
          attempt,
          round: r.round,
          body: r.body,
          verdict: r.verdict,
          ...(r.feedback !== undefined ? { feedback: r.feedback } : {}),
          ...(usage ? { usage } : {}),
        });
      },
      mayStartRound: () => !this.checkCeilings(),
    };
  }

  /** Runs an attempt on the executor and completes the instance with its outcome. */
  private startWork(ts: TaskState, inst: Inst, req: AttemptRequest): void {
    const attempt = req.attempt;
    this.workRunning += 1;
    this.executor.run(req).then(
      (out) => {
        this.workRunning -= 1;
        this.complete(ts, inst, attempt, out, true);
        this.executor.recorded?.(req);
        this.schedulePump();
      },
      (err) => {
        this.workRunning -= 1;
        if (err instanceof StorageFault) {
          // Its files could not be written (a full disk), or the queue lost the store: the run
          // stops as when a commit fails, and the attempt runs again on resume.
          this.storageFault ??= err;
          this.cancel(err.code === "store-unreachable" ? "the store cannot be reached" : "the run folder cannot be written");
          this.complete(ts, inst, attempt, { status: "interrupted" }, false);
        } else this.complete(ts, inst, attempt, { status: "failed", error: `internal: ${errorText(err)}`, code: "internal" }, false);
        this.executor.recorded?.(req);
        this.schedulePump();
      },
    );
  }

  private ctx(ts: TaskState, inst: Inst): AttemptContext {
    return {
      env: this.kindEnv,
      task: ts.plan,
      recordTask: ts.name,
      key: inst.key,
      dir: ts.plan.kind === "evaluate" ? "" : this.attemptDir(ts, inst),
      signal: this.abort.signal,
      ...(this.groups ? { groups: this.groups.hooks(ts.name, inst.key, inst.attempts) } : {}),
    };
  }

  /**
   * A model's decision was just appended. It is committed before anything acts on it (a
   * dependent's expansion flushes first), and never asked again. Commits are grouped: at the
   * latest once decision_concurrency decisions wait uncommitted (else by the store's ~15 ms
   * timer), so a kill can lose fewer than decision_concurrency answered decisions besides those
   * in flight (docs/runs.md), without paying a transaction per decision. Nothing acts on the
   * group yet, so its commit does not wait for the disk (synced in the background; the flush
   * before acting syncs it too): the thread that drives the requests in flight keeps going.
   */
  private decisionRecorded(): void {
    // A commit of the store's own (its timer) took the decisions before this one along.
    if (this.store.committed !== this.decisionsCommitted) this.uncommittedDecisions = 0;
    if (++this.uncommittedDecisions >= this.settings.decision_concurrency) {
      this.uncommittedDecisions = 0;
      this.store.flushWithBackgroundSync();
    }
    this.decisionsCommitted = this.store.committed;
  }

  private complete(ts: TaskState, inst: Inst, attempt: number, out: Outcome, retryable: boolean): void {
    if (this.finished) return;
    if (out.status === "interrupted") {
      this.emit("instance_interrupted", ts.name, inst.key, { attempt, ...(out.usage ? { usage: out.usage } : {}) });
      ts.setStatus(inst, "pending");
      return;
    }
    if (out.status === "passed") {
      inst.output = out.output;
      inst.error = undefined;
      if (ts.plan.kind === "route") {
        this.emit("decision_recorded", ts.name, inst.key, { attempt, record: out.output as DecisionRecord });
        if (ts.plan.route.decide === "model") this.decisionRecorded();
      } else {
        this.emit("instance_finished", ts.name, inst.key, {
          attempt,
          status: "passed",
          output: out.output,
          ...(out.usage ? { usage: out.usage } : {}),
          ...(out.runnerConcurrency ? { runner_concurrency: out.runnerConcurrency } : {}),
        });
      }
      ts.setStatus(inst, "passed");
    } else {
      // A rate limit the tool reported is tried again after its delay, not counted as a failed
      // attempt, up to MAX_RATE_LIMITED_TRIES in a row.
      const limited =
        out.rateLimit && retryable && !this.halt && (inst.rateLimits ?? 0) < MAX_RATE_LIMITED_TRIES ? out.rateLimit : undefined;
      if (limited || (retryable && inst.tries < ts.plan.retries && !this.halt)) {
        if (limited) inst.rateLimits = (inst.rateLimits ?? 0) + 1;
        else inst.tries += 1;
        const delay = limited ? limited.delay_ms : Math.min((this.opts.retryBaseMs ?? 1000) * 2 ** (inst.tries - 1), 30000);
        this.emit("instance_retried", ts.name, inst.key, {
          attempt,
          error: out.error,
          code: out.code,
          delay_ms: delay,
          ...(out.usage ? { usage: out.usage } : {}),
          ...(limited ? { rate_limited: { runner: limited.runner, concurrency: limited.concurrency } } : {}),
        });
        ts.setStatus(inst, "pending");
        const timer = setTimeout(() => {
          this.retryTimers.delete(timer);
          this.enqueue(ts, inst);
          this.schedulePump();
        }, delay);
        this.retryTimers.add(timer);
        return;
      }
      inst.error = out.error;
      this.emit("instance_finished", ts.name, inst.key, {
        attempt,
        status: "failed",
        error: out.error,
        code: out.code,
        ...(out.usage ? { usage: out.usage } : {}),
      });
      ts.setStatus(inst, "failed");
    }
    ts.open -= 1;
    if (ts.open === 0) this.settle(ts, taskStatus(ts));
  }
}

export { isTerminal };
