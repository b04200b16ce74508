// Reading a route instance's decision record for display: its questions, and the label
// and confidence a grid cell shows. Shared by the server and the browser (no Node imports).

import type { DecisionRecord } from "../run/kinds/index.js";
import type { CellDecision } from "./api-types.js";

/** A route instance's answered questions, or [] when its output is not a decision record. */
export function decisionsOf(output: unknown): CellDecision[] {
  if (!output || typeof output !== "object" || Array.isArray(output)) return [];
  const out: CellDecision[] = [];
  for (const [question, d] of Object.entries(output as DecisionRecord)) {
    if (!d || typeof d !== "object" || typeof d.label !== "string" || typeof d.mode !== "string") return [];
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
    });
  }
  return out;
}

/** What a route cell shows: the chosen label (each question's, when several) and the lowest confidence. */
export function routeCell(output: unknown): { label: string | null; confidence: number | null } {
  const ds = decisionsOf(output);
  if (ds.length === 0) return { label: null, confidence: null };
  if (ds.length === 1) return { label: ds[0]!.label, confidence: ds[0]!.confidence };
  return { label: ds.map((d) => `${d.question}=${d.label}`).join(" "), confidence: Math.min(...ds.map((d) => d.confidence)) };
}
