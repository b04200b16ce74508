// The interval and agreement statistics of the harvest (docs/lab.md): the Wilson score interval
// of a proportion, Newcombe's interval for a difference of two proportions (built from two
// Wilson intervals) for the drift check, and for score questions the mean absolute level
// distance and the quadratic-weighted kappa; Cohen's kappa (plain or quadratic-weighted) with its
// asymptotic standard error (Fleiss, Cohen and Everitt 1969), for a 95 % interval.

import { itemAt } from "../shared/checked-index.js";

/** z for a two-sided 95 % interval: the normal distribution's 0.975 quantile, to double precision. */
export const Z95 = 1.959963984540054;

/** Wilson score interval of k successes in n trials; [0, 1] when n = 0. */
export function wilson(k: number, n: number, z = Z95): { lo: number; hi: number } {
  if (n <= 0) return { lo: 0, hi: 1 };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/**
 * Newcombe's hybrid score interval (his method 10) for p₁ − p₂, with p₁ = k1/n1, p₂ = k2/n2:
 * d − √((p₁−l₁)² + (u₂−p₂)²) … d + √((u₁−p₁)² + (p₂−l₂)²).
 */
export function newcombe(k1: number, n1: number, k2: number, n2: number, z = Z95): { d: number; lo: number; hi: number } {
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const w1 = wilson(k1, n1, z);
  const w2 = wilson(k2, n2, z);
  const d = p1 - p2;
  return { d, lo: d - Math.sqrt((p1 - w1.lo) ** 2 + (w2.hi - p2) ** 2), hi: d + Math.sqrt((w1.hi - p1) ** 2 + (p2 - w2.lo) ** 2) };
}

/**
 * Quadratic-weighted kappa of a square count matrix over ordered levels (rows: host, columns:
 * model): 1 − Σ w·O / Σ w·E with w = (i−j)²/(K−1)² and E the product of the margins over N.
 * null when undefined (fewer than two levels, no counts, or no expected disagreement).
 */
export function quadraticKappa(counts: number[][]): number | null {
  const k = counts.length;
  if (k < 2) return null;
  // Stryker disable next-line ArithmeticOperator: rows are only used as rows[i] / total, total being their sum, so negating every row sum changes nothing
  const rows = counts.map((r) => r.reduce((a, b) => a + b, 0));
  const cols = itemAt(counts, 0).map((_, j) => counts.reduce((a, r) => a + itemAt(r, j), 0));
  const total = rows.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      // Stryker disable next-line ArithmeticOperator: any positive scale of w cancels in observed / expected, so `* (k − 1)²` and `/ (k + 1)²` are the same kappa (this also skips `(i + j)²`, which the known answers kill)
      const w = (i - j) ** 2 / (k - 1) ** 2;
      observed += w * itemAt(itemAt(counts, i), j);
      expected += (w * itemAt(rows, i) * itemAt(cols, j)) / total;
    }
  }
  return expected === 0 ? null : 1 - observed / expected;
}

/** Mean |host level − model level| over a square count matrix of ordered levels; null when empty. */
export function meanLevelDistance(counts: number[][]): number | null {
  let sum = 0;
  let n = 0;
  counts.forEach((row, i) => row.forEach((c, j) => ((sum += c * Math.abs(i - j)), (n += c))));
  return n > 0 ? sum / n : null;
}

/** Cohen's kappa with its standard error and 95 % interval (κ ± z·se). */
export interface KappaEstimate {
  kappa: number;
  se: number;
  lo: number;
  hi: number;
}

/**
 * Cohen's kappa of a square count matrix (rows: host, columns: model), unweighted ("plain": only the
 * diagonal agrees) or quadratic-weighted, with the large-sample standard error of Fleiss, Cohen and
 * Everitt (1969) — as statsmodels' cohens_kappa computes it. With agreement weights w (1 on the
 * diagonal), p = counts/N, margins r (rows) and c (columns): pₒ = Σ w·p, pₑ = Σ w·r·c,
 * κ = (pₒ − pₑ)/(1 − pₑ), and var = [Σ p_ij (w_ij − (w̄_i + w̄_j)(1 − κ))² − (κ − pₑ(1 − κ))²] / (N(1 − pₑ)²)
 * with w̄_i = Σ_j c_j w_ij and w̄_j = Σ_i r_i w_ij. null when undefined (no counts, pₑ = 1).
 */
export function cohenKappa(counts: number[][], weighting: "plain" | "quadratic" = "plain", z = Z95): KappaEstimate | null {
  const k = counts.length;
  const total = counts.reduce((a, row) => a + row.reduce((x, y) => x + y, 0), 0);
  if (k < 1 || total === 0) return null;
  const agreeWeight = (i: number, j: number): number =>
    weighting === "plain" ? (i === j ? 1 : 0) : k < 2 ? 1 : 1 - (i - j) ** 2 / (k - 1) ** 2;
  const r = counts.map((row) => row.reduce((a, b) => a + b, 0) / total);
  const c = counts.map((_, j) => counts.reduce((a, row) => a + itemAt(row, j), 0) / total);
  const wRow = r.map((_, i) => c.reduce((a, cj, j) => a + cj * agreeWeight(i, j), 0));
  const wCol = c.map((_, j) => r.reduce((a, ri, i) => a + ri * agreeWeight(i, j), 0));
  let po = 0;
  let pe = 0;
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      po += (agreeWeight(i, j) * itemAt(itemAt(counts, i), j)) / total;
      pe += agreeWeight(i, j) * itemAt(r, i) * itemAt(c, j);
    }
  if (1 - pe <= 1e-15) return null;
  const kappa = (po - pe) / (1 - pe);
  let sum = 0;
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const p = itemAt(itemAt(counts, i), j) / total;
      sum += p * (agreeWeight(i, j) - (itemAt(wRow, i) + itemAt(wCol, j)) * (1 - kappa)) ** 2;
    }
  const variance = (sum - (kappa - pe * (1 - kappa)) ** 2) / (total * (1 - pe) ** 2);
  const se = Math.sqrt(Math.max(0, variance));
  return { kappa, se, lo: kappa - z * se, hi: kappa + z * se };
}
