// What the playbook built-ins record while a playbook is evaluated: tasks as the author wrote
// them, with the position of every argument, before any graph rule is applied. The checks of
// C-3 … C-9 (checks.ts) turn these into a Plan. Kept free of interpreter types so the checks can be
// tested on plain data.

import type { Position } from "../lang/diagnostic.js";
import type { Effort, FieldType, Join, QuestionKind, TaskKind } from "./plan.js";

/** `producer.field`, as written. `producer` is the declared task the reference was taken from. */
export interface DeclRef {
  producer: DeclTask;
  field: string;
  pos: Position;
}

/** A route's question as the playbook declared it, before its labels are resolved. */
export interface DeclQuestion {
  name: string;
  kind: QuestionKind;
  ask: string;
  labels: string[];
  descriptions: Record<string, string>;
  dynamic?: DeclRef;
  drop: string[];
  min_confidence?: number;
  type?: string;
  /** The `choice(...)`/`noul(...)`/`score(...)` call. */
  pos: Position;
  /** Where `drop` was written (the question call when absent). */
  dropPos: Position;
  /** False when the question's own arguments had errors: coverage of it is not checked. */
  valid: boolean;
  /** True when the options or levels could not be read in full: answers are not checked against the labels. */
  labelsUnknown?: boolean;
}

/** A task's `when` gate as declared: the route field it reads and the answers that let it run. */
export interface DeclWhen {
  ref: DeclRef;
  answers?: string[];
  answersPos?: Position;
  otherwise: boolean;
  otherwisePos?: Position;
}

/** A task as the playbook declared it, with positions for diagnostics; the graph checks turn it into a TaskPlan. */
export interface DeclTask {
  /** Declaration order, unique per compilation. */
  id: number;
  name: string;
  kind: TaskKind;
  /** The built-in call. */
  pos: Position;
  /** Pack-relative file of the declaration (for the plan). */
  file: string;
  namePos: Position;
  depends_on: Array<{ task: DeclTask; pos: Position }>;
  join: Join;
  over?: DeclRef;
  max_fanout?: { value: number; pos: Position };
  keyed: DeclRef[];
  when?: DeclWhen;
  /** `answers`/`otherwise` written without `when` (checked so the mistake is reported). */
  strayGate?: Position;
  /**
   * The task's gate could not be read, but it can only have named a question of these routes
   * (a misspelt question, a misspelt `when` holding a reference): only their coverage is unknown.
   */
  gateCoverageUnknown?: DeclTask[];
  timeout_seconds: number;
  retries: number;
  emits: Record<string, FieldType>;
  emitsPos?: Position;
  command?: { run: string; env: Record<string, string> };
  agent?: {
    prompt: string;
    promptPos: Position;
    effort: Effort;
    files: string[];
    filesPos: Position;
    runner: string;
    workspace?: "worktree";
  };
  route?: {
    decide: "model" | "output";
    decidePos: Position;
    source?: DeclRef;
    min_confidence: number;
    confidencePos: Position;
    files: string[];
    filesPos: Position;
    questions: DeclQuestion[];
    questionsPos: Position;
  };
  /** `fn` is the function value itself (opaque here), to check it is still bound under its name. */
  evaluate?: { module: string; function: string; fnPos: Position; fn: object };
  revise?: { body: DeclTask; reviewer: DeclTask; max_rounds: number };
  /** Set when the task is the body or reviewer of a revise (not a node of the graph). */
  inlineIn?: DeclTask;
  /**
   * False when an argument could not be read: the task is kept so references to it resolve,
   * but rules that need the missing part are skipped to avoid follow-on errors.
   */
  complete: boolean;
  /** Arguments that failed to read; rules about them are skipped. */
  broken: Set<string>;
  /** Every field reference this task makes (over, keyed, when, options, source): for T-11. */
  refs: DeclRef[];
}

/** The playbook's `settings(...)` as declared. */
export interface DeclSettings {
  description: string;
  concurrency: number;
  decision_concurrency: number;
  max_duration_seconds: number;
  budget_usd?: number;
}

/** The settings of a playbook that calls no `settings(...)`. */
export const DEFAULT_SETTINGS: DeclSettings = {
  description: "",
  concurrency: 4,
  decision_concurrency: 16,
  max_duration_seconds: 7200,
};

/** How the checks of a playbook run: kept here, beside what they check, so checks.ts, gates.ts and to-plan.ts share it without importing each other. */
export interface CheckOptions {
  /**
   * False when evaluation stopped early (a runtime error): tasks after that point were never
   * declared, so coverage (which needs every gated task) is not checked.
   */
  evaluationComplete: boolean;
  /** Default judgement type prefix: the playbook name. */
  playbook: string;
}
