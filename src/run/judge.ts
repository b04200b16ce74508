// The one interface every model-decided route calls (D-1). The run engine defines it and the
// decision layer (src/decide) implements it; the engine resolves dynamic options (Q-30 … Q-32)
// before calling, so an implementation only ever sees ordinary, fully-labelled questions.

import type { QuestionKind } from "../plan/plan.js";
import type { GroupHooks } from "./process-groups.js";
import { CodedError, type ErrorDetails } from "../shared/coded-error.js";

export interface ResolvedOption {
  value: string;
  description: string;
}

/** A question as the decision layer sees it: labels known, min_confidence resolved. */
export interface ResolvedQuestion {
  /** The question's name in the route (the id on the wire). */
  id: string;
  kind: QuestionKind;
  ask: string;
  /** Labels in declared order: choice options, ["yes","no"] for noul, levels lowest first. */
  labels: string[];
  descriptions: Record<string, string>;
  /** Judgement type. */
  type: string;
  /** The question's min_confidence, else the route's. */
  min_confidence: number;
  /** For a dynamic choice: the options it was resolved to (recorded, Q-32). */
  resolved_options?: ResolvedOption[];
}

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

export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  /** Of input_tokens, those read from the tool's prompt cache (agent presets). */
  cached_input_tokens?: number;
  cost_usd?: number;
}

/** Two usages added up, field by field (a field absent from both stays absent). */
export function sumUsage(a?: Usage, b?: Usage): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: Usage = {};
  for (const f of ["input_tokens", "output_tokens", "cached_input_tokens", "cost_usd"] as const) {
    if (a[f] !== undefined || b[f] !== undefined) out[f] = (a[f] ?? 0) + (b[f] ?? 0);
  }
  return out;
}

/** A fallback receipt (D-31): the model could not answer, the host did. */
export interface Receipt {
  type: string;
  key: string | null;
  provider: string;
  model: string;
  reason: string;
  time: string; // ISO 8601
}

export type DecisionMode = "host" | "shadow" | "model" | "output";

/** One question's part of a decision record. */
export interface QuestionDecision {
  label: string;
  probabilities: Record<string, number>;
  confidence: number;
  refused: boolean;
  /** Resolved options of a dynamic choice. */
  options?: ResolvedOption[];
  /** Score questions: the expected level index, sum of index × probability. */
  expected_level?: number;
  judgement_type: string;
  mode: DecisionMode;
  provider: string | null;
  model: string | null;
  latency_ms: number;
  usage: Usage | null;
  receipt?: Receipt;
  /** Turned on with a calibration (D-33): the model's own confidence; `confidence` is calibrated. */
  raw_confidence?: number;
  /** The id of the calibration map applied (D-33). */
  calibration?: string;
  /** Sampled for audit (D-34): the host's label for the same question (the model's still gated). */
  audit?: { host_label: string };
}

/** A route instance's output: question name → its decision. */
export type DecisionRecord = Record<string, QuestionDecision>;

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

export interface Judge {
  /** Answers every question of one route instance; rejects with DecisionFailure. */
  judge(request: JudgeRequest): Promise<DecisionRecord>;
  /**
   * Checked once when a run starts or resumes (D-30): returns problems (resolver violations,
   * unknown providers) for the judgement types the plan uses. Empty when all is well.
   */
  preflight?(types: string[]): string[];
}
