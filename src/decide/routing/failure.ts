// How a judgement fails: the run's cancellation passes through as it is, a provider's error becomes
// its message, and a host that fails while standing in for failed models names why each failed.

import { DecisionFailure } from "../../run/kinds/index.js";
import type { JudgementMode } from "../config-types.js";

/** The run's reason for cancelling, so every path rejects with the same error. */
export function cancelled(signal: AbortSignal): unknown {
  return signal.reason ?? new DecisionFailure("decision-cancelled", "the decision was cancelled");
}

/** An error's message for a record or a warning (anything thrown, not only Errors). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The host failed while answering for turned-on models that had failed: the element's error
 * keeps why each model could not answer (no receipt exists, since nothing was decided).
 * `reasons` maps question id → the model's failure; errors other than DecisionFailure pass as they are.
 */
export function withModelReasons(err: unknown, reasons: Map<string, string>, modes: Map<string, JudgementMode>): unknown {
  if (!(err instanceof DecisionFailure) || reasons.size === 0) return err;
  const why = [...reasons].map(([id, r]) => {
    const m = modes.get(id) as { provider?: string; model?: string } | undefined;
    return `question '${id}': ${m?.provider ?? "the model"}/${m?.model ?? "?"} failed first (${r})`;
  });
  return new DecisionFailure(err.code, `${err.message}; the host was answering in place of the model: ${why.join("; ")}`);
}
