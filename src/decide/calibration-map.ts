// Calibration maps (D-33): a monotone map from a model's confidence to the probability that the
// host would have given the same label, fitted by `switchyard lab calibrate` (src/lab) and applied
// by the router before the min_confidence test. This file only reads, checks and applies a map:
// the decision layer never fits one (fitting lives in the lab, above it).

import { createHash } from "node:crypto";

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
      const { x, y } = map;
      if (c <= x[0]) return y[0];
      const last = x.length - 1;
      if (c >= x[last]) return y[last];
      let lo = 0;
      let hi = last;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (x[mid] <= c) lo = mid;
        else hi = mid;
      }
      const span = x[hi] - x[lo];
      return span > 0 ? y[lo] + ((c - x[lo]) / span) * (y[hi] - y[lo]) : y[hi];
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
  const map = m as Record<string, unknown>;
  if (map.kind === "platt") return num(map.a) && num(map.b) && map.a >= 0 ? null : "its platt map needs numbers a ≥ 0 and b";
  if (map.kind === "temperature") return num(map.t) && map.t > 0 ? null : "its temperature map needs a number t > 0";
  if (map.kind === "isotonic") {
    const x = map.x as unknown[];
    const y = map.y as unknown[];
    if (!Array.isArray(x) || !Array.isArray(y) || x.length === 0 || x.length !== y.length)
      return "its isotonic map needs lists x and y of the same, non-zero length";
    for (let i = 0; i < x.length; i++) {
      if (!num(x[i]) || !num(y[i]) || (y[i] as number) < 0 || (y[i] as number) > 1) return `its isotonic map has a bad point ${i}`;
      if (i > 0 && ((x[i] as number) < (x[i - 1] as number) || (y[i] as number) < (y[i - 1] as number)))
        return "its isotonic map is not monotone";
    }
    return null;
  }
  return `its map kind ${JSON.stringify(map.kind)} is not isotonic, platt or temperature`;
}

/** Checks the parsed text of a calibration file; a sentence saying what is wrong, or the file. */
export function checkCalibrationFile(value: unknown): CalibrationFile | { error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: "it is not a JSON object" };
  const f = value as Record<string, unknown>;
  if (f.version !== CALIBRATION_VERSION)
    return { error: `its version is ${JSON.stringify(f.version)}, this switchyard reads version ${CALIBRATION_VERSION}` };
  if (typeof f.types !== "object" || f.types === null) return { error: "it has no 'types'" };
  for (const [type, entry] of Object.entries(f.types as Record<string, unknown>)) {
    const e = entry as Record<string, unknown>;
    if (typeof e !== "object" || e === null || typeof e.id !== "string" || typeof e.model !== "string")
      return { error: `the entry for "${type}" has no id or model` };
    const problem = mapProblem(e.map);
    if (problem) return { error: `the entry for "${type}": ${problem}` };
  }
  return value as CalibrationFile;
}
