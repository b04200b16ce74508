// D-33: a turned-on answer through its type's calibration map. The map turns the model's confidence
// into the probability that the host would agree, and the min_confidence test is made on that.

import { UNCERTAIN, type ResolvedAnswer } from "../answer.js";
import { applyMap } from "../calibration-map.js";
import type { TypeSettings } from "../config-types.js";

/** A turned-on answer after its calibration map: what gated, and the model's own confidence. */
export interface Calibrated {
  /** The answer that gates: the calibrated confidence, and `uncertain` when it is below the threshold. */
  answer: ResolvedAnswer;
  /** The model's own confidence, before the map (recorded as raw_confidence). */
  raw: number;
  /** The map's id (`cal-…`), recorded on the decision. */
  id: string;
}

/**
 * The answer with its confidence mapped; the label, when it stands (mapped confidence at or above
 * `minConfidence`), is the model's own. `settings` must carry a calibration.
 */
export function calibrate(answer: ResolvedAnswer, settings: TypeSettings, minConfidence: number): Calibrated {
  const cal = settings.calibration!;
  const confidence = applyMap(cal.map, answer.confidence);
  return {
    answer: { ...answer, confidence, label: confidence < minConfidence ? UNCERTAIN : answer.label },
    raw: answer.confidence,
    id: cal.id,
  };
}
