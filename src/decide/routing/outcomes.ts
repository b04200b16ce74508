// What the calls of a judgement answered, and step 3: which turned-on answers stand, which the
// host must replace (D-31: the model failed, or refused with fallback_on_refusal), and which pass
// through their calibration map first (D-33).

import type { Usage } from "../../run/kinds/index.js";
import type { ResolvedAnswer } from "../answer.js";
import { calibrate, type Calibrated } from "./calibrate.js";
import type { Calibration } from "./targets.js";

/** Why a model has no answer: its route was refused (D-30), the state is too big (D-32), or the call or answer failed. */
export type Why = "resolver" | "window" | "error" | "refusal";

/** One question's answer by a model, or why it has none. */
export type ModelOutcome =
  { ok: true; answer: ResolvedAnswer; latency_ms: number; usage: Usage | null } | { ok: false; why: Why; reason: string };

/** One question's answer by the host (D-20); usage only on a batch's first question. */
export interface HostAnswer {
  answer: ResolvedAnswer;
  latency_ms: number;
  usage: Usage | null;
}

/** The turned-on questions the host must answer instead (with why), and the calibrated answers. */
export interface Triage {
  /** Question id → the receipt's reason, `WHY: REASON` (D-31). */
  fallbackReasons: Map<string, string>;
  /** Question id → the answer after its calibration map. */
  calibrated: Map<string, Calibrated>;
}

/**
 * Sorts the models' outcomes: a failure falls back with `why: reason`; a refusal falls back only
 * when `fallbackOnRefusal` (else it stands, uncalibrated, as `uncertain`); any other answer stands,
 * through its calibration map when its type has one.
 */
export function triageOutcomes(
  modelOutcomes: Map<string, ModelOutcome>,
  calibrations: Map<string, Calibration>,
  fallbackOnRefusal: boolean,
): Triage {
  const fallbackReasons = new Map<string, string>();
  const calibrated = new Map<string, Calibrated>();
  for (const [id, o] of modelOutcomes) {
    if (!o.ok) fallbackReasons.set(id, `${o.why}: ${o.reason}`);
    else if (o.answer.refused && fallbackOnRefusal)
      fallbackReasons.set(id, "refusal: the model refused to answer and fallback_on_refusal is set");
    else {
      const c = calibrations.get(id);
      if (c && !o.answer.refused) calibrated.set(id, calibrate(o.answer, c.settings, c.min_confidence));
    }
  }
  return { fallbackReasons, calibrated };
}

/** What one judgement's calls answered (askAll), sorted by triageOutcomes. */
export interface Answers extends Triage {
  /** The host's answers to host, shadow and audited questions. */
  hostAnswers: Map<string, HostAnswer>;
  /** The host's answers in place of failed turned-on models (D-31). */
  fallbackAnswers: Map<string, HostAnswer>;
  /** PROVIDER/MODEL → question id → that shadow model's outcome (one map per candidate, H-6). */
  shadowOutcomes: Map<string, Map<string, ModelOutcome>>;
  modelOutcomes: Map<string, ModelOutcome>;
}
