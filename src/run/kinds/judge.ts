// The one interface every model-decided route calls (D-1). The run engine defines it and the
// decision layer (src/decide) implements it; the engine resolves dynamic options (Q-30 … Q-32)
// before calling, so an implementation only ever sees ordinary, fully-labelled questions.

import type { GroupHooks } from "../process/index.js";
import { CodedError, type ErrorDetails } from "../../shared/coded-error.js";
import type { AskedQuestion, DecisionRecord, ResolvedOption, ReviewQuestion, Usage } from "../store/index.js";

// The decision record is part of the event log, so its types live with the store; the port
// re-exports them for the decision layer that fills them in.
export {
  sumUsage,
  type DecisionMode,
  type DecisionRecord,
  type QuestionDecision,
  type Receipt,
  type ResolvedOption,
  type Usage,
} from "../store/index.js";
export { type ReviewAnswer, type ReviewQuestion } from "../store/index.js";

/** A question as the decision layer sees it: labels known, min_confidence resolved. */
export interface ResolvedQuestion extends AskedQuestion {
  /** The question's min_confidence, else the route's. */
  min_confidence: number;
  /** For a dynamic choice: the options it was resolved to (recorded, Q-32). */
  resolved_options?: ResolvedOption[];
}

/** One route instance's questions with its state, as the engine hands them to the Judge. */
export interface JudgeRequest {
  run: string;
  playbook: string;
  task: string;
  /** The element key for a mapped route; null for an unmapped one. */
  key: string | null;
  /** The instance's state: its input plus the contents of its `files`. */
  state: unknown;
  /** The state serialised deterministically (sorted keys); what providers are sent. */
  state_text: string;
  questions: ResolvedQuestion[];
  signal: AbortSignal;
  /** The route instance's attempt in the run (shadow pairs record it). */
  attempt?: number;
  /**
   * Told the process group of every process the decision starts (a `command` provider, a host
   * runner), so that whoever claims the run from a dead owner stops them (process-groups.ts).
   */
  groups?: GroupHooks;
}

/**
 * Thrown by a Judge when an element's decision cannot be made (bad response after retries,
 * unparseable host reply, …). The message names what was wrong; it fails that element only.
 * `usage` is what the host runner reported for the calls that led to the failure (a tool that
 * worked, then failed, was paid for): the engine records it with the failed instance and charges
 * it like a failed agent turn.
 */
export class DecisionFailure extends CodedError {
  readonly usage?: Usage;
  constructor(code: string, message: string, details: ErrorDetails & { usage?: Usage | undefined } = {}) {
    super(code, message, details);
    if (details.usage !== undefined) this.usage = details.usage;
  }
}

/**
 * Thrown by a Judge when some of an instance's questions go to people (D-60, D-61): the engine
 * records them and the instance waits (D-62). `decided` holds the decisions of its other
 * questions, which are kept and never asked again (D-65).
 */
export class ReviewNeeded extends CodedError {
  constructor(
    readonly questions: ReviewQuestion[],
    readonly decided: DecisionRecord,
  ) {
    super("review-needed", `questions ${questions.map((q) => q.id).join(", ")} wait for review`);
  }
}

/** A person's answer to an escalated question (D-61), beside the model's, for the lab (H-5). */
export interface ReviewedPair {
  run: string;
  task: string;
  key: string | null;
  attempt: number;
  question: ReviewQuestion & { model: NonNullable<ReviewQuestion["model"]> };
  /** The state the model saw, serialised as it was sent. */
  state_text: string;
  label: string;
  /** Who answered (the name given with `--as`, or null) and when (ISO 8601). */
  by: string | null;
  at: string;
}

/** What the engine calls to decide a route instance (D-1); the decision layer implements it. */
export interface Judge {
  /** Answers every question of one route instance; rejects with DecisionFailure. */
  judge(request: JudgeRequest): Promise<DecisionRecord>;
  /**
   * Checked once when a run starts or resumes (D-30): returns problems (resolver violations,
   * unknown providers) for the judgement types the plan uses. Empty when all is well.
   */
  preflight?(types: string[]): string[];
  /** A person answered an escalated question (D-61): its pair goes to the lab, marked reviewed (H-5). */
  reviewed?(pair: ReviewedPair): void;
}
