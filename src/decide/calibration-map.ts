// Calibration maps (D-33): a monotone map from a model's confidence to the probability that the
// host would have given the same label, fitted by `switchyard lab calibrate` (src/lab) and applied
// by the router before the min_confidence test. This file only reads, checks and applies a map:
// the decision layer never fits one (fitting lives in the lab, above it).

import { createHash } from "node:crypto";
import { itemAt } from "../shared/checked-index.js";
import { isPlainObject } from "../shared/primitives.js";

/** The version of the calibration file format; a file of another version is refused. */
export const CALIBRATION_VERSION = 1;
/** The ways `lab calibrate` can fit a map (D-33). */
export const CALIBRATION_METHODS = ["isotonic", "platt", "temperature"] as const;
/** One of CALIBRATION_METHODS. */
export type CalibrationMethod = (typeof CALIBRATION_METHODS)[number];

/** Confidences are clamped this far inside (0, 1) before a logit, so 0 and 1 stay finite. */
const LOGIT_EPS = 1e-6;

/** A fitted map from a model's confidence to the probability the host agrees, by method. */
export type CalibrationMap =
  /** Piecewise-linear through (x[i], y[i]), x and y non-decreasing; constant outside [x0, xn]. */
  | { kind: "isotonic"; x: number[]; y: number[] }
  /** σ(a · logit(c) + b), a ≥ 0. */
  | { kind: "platt"; a: number; b: number }
  /** σ(logit(c) / t), t > 0 (Platt without the offset). */
  | { kind: "temperature"; t: number };

/** How a map did on held-out pairs: expected calibration error and Brier score before and after it. */
export interface CrossValidation {
  folds: number;
  ece_before: number;
  ece_after: number;
  brier_before: number;
  brier_after: number;
}

/** One judgement type's fitted map and what it was fitted on. */
export interface TypeCalibration {
  /** `cal-` + 12 hex digits of the digest of the type, model, method, pairs and map. */
  id: string;
  type: string;
  /** PROVIDER/MODEL the pairs came from; the map only applies to that model. */
  model: string;
  method: CalibrationMethod;
  pairs: { count: number; digest: string };
  /** The shadow agreement the map was fitted on (answered pairs, abstentions disagreeing). */
  baseline: { answered: number; agree: number };
  cv: CrossValidation;
  map: CalibrationMap;
}

/** The calibration file `lab calibrate` writes and the machine config names: one fitted map per judgement type. */
export interface CalibrationFile {
  version: typeof CALIBRATION_VERSION;
  created: string;
  lab: string | null;
  pairs_file: string;
  deduplicated: boolean;
  types: Record<string, TypeCalibration>;
}

const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));
/** log(c / (1 − c)), with c clamped inside (0, 1) so that 0 and 1 stay finite. */
export function logit(c: number): number {
  const x = Math.min(1 - LOGIT_EPS, Math.max(LOGIT_EPS, c));
  return Math.log(x / (1 - x));
}

/** The calibrated confidence of a raw one; always in [0, 1], never decreasing in `c`. */
export function applyMap(map: CalibrationMap, c: number): number {
  switch (map.kind) {
    case "platt":
      return sigmoid(map.a * logit(c) + map.b);
    case "temperature":
      return sigmoid(logit(c) / map.t);
    case "isotonic": {
      // A checked map has x and y of the same, non-zero length (mapProblem), so every index below is in range.
      const { x, y } = map;
      if (c <= itemAt(x, 0)) return itemAt(y, 0);
      const last = x.length - 1;
      if (c >= itemAt(x, last)) return itemAt(y, last);
      let lo = 0;
      let hi = last;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (itemAt(x, mid) <= c) lo = mid;
        else hi = mid;
      }
      const [xLo, xHi, yLo, yHi] = [itemAt(x, lo), itemAt(x, hi), itemAt(y, lo), itemAt(y, hi)];
      const span = xHi - xLo;
      return span > 0 ? yLo + ((c - xLo) / span) * (yHi - yLo) : yHi;
    }
  }
}

/** The id of a fitted map: stable for the same type, model, method, pairs and parameters. */
export function calibrationId(c: Omit<TypeCalibration, "id">): string {
  const text = JSON.stringify([c.type, c.model, c.method, c.pairs.digest, c.map]);
  return "cal-" + createHash("sha256").update(text).digest("hex").slice(0, 12);
}

const num = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

function mapProblem(m: unknown): string | null {
  if (typeof m !== "object" || m === null) return "its map is missing";
  const map: Partial<Record<string, unknown>> = { ...m };
  if (map.kind === "platt") return num(map.a) && num(map.b) && map.a >= 0 ? null : "its platt map needs numbers a ≥ 0 and b";
  if (map.kind === "temperature") return num(map.t) && map.t > 0 ? null : "its temperature map needs a number t > 0";
  if (map.kind === "isotonic") {
    const { x, y } = map;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length === 0 || x.length !== y.length)
      return "its isotonic map needs lists x and y of the same, non-zero length";
    let before: { x: number; y: number } | undefined;
    for (const [i, xi] of x.entries()) {
      const yi: unknown = y[i];
      if (!num(xi) || !num(yi) || yi < 0 || yi > 1) return `its isotonic map has a bad point ${i}`;
      if (before && (xi < before.x || yi < before.y)) return "its isotonic map is not monotone";
      before = { x: xi, y: yi };
    }
    return null;
  }
  return `its map kind ${JSON.stringify(map.kind)} is not isotonic, platt or temperature`;
}

/** What is wrong with the parsed text of a calibration file, in a sentence; null when nothing. */
function fileProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return "it is not a JSON object";
  if (value.version !== CALIBRATION_VERSION)
    return `its version is ${JSON.stringify(value.version)}, this switchyard reads version ${CALIBRATION_VERSION}`;
  if (typeof value.types !== "object" || value.types === null) return "it has no 'types'";
  for (const [type, e] of Object.entries(value.types)) {
    if (!isPlainObject(e) || typeof e.id !== "string" || typeof e.model !== "string") return `the entry for "${type}" has no id or model`;
    const problem = mapProblem(e.map);
    if (problem) return `the entry for "${type}": ${problem}`;
  }
  return null;
}

/** Checks the parsed text of a calibration file; a sentence saying what is wrong, or the file. */
export function checkCalibrationFile(value: unknown): CalibrationFile | { error: string } {
  const problem = fileProblem(value);
  // Every field a reader uses was checked just above: the one place the file's type is asserted.
  return problem === null ? (value as CalibrationFile) : { error: problem };
}
