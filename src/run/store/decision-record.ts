// What a route decision records and what a decision or an agent turn costs: the types of
// the event log's decision payloads. They live in the store because events carry them; the Judge
// port (kinds/judge.ts) that produces them re-exports them.

/** One option of a dynamic choice, resolved for an element. */
export interface ResolvedOption {
  value: string;
  description: string;
}

/** Tokens and cost of an agent turn or a decision, as far as the tool or provider reported them. */
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

/** Who decided: the host, the host with a model shadowing, a model, or precomputed output (T-3). */
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
  /**
   * The threshold the answer's confidence was tested against: for a turned-on model's answer
   * the machine config's min_confidence for the type when it sets one (D-33), else the playbook's;
   * for the host's answers (host, shadow, fallback) the playbook's. Absent on a person's answer and
   * in logs written before it was recorded (readers then fall back to the playbook's).
   */
  min_confidence?: number;
  /** Sampled for audit (D-34): the host's label for the same question (the model's still gated). */
  audit?: { host_label: string };
  /** Answered from the review queue (D-63, D-64): who and when, and the model's label when escalated (D-61). */
  review?: {
    by: string;
    at: string;
    note?: string;
    timeout?: boolean;
    model?: { provider: string | null; model: string | null; label: string; confidence: number; min_confidence?: number };
  };
}

/** A route instance's output: question name → its decision. */
export type DecisionRecord = Record<string, QuestionDecision>;
