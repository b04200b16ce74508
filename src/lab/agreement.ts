// Chance-corrected agreement and per-label figures of a type's confusion matrix (docs/lab.md):
// Cohen's kappa (plain for choices and yes/no, quadratic-weighted for scores) with its 95 %
// interval, over the answers that carry a label; and per label, the model's precision and recall
// against the host.

import type { QuestionKind } from "../plan/plan.js";
import { cohenKappa } from "./stats.js";

/** Cohen's kappa of the labelled answers, with its 95 % interval. */
export interface KappaReport {
  /** `plain` for choice and yes/no questions, `quadratic` for scores (levels in order). */
  weighting: "plain" | "quadratic";
  /** Labelled answers the kappa is over (abstentions are left out). */
  n: number;
  kappa: number;
  se: number;
  lo: number;
  hi: number;
}

/** One label's precision and recall of the model against the host. */
export interface LabelReport {
  label: string;
  /** Answered pairs whose host label is this one (abstentions included: they miss). */
  host: number;
  /** Answers where the model gave this label. */
  model: number;
  /** Both gave it. */
  both: number;
  /** both / model; null when the model never gave it. */
  precision: number | null;
  /** both / host; null when the host never gave it. */
  recall: number | null;
}

/** host label → model label (or the abstention column) → count. */
type Confusion = ReadonlyMap<string, ReadonlyMap<string, number>>;

function r6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The square matrix of `labels` × `labels` (rows host, columns model), abstentions left out. */
export function squareCounts(confusion: Confusion, labels: readonly string[]): number[][] {
  return labels.map((h) => labels.map((m) => confusion.get(h)?.get(m) ?? 0));
}

/** Kappa over the labelled answers: plain, or quadratic-weighted when the question is a score. */
export function kappaReport(confusion: Confusion, labels: readonly string[], kinds: readonly QuestionKind[]): KappaReport | null {
  // A type is asked one kind of question; a file that mixed kinds gets the plain kappa.
  const weighting = kinds.length === 1 && kinds[0] === "score" ? "quadratic" : "plain";
  const counts = squareCounts(confusion, labels);
  const n = counts.reduce((a, row) => a + row.reduce((x, y) => x + y, 0), 0);
  const k = cohenKappa(counts, weighting);
  if (k === null) return null;
  return { weighting, n, kappa: r6(k.kappa), se: r6(k.se), lo: r6(k.lo), hi: r6(k.hi) };
}

/** Per label: how often host and model gave it, and the model's precision and recall against the host. */
export function labelReports(confusion: Confusion, labels: readonly string[]): LabelReport[] {
  return labels.map((label) => {
    let host = 0;
    for (const c of confusion.get(label)?.values() ?? []) host += c;
    let model = 0;
    for (const row of confusion.values()) model += row.get(label) ?? 0;
    const both = confusion.get(label)?.get(label) ?? 0;
    return {
      label,
      host,
      model,
      both,
      precision: model > 0 ? r6(both / model) : null,
      recall: host > 0 ? r6(both / host) : null,
    };
  });
}
