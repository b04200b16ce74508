// The pair a shadow or audited question leaves for the lab (H-1, D-34): the host's label beside the
// model's answer, or beside why the model has none.

import type { JudgeRequest, ResolvedQuestion } from "../../run/kinds/index.js";
import { stateDigest, type ShadowPair } from "../pair.js";
import type { Calibrated } from "./calibrate.js";
import type { ModelOutcome } from "./outcomes.js";

/** An audit pair (D-34), with the calibrated answer when the type has a map; absent for a shadow pair. */
export interface AuditOf {
  calibrated?: Calibrated | undefined;
}

/**
 * The pair, stamped with `time`. A skipped pair's reason is "window" alone, else `WHY: REASON`, so
 * the lab can count skips by reason. An audit pair of a calibrated type carries the model's raw
 * confidence beside the calibrated one, and the label that gated.
 */
export function pairOf(
  req: JudgeRequest,
  q: ResolvedQuestion,
  mode: { provider: string; model: string },
  hostLabel: string,
  outcome: ModelOutcome,
  time: Date,
  audit?: AuditOf,
  host?: ShadowPair["host"],
): Omit<ShadowPair, "lab"> {
  const pair: Omit<ShadowPair, "lab"> = {
    ...(audit ? { kind: "audit" as const } : {}),
    time: time.toISOString(),
    run: req.run,
    type: q.type,
    task: req.task,
    key: req.key,
    ...(req.attempt !== undefined ? { attempt: req.attempt } : {}),
    question: { id: q.id, kind: q.kind, labels: [...q.labels] },
    state_digest: stateDigest(req.state_text),
    host_label: hostLabel,
    ...(host ? { host: { latency_ms: host.latency_ms, usage: host.usage } } : {}),
  };
  if (outcome.ok) {
    pair.model = {
      provider: mode.provider,
      model: mode.model,
      label: outcome.answer.label,
      probabilities: outcome.answer.probabilities,
      confidence: outcome.answer.confidence,
      refused: outcome.answer.refused,
      latency_ms: outcome.latency_ms,
      usage: outcome.usage,
    };
    if (audit?.calibrated) {
      // The raw answer, as a shadow pair has it, plus what the map made of it.
      pair.model.label = audit.calibrated.answer.label;
      pair.model.confidence = audit.calibrated.raw;
      pair.model.calibrated_confidence = audit.calibrated.answer.confidence;
      pair.model.calibration = audit.calibrated.id;
    }
  } else {
    pair.skipped = {
      provider: mode.provider,
      model: mode.model,
      reason: outcome.why === "window" ? "window" : `${outcome.why}: ${outcome.reason}`,
    };
  }
  return pair;
}
