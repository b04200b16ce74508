// Folding a run's event log into what resume needs: the admitted plan and pack snapshot,
// the settings in force, what each task and instance last recorded, the wall-clock time spent by
// earlier invocations (and how much of it the run only waited for review answers, D-67) and the
// cost agents reported.

import type { Plan } from "../../plan/plan.js";
import { chargedUsd, dispatch, eventTask, type EventHandlers, type RunEvent, type RunRepository, type Settings } from "../store/index.js";
import { RunNotFound } from "../store/index.js";
import type { Store } from "../store/index.js";
import { UNMAPPED, type Recorded, type TaskRecord } from "./task-state.js";

/** What a run's event log says, folded: its plan, pack, settings, task states and where it stopped. */
export interface FoldedRun {
  plan: Plan;
  packDir: string;
  /** The settings last recorded (admission or the latest resume), before this invocation's flags. */
  settings: Settings;
  /** task → key (UNMAPPED for an unmapped task) → what the log says about that instance. */
  recorded: Map<string, Map<string, Recorded>>;
  taskRecords: Map<string, TaskRecord>;
  /** Wall-clock time of every earlier invocation (for max_duration, R-6). */
  priorMs: number;
  /**
   * Of priorMs, the stretches between two events of an invocation in which nothing was in flight
   * while instances waited for review (D-67): max_duration does not count them.
   */
  priorWaitMs: number;
  /** Cost reported by agents so far (for budget_usd, R-6). */
  spentUsd: number;
  /** The recorded repository of `worktree` agents. */
  repo?: RunRepository;
}

/** The fold's running state while it reads a run's events in order. */
class Fold {
  plan: Plan | undefined;
  packDir = "";
  repo: RunRepository | undefined;
  settings: Settings | undefined;
  invStartMs = 0;
  lastMs = 0;
  prior = 0;
  priorWait = 0;
  spent = 0;
  /** Instances started (or waiting to be retried) and not yet ended, by task and key. */
  readonly inFlight = new Set<string>();
  /** Instances waiting for review answers. */
  readonly waiting = new Set<string>();
  readonly recorded = new Map<string, Map<string, Recorded>>();
  readonly taskRecords = new Map<string, TaskRecord>();

  /** The record of an event's instance, created pending on first mention. */
  rec(e: RunEvent): Recorded {
    let m = this.recorded.get(eventTask(e));
    if (!m) this.recorded.set(eventTask(e), (m = new Map()));
    const k = e.key ?? UNMAPPED;
    let r = m.get(k);
    if (!r) m.set(k, (r = { status: "pending", attempts: 0, rounds: [] }));
    return r;
  }

  /** The record of an event's task. */
  task(e: RunEvent): TaskRecord {
    let x = this.taskRecords.get(eventTask(e));
    if (!x) this.taskRecords.set(eventTask(e), (x = {}));
    return x;
  }
}

/** What each event says about the run, for resume. Events that change nothing resume needs are listed with an empty handler. */
const FOLD: EventHandlers<[Fold, number]> = {
  plan_admitted: (e, f, t) => {
    f.plan = e.payload.plan;
    f.packDir = e.payload.snapshot.dir;
    f.repo = e.payload.repo;
    f.settings = e.payload.settings;
    f.invStartMs = t;
  },
  run_resumed: (e, f, t) => {
    f.prior += f.lastMs - f.invStartMs;
    f.invStartMs = t;
    f.settings = e.payload.settings;
  },
  task_expanded: (e, f) => {
    f.task(e).expanded = e.payload.count;
  },
  task_failed: (e, f) => {
    f.task(e).failed = { code: e.payload.code };
  },
  fold_settled: (e, f) => {
    f.task(e).settled = e.payload.status;
  },
  task_settled: (e, f) => {
    f.task(e).settled = e.payload.status;
  },
  instance_started: (e, f) => {
    const r = f.rec(e);
    r.status = "running";
    r.attempts = Math.max(r.attempts, e.payload.attempt);
  },
  instance_finished: (e, f) => {
    const p = e.payload;
    const r = f.rec(e);
    r.status = p.status;
    r.output = p.output;
    r.error = p.error;
    r.code = p.code;
    r.label = undefined;
    r.attempts = Math.max(r.attempts, p.attempt);
  },
  review_requested: (e, f, t) => {
    const r = f.rec(e);
    const p = e.payload;
    r.status = "waiting";
    r.attempts = Math.max(r.attempts, p.attempt);
    r.review = { attempt: p.attempt, questions: p.questions, decided: p.decided, state: p.state, since: t, answers: new Map() };
  },
  review_answered: (e, f) => {
    f.rec(e).review?.answers.set(e.payload.question, e.payload);
  },
  run_waiting: () => {},
  decision_recorded: (e, f) => {
    const r = f.rec(e);
    r.review = undefined;
    r.status = "passed";
    r.output = e.payload.record;
    r.kept = undefined;
    r.attempts = Math.max(r.attempts, e.payload.attempt);
  },
  instance_retried: (e, f) => {
    const r = f.rec(e);
    r.status = "pending";
    r.attempts = Math.max(r.attempts, e.payload.attempt);
  },
  instance_interrupted: (e, f) => {
    f.rec(e).status = "pending";
  },
  gate_closed: (e, f) => {
    const r = f.rec(e);
    r.status = "not_taken";
    r.label = e.payload.label;
    r.output = undefined;
  },
  instance_reset: (e, f) => {
    const p = e.payload;
    const r = f.rec(e);
    r.kept = p.keep_decision && p.previous.status === "passed" ? p.previous.output : undefined;
    r.status = "pending";
    r.output = r.error = r.code = r.label = r.review = undefined;
    r.rounds = [];
  },
  task_reset: (e, f) => {
    const x = f.task(e);
    x.settled = x.failed = undefined;
  },
  pack_refreshed: (e, f) => {
    f.packDir = e.payload.snapshot.dir;
  },
  revise_round: (e, f) => {
    const p = e.payload;
    const r = f.rec(e);
    r.rounds = r.rounds.slice(0, p.round - 1);
    r.rounds.push({ round: p.round, body: p.body, verdict: p.verdict, ...(p.feedback !== undefined ? { feedback: p.feedback } : {}) });
  },
  run_stopped: () => {},
  run_cancelled: () => {},
  run_finished: () => {},
  rerun_requested: () => {},
};

/** Keeps Fold.inFlight and Fold.waiting up to date with one event (D-67). */
function trackActivity(f: Fold, e: RunEvent): void {
  // Only instance events have a task: the id is made in the cases that name one.
  const id = () => `${eventTask(e)}\u0000${e.key ?? UNMAPPED}`;
  switch (e.type) {
    case "instance_started":
    case "instance_retried":
      f.inFlight.add(id());
      return;
    case "review_requested":
      f.inFlight.delete(id());
      f.waiting.add(id());
      return;
    case "instance_finished":
    case "instance_interrupted":
    case "decision_recorded":
    case "gate_closed":
    case "instance_reset":
      f.inFlight.delete(id());
      f.waiting.delete(id());
      return;
    default:
      return;
  }
}

/** Folds a run's event log into the state a resume continues from. */
export function foldEvents(store: Store, run: string): FoldedRun {
  const f = new Fold();
  for (const e of store.events(run)) {
    const t = Date.parse(e.time);
    // Nothing in flight while instances wait: the run only waited for people until this event (D-67).
    if (e.type !== "run_resumed" && f.inFlight.size === 0 && f.waiting.size > 0) f.priorWait += t - f.lastMs;
    trackActivity(f, e);
    dispatch(FOLD, e, f, t);
    f.spent += chargedUsd(e);
    f.lastMs = t;
  }
  const { plan, settings } = f;
  if (!plan || !settings) throw new RunNotFound("unknown-run", `no run ${run} in ${store.stateDir}`);
  return {
    plan,
    packDir: f.packDir,
    settings,
    recorded: f.recorded,
    taskRecords: f.taskRecords,
    priorMs: f.prior + (f.lastMs - f.invStartMs),
    priorWaitMs: f.priorWait,
    spentUsd: f.spent,
    ...(f.repo ? { repo: f.repo } : {}),
  };
}
