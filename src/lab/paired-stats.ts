// Statistics of a paired comparison of two models on the same elements (`lab compare`): McNemar's
// exact test on the discordant pairs, and Newcombe's interval for the difference of two paired
// proportions (his method 10 for paired data, 1998), built from two Wilson intervals.

import { wilson, Z95 } from "./stats.js";

/** The 2×2 table of a paired comparison: how many elements both, only A, only B, or neither got right. */
export interface PairedTable {
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
}

/**
 * McNemar's exact test: the two-sided p-value of the discordant counts b (only A right) and c
 * (only B right) under Binomial(b + c, ½) — min(1, 2·P[X ≤ min(b, c)]), as statsmodels'
 * mcnemar(exact=True). Summed in log space so that thousands of discordant pairs do not underflow.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  const m = Math.min(b, c);
  if (n === 0) return 1;
  // log C(n, i) − n·log 2, from i = 0 upwards; the tail is summed relative to its largest term.
  const logs: number[] = [];
  let logC = 0;
  for (let i = 0; i <= m; i++) {
    logs.push(logC - n * Math.LN2);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  const top = Math.max(...logs);
  const tail = Math.exp(top) * logs.reduce((a, l) => a + Math.exp(l - top), 0);
  return Math.min(1, 2 * tail);
}

/**
 * The 95 % interval of p_B − p_A on paired data, p_A = (both + onlyA)/n and p_B = (both + onlyB)/n:
 * with Wilson intervals [l, u] of each and φ the correlation of the 2×2 table (0 when a margin is
 * empty), d − √((p_B − l_B)² − 2φ(p_B − l_B)(u_A − p_A) + (u_A − p_A)²) … d + √((u_B − p_B)² −
 * 2φ(u_B − p_B)(p_A − l_A) + (p_A − l_A)²). null when there are no elements.
 */
export function pairedDifference(t: PairedTable, z = Z95): { d: number; lo: number; hi: number } | null {
  const n = t.both + t.onlyA + t.onlyB + t.neither;
  if (n === 0) return null;
  const kA = t.both + t.onlyA;
  const kB = t.both + t.onlyB;
  const pA = kA / n;
  const pB = kB / n;
  const a = wilson(kA, n, z);
  const b = wilson(kB, n, z);
  const den = kA * (n - kA) * kB * (n - kB);
  const phi = den > 0 ? (t.both * t.neither - t.onlyA * t.onlyB) / Math.sqrt(den) : 0;
  const d = pB - pA;
  const below = (pB - b.lo) ** 2 - 2 * phi * (pB - b.lo) * (a.hi - pA) + (a.hi - pA) ** 2;
  const above = (b.hi - pB) ** 2 - 2 * phi * (b.hi - pB) * (pA - a.lo) + (pA - a.lo) ** 2;
  return { d, lo: d - Math.sqrt(Math.max(0, below)), hi: d + Math.sqrt(Math.max(0, above)) };
}
