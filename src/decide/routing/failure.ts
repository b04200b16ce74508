// How a judgement fails: the run's cancellation passes through as it is, a provider's error becomes
// its message, and a host that fails while standing in for failed models names why each failed.

import { DecisionFailure, sumUsage, type Usage } from "../../run/kinds/index.js";
import type { JudgementMode } from "../config-types.js";
import type { HostAnswer } from "./outcomes.js";

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
 * `other` is the element's other host call (host or fallback questions): what it spent was paid
 * for as well, so the failure carries it beside the failed call's own usage.
 */
export function withModelReasons(
  err: unknown,
  reasons: Map<string, string>,
  modes: Map<string, JudgementMode>,
  other?: PromiseSettledResult<Map<string, HostAnswer>>,
): unknown {
  if (!(err instanceof DecisionFailure)) return err;
  const spent =
    other?.status === "fulfilled"
      ? [...other.value.values()].reduce<Usage | undefined>((u, a) => sumUsage(u, a.usage ?? undefined), undefined)
      : undefined;
  if (reasons.size === 0 && !spent) return err;
  const why = [...reasons].map(([id, r]) => {
    const m = modes.get(id) as { provider?: string; model?: string } | undefined;
    return `question '${id}': ${m?.provider ?? "the model"}/${m?.model ?? "?"} failed first (${r})`;
  });
  const message = why.length > 0 ? `${err.message}; the host was answering in place of the model: ${why.join("; ")}` : err.message;
  return new DecisionFailure(err.code, message, { usage: sumUsage(err.usage, spent) });
}
