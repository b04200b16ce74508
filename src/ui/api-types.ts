// The shapes of the web view's JSON endpoints (docs/ui.md), shared by the server (src/ui) and the
// browser client (src/ui/client, which imports only these types). Fields are only ever added.

import type { QuestionDecision } from "../run/kinds/index.js";

/** A task of the plan, as the run page draws it. */
export interface GraphTask {
  name: string;
  kind: string;
  mapped: boolean;
  depends_on: string[];
  /** Dependencies mapped over the same list: an instance reads the one for its own key (M-2). */
  aligned_with: string[];
  join: string;
  /** The gate, when the task has one: "match.package ∈ uncertain" or "gate.depth otherwise". */
  gate: string | null;
}

/** One row of GET /api/runs. */
export interface RunListItem {
  run: string;
  status: string;
  playbook: string;
  source: string;
  started_at: string;
  finished_at: string | null;
  elapsed_ms: number;
  spent_usd: number;
  /** Instances by status, over every task. */
  counts: Record<string, number>;
  /**
   * Decisions: each question of a route instance answered (a route of two questions over 300
   * elements makes 600), the number the end-of-run summary prints as "decisions".
   */
  decisions: number;
  stop_reason: string | null;
}

/** One task of a run as the run page shows it: its kind, status, instance counts when mapped, and its output or error. */
export interface RunTaskDoc {
  kind: string;
  status: string;
  mapped: boolean;
  summary?: { total: number; passed: number; failed: number; not_taken: number; blocked: number };
  output?: unknown;
  error?: string | null;
  label?: string;
}

/** GET /api/runs/ID: the `show --json` document without mapped tasks' instances, plus the plan. */
export interface RunDoc {
  run: string;
  status: string;
  playbook: string;
  started_at: string;
  finished_at: string | null;
  tasks: Record<string, RunTaskDoc>;
  /** Everything the run list shows about the run. */
  listing: RunListItem;
  graph: GraphTask[];
  /** The last event's sequence number: live updates continue from here. */
  last_seq: number;
}

/** Status letters of the grid: one per cell. */
export const STATUS_LETTER = { pending: "p", running: "r", waiting: "w", passed: "P", failed: "F", not_taken: "n", blocked: "b" } as const;
/** The name of a cell status, as the grid's letters encode it. */
export type StatusName = keyof typeof STATUS_LETTER;

/** One question's answer as a grid cell shows it: its label beside its own confidence. */
export interface QuestionAnswer {
  question: string;
  label: string;
  confidence: number;
}

/**
 * GET /api/runs/ID/grid: every mapped task's instances in columns. `status[t]` has one letter
 * per key (STATUS_LETTER; "-" for an instance not reached yet); `label[t][i]` is a not-taken
 * cell's closing label or a route cell's chosen label(s); `confidence[t][i]` a route cell's
 * lowest; `answers[t][i]` the answers of a cell of a route asking several questions, one per
 * question in the order of `tasks[].questions` (a one-question route's are its label and
 * confidence); `code[t][ROW]` a failed cell's error code, by row index (only failed cells).
 */
export interface GridDoc {
  run: string;
  /** `questions`: a route's question names, in declared order. */
  tasks: Array<{ name: string; kind: string; questions?: string[] }>;
  keys: string[];
  status: Record<string, string>;
  label: Record<string, Array<string | null>>;
  confidence: Record<string, Array<number | null>>;
  answers: Record<string, Array<QuestionAnswer[] | null>>;
  code: Record<string, Record<string, string>>;
  last_seq: number;
}

/** GET /api/runs/ID/instances: a page of instances in the `show --json` shape, with task and key. */
export interface InstancePage {
  run: string;
  total: number;
  offset: number;
  limit: number;
  instances: Array<{
    task: string;
    key: string | null;
    status: string;
    output: unknown;
    error: string | null;
    attempts: number;
    label?: string;
  }>;
}

/** One question's decision as the cell page shows it (the Q-20 record). */
export interface CellDecision {
  question: string;
  label: string;
  probabilities: Record<string, number>;
  confidence: number;
  refused: boolean;
  mode: string;
  provider: string | null;
  model: string | null;
  latency_ms: number;
  usage: unknown;
  judgement_type: string;
  receipt?: { provider: string; model: string; reason: string; time: string };
  /** A calibrated type (D-33): the model's own confidence; `confidence` is the calibrated one. */
  raw_confidence?: number;
  /** The calibration map's id (D-33). */
  calibration?: string;
  /** Audited (D-34): the host's label for the same question. */
  audit?: { host_label: string };
  /** Answered from the review queue (D-63, D-64): by whom, when, the note, the model's answer when escalated. */
  review?: QuestionDecision["review"];
  /**
   * The threshold the answer was tested against: below it the label is `uncertain`. Null
   * unless mode is "model". The recorded one (a machine config's min_confidence for the type wins
   * over the playbook's, D-33); for a log written before records held it, the playbook's.
   */
  min_confidence: number | null;
  /** Whether min_confidence is the record's (true) or, from an older log, the playbook's (false). */
  min_confidence_recorded: boolean;
  /** The playbook's threshold, when the recorded one differs from it (the machine config's applied). */
  playbook_min_confidence?: number;
}

/**
 * Why a cell did not run: the recorded reason, the task's gate in words, and when a route's
 * answer closed it, that answer (its cell, label, confidence and threshold).
 */
export interface CellWhy {
  reason: string | null;
  gate: string | null;
  answer: { task: string; key: string | null; question: string; decision: CellDecision | null } | null;
}

/** One round of a revise loop (T-5): what the body was asked and made, and what the reviewer said. */
export interface CellRound {
  attempt: number;
  round: number;
  /** The body agent's prompt (null for a command body, or when the file is not available). */
  prompt: string | null;
  /** The body's output. */
  output: unknown;
  verdict: string;
  /** The reviewer's feedback (absent when it gave none). */
  feedback?: unknown;
}

/** A file an agent attempt left in its workspace, listed on the cell page. */
export interface CellFile {
  /** Relative to the attempt's workspace. */
  path: string;
  bytes: number;
}

/** One attempt's files, read from the run folder (absent ones are null). */
export interface CellAttempt {
  attempt: number;
  input: unknown;
  /** The last 16 KiB of the process's output. */
  log_tail: string | null;
  prompt: string | null;
  usage: unknown;
  files: CellFile[];
}

/** GET /api/runs/ID/cells/TASK?key=KEY. */
export interface CellDoc {
  run: string;
  task: string;
  kind: string;
  key: string | null;
  status: string;
  attempts: number;
  output: unknown;
  error: string | null;
  code: string | null;
  label: string | null;
  decisions: CellDecision[];
  /**
   * A model-decided route cell: the state the model saw (or would have), serialised as it was
   * sent. Absent in a `show --html` file and for other cells.
   */
  state?: string;
  /** Why a not-taken or blocked cell did not run; absent for other cells. */
  why?: CellWhy;
  /** A revise cell's rounds, in order (every attempt's). */
  rounds: CellRound[];
  /** Newest first; empty when the files are not available (a `show --html` file). */
  attempt_files: CellAttempt[];
  /** This cell's events, in order. */
  events: Array<{ seq: number; time: string; type: string; payload: unknown }>;
}

/** A run event, as `run --json` prints it and /api/runs/ID/events serves it. */
export interface ApiEvent {
  run: string;
  seq: number;
  time: string;
  type: string;
  task: string | null;
  key: string | null;
  payload: Record<string, unknown>;
}

/** A lab as GET /api/labs lists it. */
export interface LabItem {
  id: string;
  created: string;
  note: string;
  current: boolean;
  pairs_bytes: number;
}

/** What a `show --html` file embeds: the run page's documents and every cell. */
export interface EmbeddedRun {
  run: RunDoc;
  grid: GridDoc;
  /** TASK → KEY ("" for an unmapped task) → the cell without its attempt files. */
  cells: Record<string, Record<string, CellDoc>>;
}
