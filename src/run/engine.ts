// The scheduler (§5, §6, §9): executes an admitted plan durably, per element.
//
// Tasks expand when every direct dependency has settled (M-2: a dependent of a mapped task
// expands only after the whole dependency is terminal), so the graph advances task by task while
// instances of one task run concurrently. Each instance's fate is decided at expansion from its
// dependencies' statuses — per key on aligned edges, per task otherwise — and its gate (G-1 …
// G-6); only instances that survive are queued. Everything is keyed by (task, key) (M-4), kept
// in maps, and touched a bounded number of times, so the cost is linear in instances.
//
// Resume (R-4) is the same code: the engine first folds the run's events, keeps every passed
// instance (decisions included: never asked again), and re-derives the rest. Re-deriving a
// not-taken or blocked instance that the log already holds writes nothing, so resuming a
// finished run runs nothing and writes almost nothing.

import { setMaxListeners } from "node:events";
import { join } from "node:path";
import type { FieldRef, Plan, TaskPlan } from "../plan/plan.js";
import { UNCERTAIN } from "../plan/plan.js";
import type { AgentRunnerConfig } from "./agent-runner-config.js";
import { applyOverrides, type SettingsOverrides } from "./admit.js";
import type { EventPayloads, EventType, FoldSummary, InstanceStatus, RunEvent, RunStatus, Settings, TerminalStatus } from "./events.js";
import { isTerminal } from "./events.js";
import { DecisionFailure, type DecisionRecord, type Judge, type Usage } from "./judge.js";
import { elementKeys, KeyError, keyDirName } from "./keys.js";
import type { AttemptContext, EvaluatorFactory, InstanceInput, KindEnv, Outcome } from "./kinds/context.js";
import { prepareAttempt, runCommand, type AttemptFiles } from "./kinds/command.js";
import { runAgent } from "./kinds/agent.js";
import { runEvaluate } from "./kinds/evaluate.js";
import { runRevise, type ReviseRound } from "./kinds/revise.js";
import { outputDecision, resolveQuestions, RouteError } from "./kinds/route.js";
import type { Store } from "./store.js";
import { errorText, isPlainObject, stableStringify } from "./values.js";
import { OptionsError } from "./dynamic-options.js";
import { Launcher } from "./launcher.js";

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
  /** Flags that override the recorded settings for this invocation (R-5, R-6). */
  overrides?: SettingsOverrides;
  onEvent?: (e: RunEvent) => void;
  /** First retry delay; doubles per retry (default 1000 ms). */
  retryBaseMs?: number;
  /** Spawn every command from Node instead of through launcher shells (tests, comparison). */
  directSpawn?: boolean;
}

export interface RunOutcome {
  run: string;
  status: RunStatus;
  /** For stopped and cancelled runs: why. */
  reason?: string;
}

export class RunRefused extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface TaskProgress {
  task: string;
  kind: string;
  mapped: boolean;
  status: InstanceStatus;
  total: number | null;
  counts: Record<InstanceStatus, number>;
}

/** What the log says about one instance (folded from its events). */
interface Recorded {
  status: InstanceStatus;
  output?: unknown;
  label?: string;
  error?: string;
  attempts: number;
  rounds: ReviseRound[];
}

interface Inst {
  key: string | null;
  status: InstanceStatus;
  output?: unknown;
  label?: string;
  error?: string;
  attempts: number;
  /** Failed attempts in this invocation (for `retries`). */
  tries: number;
  rounds: ReviseRound[];
  rec?: Recorded;
  /** A command attempt whose files are being prepared before it starts (see prefetch). */
  prepared?: PreparedAttempt;
}

interface PreparedAttempt {
  attempt: number;
  input: InstanceInput;
  files: Promise<AttemptFiles>;
}

class TaskState {
  readonly name: string;
  readonly mapped: boolean;
  deps: TaskState[] = [];
  aligned: TaskState[] = [];
  others: TaskState[] = [];
  dependents: TaskState[] = [];
  waiting = 0;
  expanded = false;
  settled = false;
  status: InstanceStatus = "pending";
  inst = new Map<string, Inst>();
  open = 0;
  total: number | null = null;
  counts: Record<InstanceStatus, number> = { pending: 0, running: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 };
  fold: unknown = null;
  /** Task-level label when not taken as a whole (an unmapped task's closing label). */
  label?: string;
  recSettled?: TerminalStatus;
  recExpanded?: number;
  recFailed?: string;
  constructor(readonly plan: TaskPlan) {
    this.name = plan.name;
    this.mapped = plan.over !== undefined;
  }
}

const UNMAPPED = "";
const SYNC_SLICE = 2000; // in-engine instances run per turn of the event loop before yielding
/** Queued command instances (per concurrency slot) whose files are prepared ahead of a free slot. */
const PREFETCH_PER_SLOT = 2;

type Halt = { kind: "stopped"; ceiling: "max_duration" | "budget_usd"; reason: string } | { kind: "cancelled"; reason: string };

export class RunEngine {
  readonly run: string;
  readonly plan: Plan;
  readonly settings: Settings;
  private readonly store: Store;
  private readonly opts: EngineOptions;
  private readonly tasks = new Map<string, TaskState>();
  private readonly order: TaskState[] = [];
  private readonly packDir: string;
  /** The pack snapshot this run uses (R-1), $SWITCHYARD_PACK. */
  get packDirectory(): string {
    return this.packDir;
  }
  private readonly recorded = new Map<string, Map<string, Recorded>>();
  private priorMs = 0;
  private invStart = Date.now();
  private spent = 0;
  private lastRunEnd: RunStatus | null = null;
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

  constructor(opts: EngineOptions) {
    this.opts = opts;
    this.store = opts.store;
    this.run = opts.run;
    if (opts.resume) {
      const row = this.store.run(opts.run);
      if (row && row.status === "running" && processAlive(row.pid)) {
        throw new RunRefused(`run-busy: run ${opts.run} is being executed by process ${row.pid}; cancel it first (switchyard cancel ${opts.run})`, "run-busy");
      }
    }
    const folded = this.foldEvents();
    this.plan = folded.plan;
    this.packDir = folded.packDir;
    this.settings = applyOverrides(folded.settings, opts.overrides);
    for (const t of this.plan.tasks) {
      const ts = new TaskState(t);
      this.tasks.set(t.name, ts);
      this.order.push(ts);
    }
    for (const ts of this.order) {
      for (const d of ts.plan.depends_on) {
        const dep = this.tasks.get(d);
        if (!dep) throw new RunRefused(`the plan's task ${ts.name} depends on unknown task ${d}`, "bad-plan");
        ts.deps.push(dep);
        dep.dependents.push(ts);
        (ts.plan.aligned_with.includes(d) && ts.mapped && dep.mapped ? ts.aligned : ts.others).push(dep);
      }
      ts.waiting = ts.deps.length;
    }
  }

  // ---- folding the log (R-4) ----

  private foldEvents(): { plan: Plan; packDir: string; settings: Settings } {
    let plan: Plan | undefined;
    let packDir = "";
    let settings: Settings | undefined;
    let invStartMs = 0;
    let lastMs = 0;
    let prior = 0;
    const rec = (task: string, key: string | null): Recorded => {
      let m = this.recorded.get(task);
      if (!m) this.recorded.set(task, (m = new Map()));
      const k = key ?? UNMAPPED;
      let r = m.get(k);
      if (!r) m.set(k, (r = { status: "pending", attempts: 0, rounds: [] }));
      return r;
    };
    const taskRec = new Map<string, { settled?: TerminalStatus; expanded?: number; failed?: string }>();
    const tr = (t: string) => {
      let x = taskRec.get(t);
      if (!x) taskRec.set(t, (x = {}));
      return x;
    };
    const charge = (u?: Usage) => {
      if (u?.cost_usd) this.spent += u.cost_usd;
    };
    for (const e of this.store.events(this.run)) {
      const t = Date.parse(e.time);
      switch (e.type) {
        case "plan_admitted": {
          const p = e.payload as EventPayloads["plan_admitted"];
          plan = p.plan;
          packDir = p.snapshot.dir;
          settings = p.settings;
          invStartMs = t;
          break;
        }
        case "run_resumed":
          prior += lastMs - invStartMs;
          invStartMs = t;
          settings = (e.payload as EventPayloads["run_resumed"]).settings;
          break;
        case "task_expanded":
          tr(e.task!).expanded = (e.payload as EventPayloads["task_expanded"]).count;
          break;
        case "task_failed":
          tr(e.task!).failed = (e.payload as EventPayloads["task_failed"]).error;
          break;
        case "fold_settled":
        case "task_settled":
          tr(e.task!).settled = (e.payload as EventPayloads["task_settled"]).status;
          break;
        case "instance_started": {
          const r = rec(e.task!, e.key);
          r.status = "running";
          r.attempts = Math.max(r.attempts, (e.payload as EventPayloads["instance_started"]).attempt);
          break;
        }
        case "instance_finished": {
          const p = e.payload as EventPayloads["instance_finished"];
          const r = rec(e.task!, e.key);
          r.status = p.status;
          r.output = p.output;
          r.error = p.error;
          r.label = undefined;
          r.attempts = Math.max(r.attempts, p.attempt);
          charge(p.usage);
          break;
        }
        case "decision_recorded": {
          const p = e.payload as EventPayloads["decision_recorded"];
          const r = rec(e.task!, e.key);
          r.status = "passed";
          r.output = p.record;
          r.attempts = Math.max(r.attempts, p.attempt);
          break;
        }
        case "instance_retried": {
          const p = e.payload as EventPayloads["instance_retried"];
          const r = rec(e.task!, e.key);
          r.status = "pending";
          r.attempts = Math.max(r.attempts, p.attempt);
          charge(p.usage);
          break;
        }
        case "instance_interrupted":
          rec(e.task!, e.key).status = "pending";
          break;
        case "gate_closed": {
          const r = rec(e.task!, e.key);
          r.status = "not_taken";
          r.label = (e.payload as EventPayloads["gate_closed"]).label;
          r.output = undefined;
          break;
        }
        case "revise_round": {
          const p = e.payload as EventPayloads["revise_round"];
          const r = rec(e.task!, e.key);
          r.rounds = r.rounds.slice(0, p.round - 1);
          r.rounds.push({ round: p.round, body: p.body, verdict: p.verdict, ...(p.feedback !== undefined ? { feedback: p.feedback } : {}) });
          charge(p.usage);
          break;
        }
        case "run_stopped":
          this.lastRunEnd = "stopped";
          break;
        case "run_cancelled":
          this.lastRunEnd = "cancelled";
          break;
        case "run_finished":
          this.lastRunEnd = (e.payload as EventPayloads["run_finished"]).status;
          break;
      }
      lastMs = t;
    }
    if (!plan || !settings) throw new RunRefused(`unknown-run: no run ${this.run} in ${this.store.stateDir}`, "unknown-run");
    this.priorMs = prior + (lastMs - invStartMs);
    this.taskRecords = taskRec;
    return { plan, packDir, settings };
  }
  private taskRecords = new Map<string, { settled?: TerminalStatus; expanded?: number; failed?: string }>();

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

  /** Ctrl-C (R-7): running instances are killed, nothing new starts, the run can be resumed. */
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
      if (t.kind === "route" && t.route!.decide === "model") for (const q of t.route!.questions) types.add(q.type);
    }
    if (types.size > 0) {
      if (!this.opts.judge) {
        throw new RunRefused("no-judge: the plan has model-decided routes but no decision layer was given (D-1)", "no-judge");
      }
      const problems = this.opts.judge.preflight?.([...types].sort()) ?? [];
      if (problems.length) throw new RunRefused(`preflight: the decision layer refused this run (D-30):\n  ${problems.join("\n  ")}`, "preflight");
    }
    for (const ts of this.order) {
      const r = this.taskRecords.get(ts.name);
      if (r) {
        ts.recSettled = r.settled;
        ts.recExpanded = r.expanded;
        ts.recFailed = r.failed;
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
      launcher: () => {
        if (this.launcher === undefined) {
          const l = new Launcher(baseEnv);
          this.launcher = l.available && this.opts.directSpawn !== true ? l : null;
        }
        return this.launcher;
      },
      evaluatorFor: (task) => {
        let fn = this.evaluatorCache.get(task);
        if (!fn) {
          if (!factory) throw new Error(`no evaluator was given to the engine for ${task.name}`);
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
      const settled = () => Promise.allSettled([...this.preparing]);
      this.done = (o) => void settled().then(() => resolve(o));
      this.failure = (e) => void settled().then(() => reject(e));
      this.schedulePump();
    });
  }

  // ---- events ----

  private emit<T extends EventType>(type: T, task: string | null, key: string | null, payload: EventPayloads[T]): void {
    const e = this.store.append(this.run, type, task, key, payload);
    this.opts.onEvent?.(e);
  }

  private setStatus(ts: TaskState, inst: Inst, s: InstanceStatus): void {
    ts.counts[inst.status] -= 1;
    inst.status = s;
    ts.counts[s] += 1;
  }

  // ---- the pump ----

  /** Model decisions recorded since the engine last committed because of them. */
  private uncommittedDecisions = 0;

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
        while (this.expandQueue.length) {
          this.expand(this.expandQueue.shift()!);
          progressed = true;
        }
        if (this.halt) break;
        while (this.inlineHead < this.inlineQueue.length && ops < SYNC_SLICE) {
          if (this.checkCeilings()) break;
          const [ts, inst] = this.inlineQueue[this.inlineHead++]!;
          this.startInstance(ts, inst);
          ops++;
          progressed = true;
        }
        if (this.halt) break;
        while (this.workRunning < this.settings.concurrency && this.workHead < this.workQueue.length && ops < SYNC_SLICE) {
          if (this.checkCeilings()) break;
          const [ts, inst] = this.workQueue[this.workHead++]!;
          if (ts.plan.kind === "evaluate") ops++;
          this.startInstance(ts, inst);
          progressed = true;
        }
        if (this.halt) break;
        this.prefetch();
        while (this.decisionRunning < this.settings.decision_concurrency && this.decisionHead < this.decisionQueue.length) {
          if (this.checkCeilings()) break;
          const [ts, inst] = this.decisionQueue[this.decisionHead++]!;
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
    const queuedNow = this.expandQueue.length + (this.inlineQueue.length - this.inlineHead) + (this.workQueue.length - this.workHead) + (this.decisionQueue.length - this.decisionHead);
    if (this.halt || queuedNow === 0) this.launcher?.close();
    if (this.halt) {
      this.finished = true;
      if (this.halt.kind === "cancelled") this.emit("run_cancelled", null, null, { reason: this.halt.reason });
      else this.emit("run_stopped", null, null, { ceiling: this.halt.ceiling, reason: this.halt.reason });
      this.store.flush();
      this.done?.({ run: this.run, status: this.halt.kind, reason: this.halt.reason });
      return;
    }
    const queued = this.expandQueue.length + (this.inlineQueue.length - this.inlineHead) + (this.workQueue.length - this.workHead) + (this.decisionQueue.length - this.decisionHead);
    if (queued > 0) return;
    if (this.settledTasks < this.order.length) {
      const stuck = this.order.filter((t) => !t.settled).map((t) => t.name);
      this.fail(new Error(`internal: the scheduler has nothing to run but tasks are unsettled: ${stuck.join(", ")}`));
      return;
    }
    this.finished = true;
    const failed = this.order.some((t) => t.status === "failed" || t.status === "blocked");
    const status = failed ? "failed" : "passed";
    this.emit("run_finished", null, null, { status });
    this.store.flush();
    this.done?.({ run: this.run, status });
  }

  // ---- ceilings (R-6) ----

  elapsedMs(): number {
    return this.priorMs + (Date.now() - this.invStart);
  }

  spentUsd(): number {
    return this.spent;
  }

  private checkCeilings(): boolean {
    if (this.halt) return true;
    const limit = this.settings.max_duration_seconds * 1000;
    const elapsed = this.elapsedMs();
    if (elapsed >= limit) {
      this.halt = {
        kind: "stopped",
        ceiling: "max_duration",
        reason: `ceiling-reached: max_duration of ${this.settings.max_duration_seconds}s reached (${(elapsed / 1000).toFixed(1)}s over all invocations) (R-6); resume with a higher --max-duration`,
      };
      return true;
    }
    const budget = this.settings.budget_usd;
    if (budget !== undefined && this.spent >= budget) {
      this.halt = {
        kind: "stopped",
        ceiling: "budget_usd",
        reason: `ceiling-reached: budget_usd of $${budget} reached ($${this.spent.toFixed(4)} reported by agents) (R-6); resume with a higher --budget-usd`,
      };
      return true;
    }
    return false;
  }

  // ---- expansion (M-1, M-2, G-1 … G-6) ----

  private expand(ts: TaskState): void {
    // Whatever this task reads was recorded by its dependencies: make it durable first.
    this.store.flush();
    ts.expanded = true;
    ts.status = "running";
    let keys: Array<string | null>;
    if (ts.mapped) {
      const over = ts.plan.over!;
      const producer = this.tasks.get(over.task)!;
      if (producer.mapped) {
        this.failTask(ts, `over-not-list: ${ts.name} maps over ${over.task}.${over.field}, but ${over.task} is itself mapped (M-1)`, "over-not-list");
        return;
      }
      const pi = producer.inst.get(UNMAPPED)!;
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
          this.failTask(ts, `${ts.name}: ${err.message}`, err.code);
          return;
        }
        throw err;
      }
      keys = ks;
      if (ts.recExpanded !== ks.length) this.emit("task_expanded", ts.name, null, { count: ks.length });
    } else keys = [null];
    ts.total = keys.length;
    const recs = this.recorded.get(ts.name);
    const shared = this.sharedDisposition(ts);
    for (const key of keys) {
      const k = key ?? UNMAPPED;
      const rec = recs?.get(k);
      const inst: Inst = { key, status: "pending", attempts: rec?.attempts ?? 0, tries: 0, rounds: rec?.rounds ?? [], rec };
      ts.inst.set(k, inst);
      ts.counts.pending += 1;
      if (rec?.status === "passed") {
        inst.output = rec.output;
        this.setStatus(ts, inst, "passed");
        continue;
      }
      const d = shared ?? this.disposition(ts, key);
      if (d) {
        this.close(ts, inst, d);
        continue;
      }
      ts.open += 1;
      this.enqueue(ts, inst);
    }
    if (ts.open === 0) this.settle(ts, this.taskStatus(ts));
  }

  private failTask(ts: TaskState, error: string, code: string): void {
    if (ts.recFailed !== error) this.emit("task_failed", ts.name, null, { error, code });
    ts.total = 0;
    this.settle(ts, "failed");
  }

  private enqueue(ts: TaskState, inst: Inst): void {
    const k = ts.plan.kind;
    if (k === "route") (ts.plan.route!.decide === "model" ? this.decisionQueue : this.inlineQueue).push([ts, inst]);
    else this.workQueue.push([ts, inst]);
  }

  /**
   * Disposition shared by every instance: only when the task has no aligned dependency and its
   * gate (if any) is on an unmapped route; then one answer serves all keys.
   */
  private sharedDisposition(ts: TaskState): Disposition | null | undefined {
    if (ts.aligned.length > 0) return undefined;
    const w = ts.plan.when;
    if (w && this.tasks.get(w.route)!.mapped) return undefined;
    return this.disposition(ts, null);
  }

  /** Why an instance will not run (not taken or blocked), or null if it runs. */
  private disposition(ts: TaskState, key: string | null): Disposition | null {
    const k = key ?? UNMAPPED;
    if (ts.plan.join === "all") {
      // G-5: not taken wins over failed/blocked.
      let blocked: string | null = null;
      for (const d of ts.deps) {
        const aligned = ts.aligned.includes(d);
        const di = aligned ? d.inst.get(k) : undefined;
        const st = di ? di.status : d.status;
        if (st === "not_taken") {
          const label = di ? di.label : d.mapped ? d.label : (d.inst.get(UNMAPPED)?.label ?? d.label);
          return { status: "not_taken", label, reason: `dependency ${d.name}${aligned ? `[${k}]` : ""} was not taken (G-5)` };
        }
        if ((st === "failed" || st === "blocked") && blocked === null) blocked = `dependency ${d.name}${aligned ? `[${k}]` : ""} ${st} (G-5)`;
      }
      if (blocked) return { status: "blocked", reason: blocked };
    } else if (ts.aligned.length > 0 && key !== null) {
      // G-6: an element untaken on every aligned dependency stays untaken down its chain.
      let label: string | undefined;
      let all = true;
      for (const d of ts.aligned) {
        const di = d.inst.get(k);
        if ((di ? di.status : d.status) !== "not_taken") {
          all = false;
          break;
        }
        label ??= di ? di.label : d.label;
      }
      if (all) return { status: "not_taken", label, reason: "every aligned dependency was not taken for this key (G-6)" };
    }
    const w = ts.plan.when;
    if (w) {
      const route = this.tasks.get(w.route)!;
      if (route.mapped && key === null) return { status: "blocked", reason: `gate on mapped route ${w.route} from an unmapped task (G-2)` };
      const ri = route.mapped ? route.inst.get(k) : route.inst.get(UNMAPPED);
      if (!ri) return { status: "blocked", reason: `route ${w.route} has no instance for key ${k} (G-2)` };
      if (ri.status === "not_taken") return { status: "not_taken", label: ri.label, reason: `gate route ${w.route} was not taken (G-5)` };
      if (ri.status !== "passed") return { status: "blocked", reason: `gate route ${w.route}${route.mapped ? `[${k}]` : ""} ${ri.status}; its answer is unknown (G-1)` };
      const answer = (ri.output as DecisionRecord | undefined)?.[w.question];
      const label = answer?.label;
      if (typeof label !== "string") return { status: "blocked", reason: `route ${w.route} recorded no answer to ${w.question} (G-1)` };
      const open = w.labels.includes(label) || (w.any_option && label !== UNCERTAIN);
      if (!open) return { status: "not_taken", label, reason: `gate closed: ${w.route}.${w.question} answered ${label} (G-1)` };
    }
    return null;
  }

  private close(ts: TaskState, inst: Inst, d: Disposition): void {
    const rec = inst.rec;
    if (d.status === "not_taken") {
      inst.label = d.label;
      if (!(rec?.status === "not_taken" && rec.label === d.label)) {
        this.emit("gate_closed", ts.name, inst.key, { ...(d.label !== undefined ? { label: d.label } : {}), reason: d.reason });
      }
    } else {
      inst.error = d.reason;
      if (!(rec?.status === "blocked" && rec.error === d.reason)) {
        this.emit("instance_finished", ts.name, inst.key, { attempt: inst.attempts, status: "blocked", error: d.reason });
      }
    }
    this.setStatus(ts, inst, d.status);
  }

  private taskStatus(ts: TaskState): TerminalStatus {
    if (!ts.mapped) return ts.inst.get(UNMAPPED)!.status as TerminalStatus;
    const c = ts.counts;
    if (c.failed > 0 || c.blocked > 0) return "failed";
    if (ts.total! > 0 && c.not_taken === ts.total) return "not_taken";
    return "passed";
  }

  /** A task is settled: record it, build its fold (M-2, G-7), release its dependents. */
  private settle(ts: TaskState, status: TerminalStatus): void {
    ts.settled = true;
    ts.status = status;
    this.settledTasks += 1;
    if (ts.mapped) {
      const summary: FoldSummary = {
        total: ts.total ?? 0,
        passed: ts.counts.passed,
        failed: ts.counts.failed,
        not_taken: ts.counts.not_taken,
        blocked: ts.counts.blocked,
      };
      const items: Record<string, unknown> = {};
      const statuses: Record<string, string> = {};
      for (const [k, inst] of ts.inst) {
        if (inst.status === "passed") items[k] = inst.output;
        statuses[k] = inst.status;
      }
      ts.fold = { items, status: statuses, summary };
      if (ts.recSettled !== status) this.emit("fold_settled", ts.name, null, { status, summary });
    } else if (ts.recSettled !== status) {
      this.emit("task_settled", ts.name, null, { status });
    }
    for (const d of ts.dependents) {
      d.waiting -= 1;
      if (d.waiting === 0) this.expandQueue.push(d);
    }
  }

  // ---- inputs (R-20, M-2, M-3) ----

  private buildInput(ts: TaskState, key: string | null): InstanceInput {
    const k = key ?? UNMAPPED;
    const inputs: Record<string, unknown> = {};
    const settled = ts.plan.join === "settled";
    const statuses: Record<string, string> = {};
    for (const d of ts.deps) {
      if (ts.aligned.includes(d)) {
        const di = d.inst.get(k);
        inputs[d.name] = di?.status === "passed" ? di.output : null;
        if (settled) statuses[d.name] = di ? di.status : d.status;
      } else if (d.mapped) {
        inputs[d.name] = d.fold;
        if (settled) statuses[d.name] = d.status;
      } else {
        const di = d.inst.get(UNMAPPED);
        inputs[d.name] = di?.status === "passed" ? di.output : null;
        if (settled) statuses[d.name] = d.status;
      }
    }
    if (key !== null) {
      for (const ref of ts.plan.keyed) {
        const producer = inputs[ref.task];
        if (!isPlainObject(producer)) throw new InputError(`keyed-missing: ${ref.task} did not pass, so ${ref.task}.${ref.field} has no entry for key ${JSON.stringify(key)} (M-3)`, "keyed-missing");
        const obj = producer[ref.field];
        if (!isPlainObject(obj)) throw new InputError(`keyed-not-object: ${ref.task}.${ref.field} is not an object keyed by element (M-3)`, "keyed-not-object");
        if (!Object.hasOwn(obj, key)) throw new InputError(`keyed-missing: ${ref.task}.${ref.field} has no entry for key ${JSON.stringify(key)} (M-3)`, "keyed-missing");
        inputs[ref.task] = { ...producer, [ref.field]: obj[key] };
      }
    }
    const input: InstanceInput = key !== null ? { key, inputs } : { inputs };
    if (settled) input.statuses = statuses;
    return input;
  }

  /** Reads `producer.field` as this instance sees it: aligned → own instance; mapped route → entry by key. */
  private readRef(ts: TaskState, key: string | null, ref: FieldRef, input: InstanceInput): unknown {
    const dep = this.tasks.get(ref.task)!;
    const k = key ?? UNMAPPED;
    if (ts.aligned.includes(dep)) {
      const di = dep.inst.get(k);
      if (!di || di.status !== "passed") throw new InputError(`route-source-missing: ${ref.task}[${k}] did not pass (${di?.status ?? dep.status}) (T-3)`, "route-source-missing");
      return isPlainObject(di.output) ? di.output[ref.field] : undefined;
    }
    // Unmapped producer: read through the (possibly keyed-narrowed) input, else the raw output.
    const di = dep.inst.get(UNMAPPED);
    if (!di || di.status !== "passed") throw new InputError(`route-source-missing: ${ref.task} did not pass (${di?.status ?? dep.status}) (T-3)`, "route-source-missing");
    const out = di.output as Record<string, unknown>;
    const value = out[ref.field];
    if (key === null) return value;
    const narrowed = input.inputs[ref.task];
    if (ts.plan.keyed.some((r) => r.task === ref.task && r.field === ref.field) && isPlainObject(narrowed)) return narrowed[ref.field];
    if (!isPlainObject(value)) throw new InputError(`route-source-missing: ${ref.task}.${ref.field} is not an object keyed by element (T-3)`, "route-source-missing");
    if (!Object.hasOwn(value, key)) throw new InputError(`route-source-missing: ${ref.task}.${ref.field} has no entry for key ${JSON.stringify(key)} (T-3)`, "route-source-missing");
    return value[key];
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
    if (this.halt) return;
    const end = Math.min(this.workQueue.length, this.workHead + this.settings.concurrency * PREFETCH_PER_SLOT);
    for (let i = this.workHead; i < end; i++) {
      const [ts, inst] = this.workQueue[i]!;
      if (ts.plan.kind !== "command" || inst.prepared) continue;
      let input: InstanceInput;
      try {
        input = this.buildInput(ts, inst.key);
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

  private startInstance(ts: TaskState, inst: Inst): void {
    inst.attempts += 1;
    const attempt = inst.attempts;
    const prepared = inst.prepared?.attempt === attempt ? inst.prepared : undefined;
    inst.prepared = undefined;
    let input: InstanceInput;
    try {
      input = prepared ? prepared.input : this.buildInput(ts, inst.key);
    } catch (err) {
      if (err instanceof InputError) {
        this.complete(ts, inst, attempt, { status: "failed", error: err.message, code: err.code }, false);
        return;
      }
      throw err;
    }
    const kind = ts.plan.kind;
    if (kind === "evaluate") {
      const out = runEvaluate(this.ctx(ts, inst), input);
      this.complete(ts, inst, attempt, out, true);
      return;
    }
    if (kind === "route" && ts.plan.route!.decide === "output") {
      let out: Outcome;
      try {
        const entry = this.readRef(ts, inst.key, ts.plan.route!.source!, input);
        const where = `${ts.plan.route!.source!.task}.${ts.plan.route!.source!.field}${inst.key !== null ? `[${JSON.stringify(inst.key)}]` : ""}`;
        out = { status: "passed", output: outputDecision(ts.plan, entry, where) };
      } catch (err) {
        if (!(err instanceof RouteError || err instanceof InputError)) throw err;
        out = { status: "failed", error: err.message, code: err.code };
      }
      this.complete(ts, inst, attempt, out, false);
      return;
    }
    this.setStatus(ts, inst, "running");
    this.emit("instance_started", ts.name, inst.key, { attempt });
    if (kind === "route") {
      this.decisionRunning += 1;
      this.decide(ts, inst, input).then(
        (out) => {
          this.decisionRunning -= 1;
          this.complete(ts, inst, attempt, out, true);
          this.schedulePump();
        },
        (err) => this.fail(err),
      );
      return;
    }
    this.workRunning += 1;
    const ctx = this.ctx(ts, inst);
    let p: Promise<Outcome>;
    if (kind === "command") p = runCommand(ctx, input, prepared?.files);
    else if (kind === "agent") p = runAgent(ctx, input);
    else if (kind === "revise") {
      p = runRevise(ctx, input, inst.rounds, (r, usage) => {
        inst.rounds = [...inst.rounds, r];
        if (usage?.cost_usd) this.spent += usage.cost_usd;
        this.emit("revise_round", ts.name, inst.key, { attempt, round: r.round, body: r.body, verdict: r.verdict, ...(r.feedback !== undefined ? { feedback: r.feedback } : {}), ...(usage ? { usage } : {}) });
      });
    } else p = Promise.resolve({ status: "failed", error: `unknown task kind ${kind}`, code: "bad-plan" } as Outcome);
    p.then(
      (out) => {
        this.workRunning -= 1;
        this.complete(ts, inst, attempt, out, true);
        this.schedulePump();
      },
      (err) => {
        this.workRunning -= 1;
        this.complete(ts, inst, attempt, { status: "failed", error: `internal: ${errorText(err)}`, code: "internal" }, false);
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
    };
  }

  /** A model-decided route instance (T-3, R-21, Q-30 … Q-32): resolve, then ask the judge. */
  private async decide(ts: TaskState, inst: Inst, input: InstanceInput): Promise<Outcome> {
    const route = ts.plan.route!;
    const key = inst.key;
    let questions;
    try {
      const lists: Record<string, unknown> = {};
      for (const q of route.questions) if (q.dynamic) lists[q.name] = this.readRef(ts, key, q.dynamic, input);
      questions = resolveQuestions(ts.plan, lists, (q) => `${q.dynamic!.task}.${q.dynamic!.field}${key !== null ? `[${JSON.stringify(key)}]` : ""}`);
    } catch (err) {
      if (err instanceof OptionsError || err instanceof InputError) return { status: "failed", error: err.message, code: err.code };
      throw err;
    }
    const state: Record<string, unknown> = { ...input };
    if (route.files.length > 0) {
      const files: Record<string, Record<string, unknown>> = {};
      for (const d of ts.deps) {
        const di = ts.aligned.includes(d) ? d.inst.get(key ?? UNMAPPED) : d.mapped ? undefined : d.inst.get(UNMAPPED);
        if (!di || di.status !== "passed" || !isPlainObject(di.output)) continue;
        const have = di.output.files;
        if (!isPlainObject(have)) continue;
        const declared = d.plan.agent?.files ?? d.plan.revise?.body.agent?.files ?? [];
        for (const name of route.files) {
          if (declared.includes(name) && Object.hasOwn(have, name)) (files[d.name] ??= {})[name] = have[name];
        }
      }
      state.files = files;
    }
    try {
      const record = await this.opts.judge!.judge({
        run: this.run,
        playbook: this.plan.playbook,
        task: ts.name,
        key,
        state,
        state_text: stableStringify(state),
        questions,
        signal: this.abort.signal,
      });
      for (const q of questions) {
        const d = record[q.id];
        if (!d || typeof d.label !== "string") {
          return { status: "failed", code: "decision-failed", error: `decision-failed: the decision layer returned no answer for question ${q.id}` };
        }
        if (q.resolved_options && !d.options) d.options = q.resolved_options;
      }
      return { status: "passed", output: record };
    } catch (err) {
      if (this.halt?.kind === "cancelled") return { status: "interrupted" };
      if (err instanceof DecisionFailure) return { status: "failed", error: err.message.startsWith(err.code) ? err.message : `${err.code}: ${err.message}`, code: err.code };
      return { status: "failed", error: `decision-failed: ${errorText(err)}`, code: "decision-failed" };
    }
  }

  private complete(ts: TaskState, inst: Inst, attempt: number, out: Outcome, retryable: boolean): void {
    if (this.finished) return;
    if (out.usage?.cost_usd && out.status !== "passed") this.spent += out.usage.cost_usd;
    if (out.status === "interrupted") {
      this.emit("instance_interrupted", ts.name, inst.key, { attempt });
      this.setStatus(ts, inst, "pending");
      return;
    }
    if (out.status === "passed") {
      if (out.usage?.cost_usd) this.spent += out.usage.cost_usd;
      inst.output = out.output;
      inst.error = undefined;
      if (ts.plan.kind === "route") {
        this.emit("decision_recorded", ts.name, inst.key, { attempt, record: out.output as DecisionRecord });
        // A model's decision is committed before anything acts on it (a dependent's expansion
        // flushes first), and never asked again. Commits are grouped: at the latest once
        // decision_concurrency decisions wait (else by the store's ~15 ms timer), so a kill can
        // lose fewer than decision_concurrency answered decisions besides those in flight
        // (docs/runs.md), without paying a transaction per decision.
        if (ts.plan.route!.decide === "model" && ++this.uncommittedDecisions >= this.settings.decision_concurrency) {
          this.uncommittedDecisions = 0;
          this.store.flush();
        }
      } else {
        this.emit("instance_finished", ts.name, inst.key, { attempt, status: "passed", output: out.output, ...(out.usage ? { usage: out.usage } : {}) });
      }
      this.setStatus(ts, inst, "passed");
    } else {
      if (retryable && inst.tries < ts.plan.retries && !this.halt) {
        inst.tries += 1;
        const delay = Math.min((this.opts.retryBaseMs ?? 1000) * 2 ** (inst.tries - 1), 30000);
        this.emit("instance_retried", ts.name, inst.key, { attempt, error: out.error, code: out.code, delay_ms: delay, ...(out.usage ? { usage: out.usage } : {}) });
        this.setStatus(ts, inst, "pending");
        const timer = setTimeout(() => {
          this.retryTimers.delete(timer);
          this.enqueue(ts, inst);
          this.schedulePump();
        }, delay);
        this.retryTimers.add(timer);
        return;
      }
      inst.error = out.error;
      this.emit("instance_finished", ts.name, inst.key, { attempt, status: "failed", error: out.error, code: out.code, ...(out.usage ? { usage: out.usage } : {}) });
      this.setStatus(ts, inst, "failed");
    }
    ts.open -= 1;
    if (ts.open === 0) this.settle(ts, this.taskStatus(ts));
  }
}

interface Disposition {
  status: "not_taken" | "blocked";
  label?: string;
  reason: string;
}

class InputError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Is a run's recorded process still alive (so another invocation must not touch it)? */
export function processAlive(pid: number | null | undefined): boolean {
  if (!pid || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export { isTerminal };
