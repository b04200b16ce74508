// The scheduler's in-memory picture of a run: one TaskState per task, holding its instances keyed
// by element (M-4), and what the event log already says about each (folded on resume, R-4).

import type { TaskPlan } from "../../plan/plan.js";
import type { DecisionRecord, InstanceStatus, ReviewAnswer, ReviewQuestion, TerminalStatus } from "../store/index.js";
import type { InstanceInput } from "../kinds/index.js";
import type { AttemptFiles } from "../kinds/index.js";
import type { ReviseRound } from "../kinds/index.js";

/** The key of an unmapped task's single instance in the per-task maps. */
export const UNMAPPED = "";

/** What the log says about one instance (folded from its events). */
export interface Recorded {
  status: InstanceStatus;
  output?: unknown;
  label?: string;
  error?: string;
  /** The code of the recorded failure or block; resume compares it, never the message. */
  code?: string;
  attempts: number;
  rounds: ReviseRound[];
  /** Reset by a rerun, its decision kept: reused if the gate is still open. */
  kept?: unknown;
  /** Waiting for people (D-62): what was sent to review, and the answers recorded so far. */
  review?: RecordedReview;
}

/** A route instance's questions in the review queue, as the log says (D-62, D-65). */
export interface RecordedReview {
  attempt: number;
  questions: ReviewQuestion[];
  decided: DecisionRecord;
  state: unknown;
  /** When the questions were sent (epoch ms): timeouts count from here (D-64). */
  since: number;
  /** Question id → its recorded answer. */
  answers: Map<string, ReviewAnswer>;
}

/** What the log says about a task as a whole (folded from its events). */
export interface TaskRecord {
  settled?: TerminalStatus;
  expanded?: number;
  /** The task failed as a whole (M-1): the code resume compares, never the message. */
  failed?: { code: string };
}

/** One instance's state as the engine tracks it. */
export interface Inst {
  key: string | null;
  status: InstanceStatus;
  output?: unknown;
  label?: string;
  error?: string;
  attempts: number;
  /** Failed attempts in this invocation (for `retries`). */
  tries: number;
  /** Attempts that ended in a rate limit in this invocation (not counted in `tries`). */
  rateLimits?: number;
  rounds: ReviseRound[];
  rec?: Recorded;
  /** A command attempt whose files are being prepared before it starts (see prefetch). */
  prepared?: PreparedAttempt;
}

/** An attempt prepared ahead of its slot: its number, input and files. */
export interface PreparedAttempt {
  attempt: number;
  input: InstanceInput;
  files: Promise<AttemptFiles>;
}

/** One task's state in a running engine: its instances, dependencies and counts. */
export class TaskState {
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
  counts: Record<InstanceStatus, number> = { pending: 0, running: 0, waiting: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 };
  fold: unknown = null;
  /** Task-level label when not taken as a whole (an unmapped task's closing label). */
  label?: string;
  recSettled?: TerminalStatus;
  recExpanded?: number;
  /** The code of the recorded task failure, if any. */
  recFailed?: string;
  constructor(readonly plan: TaskPlan) {
    this.name = plan.name;
    this.mapped = plan.over !== undefined;
  }

  /** Moves an instance to a new status, keeping the per-status counts in step. */
  setStatus(inst: Inst, s: InstanceStatus): void {
    this.counts[inst.status] -= 1;
    inst.status = s;
    this.counts[s] += 1;
  }
}

/** A settled task's status (G-7): unmapped, its instance's; mapped, its fold's. */
export function taskStatus(ts: TaskState): TerminalStatus {
  if (!ts.mapped) return ts.inst.get(UNMAPPED)!.status as TerminalStatus;
  const c = ts.counts;
  if (c.failed > 0 || c.blocked > 0) return "failed";
  if (ts.total! > 0 && c.not_taken === ts.total) return "not_taken";
  return "passed";
}
