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
import { fitDigestLine, pairFilter, pairKind, pairModel, type PairFilters } from "./pair-filter.js";
import { scanPairs } from "./pairs-reader.js";
import { itemAt } from "../shared/checked-index.js";

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

/** One model's pairs of one type: confidence, agreement and sort key per answer. */
interface ModelPairs {
  c: number[];
  y: number[];
  order: string[];
  answered: number;
  agree: number;
  digest: ReturnType<typeof createHash>;
}

interface Collected {
  models: Map<string, ModelPairs>;
}

/**
 * Where a pair sorts before the fit and the fold assignment: a digest of what it is about, so
 * the map and the cross-validation do not depend on the order concurrent runs appended pairs in.
 */
function orderKey(pair: ShadowPair): string {
  // The element first (hashed, so folds mix keys), then the state: the same tickets order alike in every lab.
  return (
    // Stryker disable next-line MethodExpression: the whole 64-digit hash orders elements as its first 16 digits do (they tie only for the same element, whose full hashes tie too)
    createHash("sha256")
      .update(JSON.stringify([pair.task, pair.key, pair.question.id]))
      .digest("hex")
      .slice(0, 16) +
    // Stryker disable next-line StringLiteral: the hash before this space always has 16 digits, so the space never decides an order
    " " +
    pair.state_digest +
    " " +
    pair.host_label
  );
}

/** Reads the shadow pairs with a model answer, grouped by type and model, in file order. */
async function collect(pairsFile: string, options: CalibrateOptions) {
  const selection = pairFilter(options);
  const byType = new Map<string, Collected>();
  const scan = await scanPairs(pairsFile, (pair: ShadowPair) => {
    // Audit and reviewed pairs are never fitted on (docs/lab.md).
    if (pairKind(pair) !== "shadow" || !selection.keep(pair) || !pair.model) return;
    let t = byType.get(pair.type);
    if (!t) byType.set(pair.type, (t = { models: new Map() }));
    const who = pairModel(pair);
    let m = t.models.get(who);
    if (!m) t.models.set(who, (m = { c: [], y: [], order: [], answered: 0, agree: 0, digest: createHash("sha256") }));
    m.answered++;
    const label = modelLabel(pair);
    // Stryker disable next-line ConditionalExpression: host_label is always a string (pairs-reader rejects others), so a null label never equals it anyway
    const agrees = label !== null && label === pair.host_label;
    if (agrees) m.agree++;
    if (label === null) return;
    m.c.push(pair.model.confidence);
    m.y.push(agrees ? 1 : 0);
    m.order.push(orderKey(pair));
    m.digest.update(fitDigestLine(pair, who, label, pair.model.confidence));
  });
  return { byType, warnings: scan.warnings };
}

/** The one model a type's map is for: the one asked for, or the type's only model; else why not. */
function chooseModel(type: string, models: Collected, wanted: string | undefined): { who: string; m: ModelPairs } | TypeOutcome {
  if (wanted !== undefined) {
    const chosen = models.models.get(wanted);
    if (chosen !== undefined) return { who: wanted, m: chosen };
    return {
      type,
      fitted: false,
      pairs: 0,
      reason: `no pairs of model ${wanted} (the type's pairs are of ${[...models.models.keys()].join(", ")})`,
    };
  }
  const [only, ...more] = models.models;
  if (only === undefined || more.length > 0) {
    const list = [...models.models].map(([model, v]) => `${model} (${v.c.length})`).join(", ");
    return { type, fitted: false, pairs: 0, reason: `its pairs mix models: ${list}; choose one with --model PROVIDER/MODEL` };
  }
  return { who: only[0], m: only[1] };
}

/** Why a model's pairs are too few, or too uniform, to fit a map on; null when a map can be fitted. */
function unfit(type: string, m: ModelPairs): TypeOutcome | null {
  const n = m.c.length;
  if (n < MIN_PAIRS) {
    return {
      type,
      fitted: false,
      pairs: n,
      needed: MIN_PAIRS,
      reason: `${n} labelled answers; a map needs at least ${MIN_PAIRS} (${MIN_PAIRS - n} more)`,
    };
  }
  const agreeing = m.y.reduce((a, b) => a + b, 0);
  if (agreeing === 0 || agreeing === n) {
    return {
      type,
      fitted: false,
      pairs: n,
      reason: `all ${n} answers ${agreeing === 0 ? "disagree" : "agree"} with the host: there is nothing to calibrate against`,
    };
  }
  return null;
}

/** Fits and cross-validates one type's map on one model's pairs, in the documented order. */
function fitType(type: string, who: string, m: ModelPairs, method: CalibrationMethod, folds: number): TypeCalibration {
  const n = m.c.length;
  const points = m.c
    .map((c, i) => ({ c, y: itemAt(m.y, i), order: itemAt(m.order, i) }))
    .sort((p, q) => (p.order < q.order ? -1 : p.order > q.order ? 1 : p.c - q.c));
  const obs = { c: Float64Array.from(points, (p) => p.c), y: Uint8Array.from(points, (p) => p.y) };
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
  return { id: calibrationId(entry), ...entry };
}

/** Fits a calibration map per judgement type from a pairs file (D-33), with held-out figures from cross-validation. */
export async function calibrate(pairsFile: string, options: CalibrateOptions = {}): Promise<CalibrateResult> {
  const method = options.method ?? DEFAULT_METHOD;
  const folds = options.folds ?? DEFAULT_FOLDS;
  const { byType, warnings } = await collect(pairsFile, options);
  const outcomes: TypeOutcome[] = [];
  const types: Record<string, TypeCalibration> = {};
  for (const [type, models] of [...byType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const chosen = chooseModel(type, models, options.model);
    if ("type" in chosen) {
      outcomes.push(chosen);
      continue;
    }
    const why = unfit(type, chosen.m);
    if (why) {
      outcomes.push(why);
      continue;
    }
    const calibration = fitType(type, chosen.who, chosen.m, method, folds);
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
    warnings,
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
  // Rounding must not make the map decrease: each y is at least the one before it.
  let floor = -Infinity;
  const y = map.y.map((v) => (floor = Math.max(floor, p(v))));
  return { kind: "isotonic", x: map.x, y };
}
