// Fitting calibration maps (D-33) from (confidence, agreed) observations: isotonic regression by
// pool-adjacent-violators, Platt scaling (a logistic fit on the logit of the confidence, by
// Newton's method) and temperature (Platt without the offset, one parameter). Plus the two
// scores the lab reports: ECE over the six harvest bands, and Brier. Our own numerics, small on
// purpose; every formula is written down in docs/lab.md.

import { applyMap, logit, type CalibrationMap, type CalibrationMethod } from "../decide/calibration-map.js";
import { BANDS } from "./harvest.js";

/** The answers a map is fitted on: the model's confidence and whether the host agreed, one entry per answer. */
export interface Observations {
  /** The model's confidence per answer. */
  c: Float64Array;
  /** 1 when the model's label equalled the host's, else 0. */
  y: Uint8Array;
}

const EPS = 1e-9;

/** Expected calibration error over the six bands of H-2 (the harvest's definition). */
export function ece(pred: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = BANDS.map(() => 0);
  const agree = BANDS.map(() => 0);
  const conf = BANDS.map(() => 0);
  for (let i = 0; i < pred.length; i++) {
    const k = Math.min(100, Math.max(0, Math.floor(pred[i] * 100 + EPS)));
    const b = BANDS.findIndex((band) => k >= band.lo && k < band.hi);
    n[b]++;
    agree[b] += y[i];
    conf[b] += pred[i];
  }
  let sum = 0;
  for (let b = 0; b < BANDS.length; b++) if (n[b] > 0) sum += (n[b] / pred.length) * Math.abs(conf[b] / n[b] - agree[b] / n[b]);
  return sum;
}

/** The Brier score: the mean squared difference between predicted probabilities and outcomes (0 is perfect). */
export function brier(pred: ArrayLike<number>, y: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < pred.length; i++) sum += (pred[i] - y[i]) ** 2;
  return sum / pred.length;
}

/** Pool-adjacent-violators on the points sorted by confidence; ties are pooled first. */
function fitIsotonic(obs: Observations): CalibrationMap {
  const order = [...obs.c.keys()].sort((a, b) => obs.c[a] - obs.c[b]);
  // Blocks: [x_min, x_max, weight, sum of y]; a new block merges backwards while it violates.
  const lo: number[] = [];
  const hi: number[] = [];
  const w: number[] = [];
  const s: number[] = [];
  for (const i of order) {
    const x = obs.c[i];
    if (lo.length > 0 && hi[hi.length - 1] === x) {
      w[w.length - 1]++;
      s[s.length - 1] += obs.y[i];
    } else {
      lo.push(x);
      hi.push(x);
      w.push(1);
      s.push(obs.y[i]);
    }
    while (lo.length > 1 && s[s.length - 2] / w[w.length - 2] >= s[s.length - 1] / w[w.length - 1]) {
      const ww = w.pop() as number;
      const ss = s.pop() as number;
      const h = hi.pop() as number;
      lo.pop();
      w[w.length - 1] += ww;
      s[s.length - 1] += ss;
      hi[hi.length - 1] = h;
    }
  }
  const x: number[] = [];
  const y: number[] = [];
  for (let b = 0; b < lo.length; b++) {
    const v = s[b] / w[b];
    x.push(lo[b]);
    y.push(v);
    if (hi[b] > lo[b]) {
      x.push(hi[b]);
      y.push(v);
    }
  }
  return { kind: "isotonic", x, y };
}

/**
 * Logistic regression of y on z = logit(c): p = σ(a·z + b), by Newton's method with step halving.
 * Targets are smoothed as Platt (1999) does — (N₊+1)/(N₊+2) and 1/(N₋+2) — so a sample that
 * separates perfectly still has a finite fit. `a` is kept ≥ 0 so the map never decreases: when
 * confidence does not predict agreement at all, the map is the constant base rate (a = 0).
 */
function fitLogistic(obs: Observations, withOffset: boolean): { a: number; b: number } {
  const n = obs.c.length;
  const z = Float64Array.from(obs.c, logit);
  let pos = 0;
  for (let i = 0; i < n; i++) pos += obs.y[i];
  const hiT = (pos + 1) / (pos + 2);
  const loT = 1 / (n - pos + 2);
  const t = Float64Array.from(obs.y, (v) => (v ? hiT : loT));
  const loss = (a: number, b: number): number => {
    let l = 0;
    for (let i = 0; i < n; i++) {
      const u = a * z[i] + b;
      // -[t log σ(u) + (1-t) log(1-σ(u))] = log(1 + e^u) - t·u, computed stably.
      l += (u > 0 ? u + Math.log1p(Math.exp(-u)) : Math.log1p(Math.exp(u))) - t[i] * u;
    }
    return l;
  };
  const solve = (fixA: boolean): { a: number; b: number } => {
    let a = fixA ? 0 : 1;
    let b = 0;
    if (fixA) b = Math.log((pos + 1) / (n - pos + 1)); // a fine start; Newton refines it
    let current = loss(a, b);
    for (let iter = 0; iter < 100; iter++) {
      let ga = 0;
      let gb = 0;
      let haa = 1e-9;
      let hab = 0;
      let hbb = 1e-9;
      for (let i = 0; i < n; i++) {
        const u = a * z[i] + b;
        const p = u >= 0 ? 1 / (1 + Math.exp(-u)) : Math.exp(u) / (1 + Math.exp(u));
        const r = p - t[i];
        const v = p * (1 - p);
        ga += r * z[i];
        gb += r;
        haa += v * z[i] * z[i];
        hab += v * z[i];
        hbb += v;
      }
      let da: number;
      let db: number;
      if (fixA) {
        da = 0;
        db = withOffset ? gb / hbb : 0;
      } else if (withOffset) {
        const det = haa * hbb - hab * hab;
        da = (hbb * ga - hab * gb) / det;
        db = (haa * gb - hab * ga) / det;
      } else {
        da = ga / haa;
        db = 0;
      }
      let step = 1;
      let next = loss(a - da, b - db);
      while (next > current && step > 1e-10) {
        step /= 2;
        next = loss(a - step * da, b - step * db);
      }
      if (next > current) break;
      a -= step * da;
      b -= step * db;
      const done = current - next < 1e-12 * Math.max(1, Math.abs(current));
      current = next;
      if (done) break;
    }
    return { a, b };
  };
  const free = solve(false);
  if (free.a >= 0) return free;
  return withOffset ? solve(true) : { a: 0, b: 0 };
}

/** Fits a calibration map of the given method to the observations. */
export function fit(method: CalibrationMethod, obs: Observations): CalibrationMap {
  if (method === "isotonic") return fitIsotonic(obs);
  if (method === "platt") {
    const { a, b } = fitLogistic(obs, true);
    return { kind: "platt", a, b };
  }
  const { a } = fitLogistic(obs, false);
  // a = 1/t; a ≤ 1e-6 (confidence predicts nothing) is a very hot temperature: the map is ≈ 0.5.
  return { kind: "temperature", t: 1 / Math.max(a, 1e-6) };
}

/**
 * k-fold cross-validation: each observation is predicted by the map fitted on the other folds
 * (fold = position mod k), and ECE and Brier of the raw and calibrated confidences are computed
 * over all the held-out predictions together.
 */
export function crossValidate(method: CalibrationMethod, obs: Observations, folds: number) {
  const n = obs.c.length;
  const pred = new Float64Array(n);
  for (let f = 0; f < folds; f++) {
    const train: number[] = [];
    const test: number[] = [];
    for (let i = 0; i < n; i++) (i % folds === f ? test : train).push(i);
    if (test.length === 0) continue;
    const map = fit(method, { c: Float64Array.from(train, (i) => obs.c[i]), y: Uint8Array.from(train, (i) => obs.y[i]) });
    for (const i of test) pred[i] = applyMap(map, obs.c[i]);
  }
  return {
    folds,
    ece_before: ece(obs.c, obs.y),
    ece_after: ece(pred, obs.y),
    brier_before: brier(obs.c, obs.y),
    brier_after: brier(pred, obs.y),
  };
}
