// The compiled plan: what `switchyard compile` writes as TOML (C-20) and what the run engine
// executes. Every field is resolved here, so the engine never re-reads playbook sources to learn
// how to run a task. Optional fields are omitted (never null) so the TOML form round-trips.

/** The types a task may declare for the fields it emits (T-10). */
export type FieldType = "string" | "number" | "bool" | "list" | "object" | "any";
/** Every field type, for readers that check a written one. */
export const FIELD_TYPES: readonly FieldType[] = ["string", "number", "bool", "list", "object", "any"];

/** The five kinds of task a playbook declares. */
export type TaskKind = "command" | "agent" | "route" | "evaluate" | "revise";
/** When a mapped task's downstream runs: after all its instances passed, or after all settled (G-6). */
export type Join = "all" | "settled";
/** How hard an agent should think on a turn; each agent preset maps it to its CLI's own setting. */
export type Effort = "low" | "medium" | "high";

/** `producer.field`: a reference to a field a task emits (T-10). */
export interface FieldRef {
  task: string;
  field: string;
}

/** The three kinds of question a route asks: pick one option, yes/no, or a level on a scale. */
export type QuestionKind = "choice" | "noul" | "score";

/** One question of a route as compiled: its labels resolved and its min_confidence known. */
export interface QuestionPlan {
  /** The question's name: its key in the route's `questions` dict. */
  name: string;
  kind: QuestionKind;
  ask: string;
  /**
   * Declared labels in declared order: a choice's options, `["yes", "no"]` for noul, a score's
   * levels lowest first. Empty for a dynamic choice (its options come at run time, Q-30).
   */
  labels: string[];
  /** Label → description (criterion text, level description, yes/no meaning); "" when none. */
  descriptions: Record<string, string>;
  /** A dynamic choice's `options = producer.field`. */
  dynamic?: FieldRef;
  drop: string[];
  /** The question's own `min_confidence`; absent means the route's applies. */
  min_confidence?: number;
  /** Judgement type; defaults to `PLAYBOOK.ROUTE.QUESTION`. */
  type: string;
}

/** A resolved gate (G-1, G-2a, Q-33). */
export interface WhenPlan {
  route: string;
  question: string;
  /** `answers` as written (absent with `otherwise`). */
  answers?: string[];
  otherwise: boolean;
  /** The labels that open the gate after the `otherwise` rule is applied, in declared order. */
  labels: string[];
  /** Dynamic choice with `otherwise`: every resolved option opens the gate too. */
  any_option: boolean;
}

/** What a `command` task runs: its shell text and extra environment. */
export interface CommandSpec {
  run: string;
  env: Record<string, string>;
}

/** What an `agent` task asks: its prompt template, effort, files and runner. */
export interface AgentSpec {
  prompt: string;
  effort: Effort;
  files: string[];
  runner: string;
  /** Where the turn runs: absent = a fresh scratch folder; "worktree" = a git worktree of the run's repository. */
  workspace?: "worktree";
}

/** How a `route` decides: by asking its questions (model) or by reading precomputed labels (output, T-3). */
export interface RouteSpec {
  decide: "model" | "output";
  /** With decide = "output": where the precomputed labels are (T-3). */
  source?: FieldRef;
  min_confidence: number;
  /** JSON files, declared by a dependency's `files`, that join the state. */
  files: string[];
  questions: QuestionPlan[];
}

/** Which function an `evaluate` task calls, by its module and name. */
export interface EvaluateSpec {
  /** Pack-relative path of the file that defines the function (the playbook or a `lib/` module). */
  module: string;
  function: string;
}

/** A `revise` loop: the body that makes a draft, the reviewer that judges it, and how many rounds it may take. */
export interface ReviseSpec {
  /** Declared inline; an unmapped `agent` or `command`. */
  body: TaskPlan;
  /** Declared inline; an `agent`, `command` or `evaluate` emitting `verdict` (and maybe `feedback`). */
  reviewer: TaskPlan;
  max_rounds: number;
}

/** What every task has, whatever its kind. */
export interface TaskBase {
  name: string;
  /** Direct dependencies, in declared order. */
  depends_on: string[];
  join: Join;
  over?: FieldRef;
  max_fanout?: number;
  /**
   * The direct dependencies mapped over the same producer field as this task (M-2). On these
   * edges an instance reads the dependency's instance for its own key; on all others, the fold.
   */
  aligned_with: string[];
  keyed: FieldRef[];
  when?: WhenPlan;
  timeout_seconds: number;
  retries: number;
  /** Output field → type, in declared order. For a route: question name → "string". */
  emits: Record<string, FieldType>;
  /** Where the task was declared, for messages at run time. */
  declared_at: { file: string; line: number; col: number };
}

/** Each kind's own spec, under the kind's name (the TOML form has one `[tasks.KIND]` table). */
export interface KindSpecs {
  command: CommandSpec;
  agent: AgentSpec;
  route: RouteSpec;
  evaluate: EvaluateSpec;
  revise: ReviseSpec;
}

/**
 * One task of kind K: its spec is present, and every other kind's is absent (declared `never`,
 * so `t.route?.decide` still reads on any task, and `switch (t.kind)` narrows to the one present).
 */
export type TaskOf<K extends TaskKind> = TaskBase & SpecOf<K> & { [S in Exclude<TaskKind, K>]?: never };

/** A kind and its spec, e.g. `{ kind: "command", command: CommandSpec }`. */
export type SpecOf<K extends TaskKind> = { kind: K } & { [S in K]: KindSpecs[S] };

/** Any kind with its spec: what a builder adds to a TaskBase to make a TaskPlan. */
export type TaskSpec = { [K in TaskKind]: SpecOf<K> }[TaskKind];

/** A compiled task: a union keyed by `kind`. */
export type TaskPlan = { [K in TaskKind]: TaskOf<K> }[TaskKind];

/** A playbook's settings as compiled. */
export interface PlanSettings {
  description: string;
  concurrency: number;
  decision_concurrency: number;
  max_duration_seconds: number;
  budget_usd?: number;
}

/** A compiled playbook: what the engine runs, serialisable as TOML, with the digest of the pack it came from. */
export interface Plan {
  playbook: string;
  /** Pack-relative path of the playbook file. */
  source_file: string;
  /** sha256 over the pack's source files (paths and contents), hex. */
  pack_digest: string;
  compiler_version: string;
  settings: PlanSettings;
  /** Tasks in declaration order (which is a topological order: dependencies are declared first). */
  tasks: TaskPlan[];
}

/** The implicit label of every model-decided question. */
export { UNCERTAIN } from "../shared/primitives.js";
