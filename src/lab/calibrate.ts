// `switchyard lab calibrate` (H-4): per judgement type, fits a monotone map from the model's
// confidence to the probability of agreeing with the host, out of the lab's shadow pairs, and
// validates it by k-fold cross-validation. A type with fewer than MIN_PAIRS labelled answers, or
// whose answers all agree (or all disagree), gets no map: there is nothing to fit it on.

import { createHash } from "node:crypto";
import type { ShadowPair } from "../decide/pair.js";
import {
  CALIBRATION_VERSION,
  calibrationId,
  type CalibrationFile,
  type CalibrationMethod,
  type TypeCalibration,
} from "../decide/calibration-map.js";
import { crossValidate, fit } from "./fit.js";
import { modelLabel } from "./harvest.js";
import { pairFilter, pairKind, pairModel, type PairFilters } from "./pair-filter.js";
import { scanPairs } from "./pairs-reader.js";

/** Fewer labelled answers than this and no map is fitted (nor a verdict given by harvest). */
export const MIN_PAIRS = 30;
const DEFAULT_FOLDS = 5;
/** The method `lab calibrate` fits when none is given: Platt scaling, which suits a few hundred pairs. */
export const DEFAULT_METHOD: CalibrationMethod = "platt";

/** What to fit a calibration on: the pair filters, the method, the folds of cross-validation, and the model when pairs mix models. */
export interface CalibrateOptions extends PairFilters {
  method?: CalibrationMethod;
  folds?: number;
  /** PROVIDER/MODEL, when a type's pairs mix models. */
  model?: string;
  lab?: string | null;
  now?: Date;
}

/** One judgement type's result: its fitted calibration, or why none was fitted. */
export type TypeOutcome =
  | { type: string; fitted: true; calibration: TypeCalibration }
  | { type: string; fitted: false; reason: string; pairs: number; needed?: number };

/** What `lab calibrate` produced: the calibration file to write, each type's outcome, and warnings about the pairs. */
export interface CalibrateResult {
  file: CalibrationFile;
  outcomes: TypeOutcome[];
  warnings: string[];
}

interface Collected {
  models: Map<
    string,
    { c: number[]; y: number[]; order: string[]; answered: number; agree: number; digest: ReturnType<typeof createHash> }
  >;
}

/**
 * Where a pair sorts before the fit and the fold assignment: a digest of what it is about, so
 * the map and the cross-validation do not depend on the order concurrent runs appended pairs in.
 */
function orderKey(pair: ShadowPair): string {
  // The element first (hashed, so folds mix keys), then the state: the same tickets order alike in every lab.
  return (
    createHash("sha256")
      .update(JSON.stringify([pair.task, pair.key, pair.question.id]))
      .digest("hex")
      .slice(0, 16) +
    " " +
    pair.state_digest +
    " " +
    pair.host_label
  );
}

/** Fits a calibration map per judgement type from a pairs file (D-33), with held-out figures from cross-validation. */
// eslint-disable-next-line max-lines-per-function -- not split yet: reading pairs, grouping by type and fitting each; to be split into those steps
export async function calibrate(pairsFile: string, options: CalibrateOptions = {}): Promise<CalibrateResult> {
  const method = options.method ?? DEFAULT_METHOD;
  const folds = options.folds ?? DEFAULT_FOLDS;
  const selection = pairFilter(options);
  const byType = new Map<string, Collected>();
  const scan = await scanPairs(pairsFile, (pair: ShadowPair) => {
    // Audit pairs check a map; they are never fitted on (docs/lab.md).
    if (pairKind(pair) !== "shadow" || !selection.keep(pair) || !pair.model) return;
    let t = byType.get(pair.type);
    if (!t) byType.set(pair.type, (t = { models: new Map() }));
    const who = pairModel(pair);
    let m = t.models.get(who);
    if (!m) t.models.set(who, (m = { c: [], y: [], order: [], answered: 0, agree: 0, digest: createHash("sha256") }));
    m.answered++;
    const label = modelLabel(pair);
    const agrees = label !== null && label === pair.host_label;
    if (agrees) m.agree++;
    if (label === null) return;
    m.c.push(pair.model.confidence);
    m.y.push(agrees ? 1 : 0);
    m.order.push(orderKey(pair));
    m.digest.update(
      JSON.stringify([
        pair.run,
        pair.task,
        pair.key,
        pair.question.id,
        pair.state_digest,
        pair.host_label,
        who,
        label,
        pair.model.confidence,
      ]) + "\n",
    );
  });
  const outcomes: TypeOutcome[] = [];
  const types: Record<string, TypeCalibration> = {};
  for (const type of [...byType.keys()].sort()) {
    const models = byType.get(type) as Collected;
    let who: string;
    if (options.model !== undefined) {
      if (!models.models.has(options.model)) {
        outcomes.push({
          type,
          fitted: false,
          pairs: 0,
          reason: `no pairs of model ${options.model} (the type's pairs are of ${[...models.models.keys()].join(", ")})`,
        });
        continue;
      }
      who = options.model;
    } else if (models.models.size > 1) {
      const list = [...models.models].map(([m, v]) => `${m} (${v.c.length})`).join(", ");
      outcomes.push({ type, fitted: false, pairs: 0, reason: `its pairs mix models: ${list}; choose one with --model PROVIDER/MODEL` });
      continue;
    } else who = [...models.models.keys()][0];
    const m = models.models.get(who)!;
    const n = m.c.length;
    if (n < MIN_PAIRS) {
      outcomes.push({
        type,
        fitted: false,
        pairs: n,
        needed: MIN_PAIRS,
        reason: `${n} labelled answers; a map needs at least ${MIN_PAIRS} (${MIN_PAIRS - n} more)`,
      });
      continue;
    }
    const agreeing = m.y.reduce((a, b) => a + b, 0);
    if (agreeing === 0 || agreeing === n) {
      outcomes.push({
        type,
        fitted: false,
        pairs: n,
        reason: `all ${n} answers ${agreeing === 0 ? "disagree" : "agree"} with the host: there is nothing to calibrate against`,
      });
      continue;
    }
    const sorted = [...m.c.keys()].sort((i, j) => (m.order[i] < m.order[j] ? -1 : m.order[i] > m.order[j] ? 1 : m.c[i] - m.c[j]));
    const obs = { c: Float64Array.from(sorted, (i) => m.c[i]), y: Uint8Array.from(sorted, (i) => m.y[i]) };
    const cv = crossValidate(method, obs, Math.min(folds, n));
    const entry: Omit<TypeCalibration, "id"> = {
      type,
      model: who,
      method,
      pairs: { count: n, digest: "sha256:" + m.digest.digest("hex") },
      baseline: { answered: m.answered, agree: m.agree },
      cv: {
        folds: cv.folds,
        ece_before: r6(cv.ece_before),
        ece_after: r6(cv.ece_after),
        brier_before: r6(cv.brier_before),
        brier_after: r6(cv.brier_after),
      },
      map: roundMap(fit(method, obs)),
    };
    const calibration = { id: calibrationId(entry), ...entry };
    types[type] = calibration;
    outcomes.push({ type, fitted: true, calibration });
  }
  for (const type of options.types ?? []) {
    if (!byType.has(type))
      outcomes.push({ type, fitted: false, pairs: 0, needed: MIN_PAIRS, reason: "no shadow pairs with a model answer" });
  }
  return {
    file: {
      version: CALIBRATION_VERSION,
      created: (options.now ?? new Date()).toISOString(),
      lab: options.lab ?? null,
      pairs_file: pairsFile,
      deduplicated: !options.all,
      types,
    },
    outcomes,
    warnings: scan.warnings,
  };
}

function r6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Parameters to 9 significant digits: the file stays readable and the map is unchanged in use. */
function roundMap(map: TypeCalibration["map"]): TypeCalibration["map"] {
  const p = (x: number): number => Number(x.toPrecision(9));
  if (map.kind === "platt") return { kind: "platt", a: p(map.a), b: p(map.b) };
  if (map.kind === "temperature") return { kind: "temperature", t: p(map.t) };
  const y = map.y.map(p);
  for (let i = 1; i < y.length; i++) if (y[i] < y[i - 1]) y[i] = y[i - 1];
  return { kind: "isotonic", x: map.x, y };
}
