// Reading a route instance's decision record for display: its questions, and the labels
// and confidences a grid cell shows. Shared by the server, the browser (no Node imports) and
// `switchyard explain` (the threshold).

import type { Plan } from "../plan/plan.js";
import type { DecisionRecord, QuestionDecision } from "../run/kinds/index.js";
import type { CellDecision, QuestionAnswer } from "./api-types.js";

/** The confidence below which a question's answer becomes `uncertain`; undefined when no model is asked. */
export function questionThreshold(plan: Plan, route: string, question: string): number | undefined {
  const r = plan.tasks.find((t) => t.name === route)?.route;
  if (!r || r.decide !== "model") return undefined;
  return r.questions.find((q) => q.name === question)?.min_confidence ?? r.min_confidence;
}

/**
 * The threshold an answer was tested against: the one its record holds (a machine config's
 * min_confidence for the type wins over the playbook's, D-33), else — a log written before records
 * held it — the playbook's. `recorded` says which.
 */
export function appliedThreshold(
  d: Pick<QuestionDecision, "min_confidence">,
  playbook: number | undefined,
): { min: number; recorded: boolean } | undefined {
  if (d.min_confidence !== undefined) return { min: d.min_confidence, recorded: true };
  return playbook === undefined ? undefined : { min: playbook, recorded: false };
}

/**
 * A route instance's answered questions, or [] when its output is not a decision record. With
 * the plan, each model-mode answer carries the threshold it was tested against (appliedThreshold).
 */
export function decisionsOf(output: unknown, plan?: { plan: Plan; route: string }): CellDecision[] {
  if (!output || typeof output !== "object" || Array.isArray(output)) return [];
  const out: CellDecision[] = [];
  for (const [question, d] of Object.entries(output as DecisionRecord)) {
    if (!d || typeof d !== "object" || typeof d.label !== "string" || typeof d.mode !== "string") return [];
    const playbook = plan ? questionThreshold(plan.plan, plan.route, question) : undefined;
    const applied = plan && d.mode === "model" ? appliedThreshold(d, playbook) : undefined;
    out.push({
      question,
      label: d.label,
      probabilities: d.probabilities ?? {},
      confidence: d.confidence,
      refused: d.refused,
      mode: d.mode,
      provider: d.provider,
      model: d.model,
      latency_ms: d.latency_ms,
      usage: d.usage,
      judgement_type: d.judgement_type,
      ...(d.receipt
        ? { receipt: { provider: d.receipt.provider, model: d.receipt.model, reason: d.receipt.reason, time: d.receipt.time } }
        : {}),
      ...(d.raw_confidence !== undefined ? { raw_confidence: d.raw_confidence } : {}),
      ...(d.calibration !== undefined ? { calibration: d.calibration } : {}),
      ...(d.audit ? { audit: { host_label: d.audit.host_label } } : {}),
      ...(d.review ? { review: d.review } : {}),
      min_confidence: applied?.min ?? null,
      min_confidence_recorded: applied?.recorded ?? false,
      ...(applied?.recorded && playbook !== undefined && playbook !== applied.min ? { playbook_min_confidence: playbook } : {}),
    });
  }
  return out;
}

/**
 * What a route cell shows: each question's label with its own confidence (`answers`), and for
 * filtering and sorting the labels in one string and the lowest confidence.
 */
export function routeCell(output: unknown): { label: string | null; confidence: number | null; answers: QuestionAnswer[] | null } {
  const ds = decisionsOf(output);
  if (ds.length === 0) return { label: null, confidence: null, answers: null };
  const answers = ds.map((d) => ({ question: d.question, label: d.label, confidence: d.confidence }));
  const [only] = ds;
  if (ds.length === 1 && only !== undefined) return { label: only.label, confidence: only.confidence, answers };
  return {
    label: ds.map((d) => `${d.question}=${d.label}`).join(" "),
    confidence: Math.min(...ds.map((d) => d.confidence)),
    answers,
  };
}

/** The code of a failed instance's error ("revise-failed: …" → revise-failed), or null. */
export function errorCode(error: string | null): string | null {
  return error ? (/^([a-z][a-z0-9-]*): /.exec(error)?.[1] ?? null) : null;
}

/** An error as it reads once: its text when it starts with its code, else the code before it. */
export function errorText(error: string, code: string | null): string {
  return code && !error.startsWith(`${code}:`) ? `${code}: ${error}` : error;
}
