// The event log's vocabulary. Events are the truth of a run; the runs/tasks/instances
// tables are projections rebuilt from them (src/run/projection.ts). Every event is keyed by
// (task, key) where it concerns one (M-4): `key` is null for an unmapped task's instance.

import type { Plan } from "../../plan/plan.js";
import type { DecisionRecord, Usage } from "./decision-record.js";
import type { ReviewAnswer, ReviewQuestion } from "./review-record.js";
import { CodedError } from "../../shared/coded-error.js";

/** An instance's status in the event log and the projections; `waiting`: a route instance's questions wait for people (D-62). */
export type InstanceStatus = "pending" | "running" | "waiting" | "passed" | "failed" | "not_taken" | "blocked";
/** The statuses an instance ends in. */
export type TerminalStatus = "passed" | "failed" | "not_taken" | "blocked";
/** A run's status. */
export type RunStatus = "running" | "passed" | "failed" | "stopped" | "cancelled" | "waiting";

/** Whether an instance's status is final. */
export function isTerminal(s: InstanceStatus): s is TerminalStatus {
  return s === "passed" || s === "failed" || s === "not_taken" || s === "blocked";
}

/** A run's settings as recorded at admission (and at each resume). */
export interface Settings {
  concurrency: number;
  decision_concurrency: number;
  max_duration_seconds: number;
  budget_usd?: number;
}

/** Where a run's pack snapshot is and what it came from, as run_admitted records it. */
export interface SnapshotInfo {
  /** Absolute path of the copy inside the run folder ($SWITCHYARD_PACK). */
  dir: string;
  /** Where the pack was copied from. */
  source: string;
  files: number;
  bytes: number;
}

/** Payloads by event type. */
export interface EventPayloads {
  /** The run begins: the plan it will execute, the pack snapshot, the effective settings. */
  plan_admitted: {
    plan: Plan;
    snapshot: SnapshotInfo;
    source_path: string;
    settings: Settings;
    pid: number;
    repo?: RunRepository;
    /** Each preset agent runner's tool version, read by preflight. */
    agent_versions?: Record<string, string>;
  };
  /** Another invocation continues the run, with its effective settings. */
  run_resumed: { settings: Settings; pid: number };
  /** A mapped task's list was read and validated (M-1). */
  task_expanded: { count: number };
  /** A task failed as a whole before any instance started (M-1: a bad list). */
  task_failed: { error: string; code: string };
  /** An instance attempt began (processes and decisions; in-engine instances record only their finish). */
  instance_started: { attempt: number };
  /** An instance attempt ended passed, failed or blocked. */
  instance_finished: {
    attempt: number;
    status: "passed" | "failed" | "blocked";
    output?: unknown;
    error?: string;
    code?: string;
    usage?: Usage;
    /** The agent runner's concurrency, raised after a quiet period without rate limits. */
    runner_concurrency?: { runner: string; limit: number | null };
  };
  /** An attempt failed and will be retried after `delay_ms`. */
  instance_retried: {
    attempt: number;
    error: string;
    code?: string;
    delay_ms: number;
    usage?: Usage;
    /** The tool reported a rate limit: not a failed attempt; the runner's concurrency after it. */
    rate_limited?: { runner: string; concurrency: number };
  };
  /** The run was cancelled or stopped while this attempt ran; it runs again on resume. */
  instance_interrupted: { attempt: number; usage?: Usage };
  /** Not taken (G-3): a closed gate, or propagation through a join (G-5, G-6). */
  gate_closed: { label?: string; reason: string };
  /** A route instance's decision record: its output; the instance passed. */
  decision_recorded: { attempt: number; record: DecisionRecord; reused?: boolean };
  /**
   * Questions of a route instance go to people (D-60, D-61): the instance waits (D-62). `decided`
   * holds its other questions' decisions, `state` what the model saw (or would have).
   */
  review_requested: { attempt: number; questions: ReviewQuestion[]; decided: DecisionRecord; state: unknown };
  /** A person answered one waiting question, or its timeout did (D-63, D-64). */
  review_answered: ReviewAnswer;
  /** `run --detach-reviews`: only waiting instances are left; the run ends as `waiting` until resumed (D-62). */
  run_waiting: { waiting: number; reason: string };
  /** One finished round of a revise loop (T-5). */
  revise_round: { attempt: number; round: number; body: unknown; verdict: string; feedback?: unknown; usage?: Usage };
  /** A mapped task settled: its fold's status and summary (G-7). */
  fold_settled: { status: "passed" | "failed" | "not_taken" | "blocked"; summary: FoldSummary };
  /** An unmapped task settled. */
  task_settled: { status: "passed" | "failed" | "not_taken" | "blocked" };
  /** A ceiling was reached; nothing new started. */
  run_stopped: { ceiling: "max_duration" | "budget_usd"; reason: string };
  /** Ctrl-C or `switchyard cancel`. */
  run_cancelled: { reason: string };
  /** Every task settled. */
  run_finished: { status: "passed" | "failed" };
  /** `switchyard rerun`: what was asked for, before the resets it caused. */
  rerun_requested: RerunRequest & { reset: number; pid: number };
  /**
   * An instance is cleared: it runs again on resume. `previous` is what it had, so the
   * log keeps an earlier answer beside the new one. `keep_decision`: a route's recorded decision
   * is reused, not asked again, if its gate is still open.
   */
  instance_reset: { reason: "rerun" | "downstream"; previous: ResetPrevious; keep_decision?: boolean };
  /** A task's settled status is cleared, so it settles (and records its fold) again. */
  task_reset: { reason: "rerun" | "downstream" };
  /** `rerun --refresh-pack`: a new snapshot of the pack's files, used from then on. */
  pack_refreshed: { snapshot: SnapshotInfo; pack_digest: string };
}

/** What a rerun asked for: tasks, keys or the failed instances; whether downstream instances, decisions and the pack are redone too. */
export interface RerunRequest {
  tasks: string[];
  keys: string[];
  failed: boolean;
  downstream: boolean;
  redecide: boolean;
  refresh_pack: boolean;
}

/** An instance's result before a rerun reset it, kept in the log so that `show` can list earlier results. */
export interface ResetPrevious {
  status: InstanceStatus;
  attempts: number;
  output?: unknown;
  error?: string;
  label?: string;
}

/** The type of a recorded event. */
export type EventType = keyof EventPayloads;

/** Counts of a task's instances by status. */
export interface FoldSummary {
  total: number;
  passed: number;
  failed: number;
  not_taken: number;
  blocked: number;
}

/** One event of one type. */
interface EventOf<T extends EventType> {
  run: string;
  seq: number;
  time: string; // ISO 8601, milliseconds
  type: T;
  task: string | null;
  key: string | null;
  payload: EventPayloads[T];
}

/** The repository `worktree` agents work on, fixed at admission: resume never reads HEAD. */
export interface RunRepository {
  /** The repository's top-level folder. */
  path: string;
  /** The commit every worktree starts from. */
  base: string;
  /** Keep each attempt's branch after its worktree is removed. */
  keep_branches: boolean;
}

/**
 * An event: a union discriminated by `type`, so `switch (e.type)` narrows `payload`.
 * `RunEvent<"gate_closed">` is one member; written as an indexed mapped type so that, for a
 * generic `T`, an `EventOf<T>` is a `RunEvent<T>`.
 */
export type RunEvent<T extends EventType = EventType> = { [K in T]: EventOf<K> }[T];

/**
 * One handler per event type, for a consumer of the log (the fold, the projection, the display).
 * A mapped type, so adding a type to EventPayloads fails to compile until every table handles it.
 */
export type EventHandlers<Args extends unknown[] = [], R = void> = { readonly [K in EventType]: (e: RunEvent<K>, ...args: Args) => R };

/** Calls the handler of `e`'s type. */
export function dispatch<T extends EventType, Args extends unknown[], R>(
  handlers: EventHandlers<Args, R>,
  e: RunEvent<T>,
  ...args: Args
): R {
  const handler: (e: RunEvent<T>, ...args: Args) => R = handlers[e.type];
  return handler(e, ...args);
}

/**
 * The task an instance- or task-level event is about. Every such event names one when it is
 * written, so an event without one means the log was changed behind switchyard's back.
 */
export function eventTask(e: RunEvent): string {
  if (e.task === null) throw new CodedError("state-corrupt", `event ${e.seq} (${e.type}) of run ${e.run} names no task`);
  return e.task;
}

/** An events-table row as stored, its payload still JSON text. */
export interface StoredEvent {
  seq: number;
  time: string;
  type: EventType;
  task: string | null;
  key: string | null;
  payload: string;
}

/** A stored row as an event: the one place the log's JSON is trusted to match its type (it was written from EventPayloads). */
export function decodeEvent(run: string, r: StoredEvent): RunEvent {
  return { run, seq: r.seq, time: r.time, type: r.type, task: r.task, key: r.key, payload: JSON.parse(r.payload) } as RunEvent;
}

/**
 * What an event charges to the run's spend: the cost an agent or reviser reported with
 * an attempt (passed, failed, retried or interrupted) or a round — a failed decision's attempt
 * carries what its host runner spent — and what the host runner reported for a recorded
 * decision's answers (an agent runner is charged whatever it answers, D-40). A decision
 * provider's requests are not charged, nor a record reused after a rerun (charged when it was made). The one
 * place spend is counted: the engine (live budget), the fold (resume's budget) and the
 * projection (`runs`).
 */
export function chargedUsd(e: RunEvent): number {
  switch (e.type) {
    case "instance_finished":
    case "instance_retried":
    case "instance_interrupted":
    case "revise_round":
      return e.payload.usage?.cost_usd ?? 0;
    case "decision_recorded":
      return e.payload.reused ? 0 : hostCostUsd(e.payload.record);
    default:
      return 0;
  }
}

/** The cost the host runner reported for a decision record's answers (each request counted once, on its first question). */
function hostCostUsd(record: DecisionRecord): number {
  let usd = 0;
  for (const d of Object.values(record)) if (d.provider === "host") usd += d.usage?.cost_usd ?? 0;
  return usd;
}
