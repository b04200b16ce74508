// Harvest (H-2, H-3): agreement between the model and the host, per judgement type and overall,
// out of fixed-size counters. Pairs stream past once; each type keeps 101 confidence buckets
// (agree / total / sum of confidence), a capped confusion matrix and a few totals, so memory does
// not grow with the number of pairs — except for one number per decision, to count each
// element's question once per run (issue 9 item 6): a run killed after a pair was written but
// before its decision was committed asks that element again on resume, and the second pair of the
// same run, task, element and question (pairs that carry the instance's `attempt`) is a
// duplicate, skipped with a warning. Every definition here is written down in docs/lab.md.

import type { ShadowPair } from "../decide/pair.js";
import type { QuestionKind } from "../plan/plan.js";
import { scanPairs } from "./pairs-reader.js";

/** The confidence bands of H-2, as [lo, hi) in hundredths; the last includes 1. */
export const BANDS: ReadonlyArray<{ name: string; lo: number; hi: number }> = [
  { name: "<0.5", lo: 0, hi: 50 },
  { name: "0.5–0.7", lo: 50, hi: 70 },
  { name: "0.7–0.8", lo: 70, hi: 80 },
  { name: "0.8–0.9", lo: 80, hi: 90 },
  { name: "0.9–0.95", lo: 90, hi: 95 },
  { name: "≥0.95", lo: 95, hi: 101 },
];

/** Buckets of width 0.01: bucket k holds confidences c with k ≤ 100·c < k+1; bucket 100 is c = 1. */
const BUCKETS = 101;
/** Confidences are compared with thresholds within this tolerance (0.29 · 100 is 28.999…). */
const EPS = 1e-9;
/** Distinct labels kept per type; more fold into OTHER so a strange file cannot grow memory. */
const MAX_LABELS = 64;
const MAX_REASONS = 32;
const MAX_MODELS = 16;
const MAX_TYPES = 1000;
const OTHER = "(other)";
/** The model column of abstentions (refused, or no usable label) in the confusion matrix. */
export const ABSTAIN = "uncertain";
export const OVERALL = "(overall)";

export function bucketOf(confidence: number): number {
  return Math.min(BUCKETS - 1, Math.max(0, Math.floor(confidence * 100 + EPS)));
}

/** What a model answer counts as: a label (its agreement is checked) or an abstention. */
export function modelLabel(pair: ShadowPair): string | null {
  const m = pair.model;
  if (!m || m.refused) return null;
  if (m.label !== ABSTAIN) return m.label;
  // `uncertain` because the shadow ran with a min_confidence: recover the most probable label
  // (Q-10, ties to the first declared), since thresholds are what harvest itself sweeps.
  let best: string | null = null;
  let bestP = -1;
  for (const label of pair.question.labels) {
    const p = m.probabilities[label];
    if (typeof p === "number" && p > bestP) {
      best = label;
      bestP = p;
    }
  }
  return best;
}

/** Counters for one judgement type (or all of them). Fixed size apart from the capped maps. */
class Tally {
  kinds = new Set<QuestionKind>();
  models = new Map<string, number>();
  pairs = 0;
  skipped = new Map<string, number>();
  answered = 0;
  refused = 0;
  noLabel = 0;
  agree = 0;
  brierSum = 0;
  n = new Float64Array(BUCKETS);
  nAgree = new Float64Array(BUCKETS);
  confSum = new Float64Array(BUCKETS);
  labels: string[] = [];
  private labelSet = new Set<string>();
  /** host label → model label (or ABSTAIN) → count. */
  confusion = new Map<string, Map<string, number>>();

  label(l: string): string {
    if (this.labelSet.has(l)) return l;
    if (this.labelSet.size >= MAX_LABELS) return OTHER;
    this.labelSet.add(l);
    this.labels.push(l);
    return l;
  }

  add(pair: ShadowPair): void {
    this.pairs++;
    this.kinds.add(pair.question.kind);
    for (const l of pair.question.labels) this.label(l);
    const who = pair.model ? `${pair.model.provider}/${pair.model.model}` : pair.skipped ? `${pair.skipped.provider}/${pair.skipped.model}` : "";
    if (who !== "") bump(this.models, who, MAX_MODELS);
    if (!pair.model) {
      bump(this.skipped, reasonClass(pair.skipped?.reason ?? ""), MAX_REASONS);
      return;
    }
    this.answered++;
    const host = this.label(pair.host_label);
    const label = modelLabel(pair);
    if (label === null) {
      if (pair.model.refused) this.refused++;
      else this.noLabel++;
      this.count(host, ABSTAIN);
      return;
    }
    const agrees = label === pair.host_label ? 1 : 0;
    this.agree += agrees;
    const c = pair.model.confidence;
    const k = bucketOf(c);
    this.n[k]++;
    this.nAgree[k] += agrees;
    this.confSum[k] += c;
    this.brierSum += (c - agrees) * (c - agrees);
    this.count(host, this.label(label));
  }

  private count(host: string, model: string): void {
    let row = this.confusion.get(host);
    if (!row) this.confusion.set(host, (row = new Map()));
    row.set(model, (row.get(model) ?? 0) + 1);
  }

  merge(o: Tally): void {
    for (const k of o.kinds) this.kinds.add(k);
    for (const [m, c] of o.models) bump(this.models, m, MAX_MODELS, c);
    this.pairs += o.pairs;
    for (const [r, c] of o.skipped) bump(this.skipped, r, MAX_REASONS, c);
    this.answered += o.answered;
    this.refused += o.refused;
    this.noLabel += o.noLabel;
    this.agree += o.agree;
    this.brierSum += o.brierSum;
    for (let k = 0; k < BUCKETS; k++) {
      this.n[k] += o.n[k];
      this.nAgree[k] += o.nAgree[k];
      this.confSum[k] += o.confSum[k];
    }
    for (const l of o.labels) this.label(l);
    for (const [h, row] of o.confusion) {
      const host = this.label(h);
      for (const [m, c] of row) {
        const model = m === ABSTAIN ? ABSTAIN : this.label(m);
        let mine = this.confusion.get(host);
        if (!mine) this.confusion.set(host, (mine = new Map()));
        mine.set(model, (mine.get(model) ?? 0) + c);
      }
    }
  }
}

function bump(map: Map<string, number>, key: string, cap: number, by = 1): void {
  const k = map.has(key) || map.size < cap ? key : OTHER;
  map.set(k, (map.get(k) ?? 0) + by);
}

/** "error: HTTP 500 …" → "error": the reason's class, so counts stay few and free of details. */
export function reasonClass(reason: string): string {
  const head = reason.split(":")[0].trim().slice(0, 40);
  return head === "" ? "unknown" : head;
}

export interface BandReport {
  band: string;
  lo: number;
  hi: number;
  n: number;
  agree: number;
  agreement: number | null;
  mean_confidence: number | null;
}

export interface ThresholdPoint {
  t: number;
  covered: number;
  coverage: number | null;
  agree: number;
  agreement: number | null;
}

export interface TypeReport {
  type: string;
  kinds: QuestionKind[];
  models: Array<{ model: string; pairs: number }>;
  pairs: number;
  skipped: { total: number; by_reason: Record<string, number> };
  answered: number;
  abstained: { total: number; refused: number; no_label: number };
  agreement: { agree: number; rate: number | null };
  calibrated: number;
  ece: number | null;
  brier: number | null;
  bands: BandReport[];
  thresholds: ThresholdPoint[];
  recommended: { threshold: number; covered: number; coverage: number; agreement: number } | null;
  confusion: { host_labels: string[]; model_labels: string[]; counts: number[][] };
}

export interface HarvestReport {
  version: 1;
  file: string;
  lab: string | null;
  target: number;
  lines: number;
  warnings: string[];
  types: TypeReport[];
  overall: TypeReport;
}

/** Rates are rounded to 6 decimals so --json output is stable across platforms. */
function r6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
function rate(num: number, den: number): number | null {
  return den > 0 ? r6(num / den) : null;
}

function report(type: string, t: Tally, target: number): TypeReport {
  const calibrated = t.answered - t.refused - t.noLabel;
  // Per band: how many answers, how many agreed, and the sum of their confidences.
  const sums = BANDS.map((b) => {
    let n = 0;
    let agree = 0;
    let conf = 0;
    for (let k = b.lo; k < b.hi; k++) {
      n += t.n[k];
      agree += t.nAgree[k];
      conf += t.confSum[k];
    }
    return { b, n, agree, conf };
  });
  const bands: BandReport[] = sums.map(({ b, n, agree, conf }) => ({
    band: b.name, lo: b.lo / 100, hi: Math.min(1, b.hi / 100), n, agree, agreement: rate(agree, n), mean_confidence: rate(conf, n),
  }));
  let ece: number | null = null;
  if (calibrated > 0) {
    let sum = 0;
    for (const { n, agree, conf } of sums) if (n > 0) sum += (n / calibrated) * Math.abs(conf / n - agree / n);
    ece = r6(sum);
  }
  // Coverage at t counts answers with confidence ≥ t: a suffix sum over the buckets.
  const thresholds: ThresholdPoint[] = [];
  let covered = 0;
  let agreeAbove = 0;
  for (let k = BUCKETS - 1; k >= 0; k--) {
    covered += t.n[k];
    agreeAbove += t.nAgree[k];
    thresholds.push({ t: k / 100, covered, coverage: rate(covered, t.answered), agree: agreeAbove, agreement: rate(agreeAbove, covered) });
  }
  thresholds.reverse();
  const best = thresholds.find((p) => p.covered > 0 && p.agree / p.covered >= target - EPS);
  const hosts = t.labels.filter((l) => t.confusion.has(l));
  if (t.confusion.has(OTHER) && !hosts.includes(OTHER)) hosts.push(OTHER);
  const modelLabels = [...t.labels];
  if ([...t.confusion.values()].some((row) => row.has(OTHER)) && !modelLabels.includes(OTHER)) modelLabels.push(OTHER);
  modelLabels.push(ABSTAIN);
  const skippedTotal = [...t.skipped.values()].reduce((a, b) => a + b, 0);
  return {
    type,
    kinds: [...t.kinds].sort(),
    models: [...t.models].map(([model, pairs]) => ({ model, pairs })).sort((a, b) => b.pairs - a.pairs || (a.model < b.model ? -1 : 1)),
    pairs: t.pairs,
    skipped: { total: skippedTotal, by_reason: Object.fromEntries([...t.skipped].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) },
    answered: t.answered,
    abstained: { total: t.refused + t.noLabel, refused: t.refused, no_label: t.noLabel },
    agreement: { agree: t.agree, rate: rate(t.agree, t.answered) },
    calibrated,
    ece,
    brier: calibrated > 0 ? r6(t.brierSum / calibrated) : null,
    bands,
    thresholds,
    recommended: best ? { threshold: best.t, covered: best.covered, coverage: best.coverage ?? 0, agreement: best.agreement ?? 0 } : null,
    confusion: {
      host_labels: hosts,
      model_labels: modelLabels,
      counts: hosts.map((h) => modelLabels.map((m) => t.confusion.get(h)?.get(m) ?? 0)),
    },
  };
}

export interface HarvestOptions {
  /** Agreement the recommended threshold must reach (H-2 `--target`), default 0.95. */
  target?: number;
  /** The lab the file belongs to, echoed in the report. */
  lab?: string | null;
}

/**
 * A 52-bit FNV-1a hash of (run, task, key, question): a number, so the set of decisions seen
 * costs tens of bytes per decision (two such hashes colliding is about 1 in 10^4 for 10^6 pairs).
 */
function decisionHash(p: ShadowPair): number {
  const text = `${p.run}\u0000${p.task}\u0000${p.key ?? "\u0001"}\u0000${p.question.id}`;
  let lo = 0x811c9dc5;
  let hi = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    lo = Math.imul(lo ^ c, 0x01000193) >>> 0;
    hi = Math.imul(hi ^ c ^ (lo >>> 24), 0x01000193) >>> 0;
  }
  return (hi & 0xfffff) * 2 ** 32 + lo;
}

/** Harvests one pairs file in one pass and bounded memory. Throws PairsFileError on a bad middle line. */
export async function harvest(pairsFile: string, options: HarvestOptions = {}): Promise<HarvestReport> {
  const target = options.target ?? 0.95;
  if (!(target > 0 && target <= 1)) throw new RangeError(`target must be in (0, 1], got ${target}`);
  const tallies = new Map<string, Tally>();
  const folded: string[] = [];
  const seen = new Set<number>();
  let duplicates = 0;
  const scan = await scanPairs(pairsFile, (pair) => {
    if (typeof pair.attempt === "number") {
      const id = decisionHash(pair);
      if (seen.has(id)) {
        duplicates++;
        return;
      }
      seen.add(id);
    }
    let type = pair.type;
    let tally = tallies.get(type);
    if (!tally) {
      if (tallies.size >= MAX_TYPES) {
        if (folded.length === 0) folded.push(`more than ${MAX_TYPES} judgement types: the rest are counted under '${OTHER}'`);
        type = OTHER;
        tally = tallies.get(type);
      }
      if (!tally) tallies.set(type, (tally = new Tally()));
    }
    tally.add(pair);
  });
  const overall = new Tally();
  const types: TypeReport[] = [];
  for (const name of [...tallies.keys()].sort()) {
    const t = tallies.get(name) as Tally;
    overall.merge(t);
    types.push(report(name, t, target));
  }
  return {
    version: 1,
    file: pairsFile,
    lab: options.lab ?? null,
    target,
    lines: scan.lines,
    warnings: [
      ...scan.warnings,
      ...folded,
      ...(duplicates ? [`${duplicates} duplicate pair${duplicates === 1 ? "" : "s"} (the same run, task, element and question again, as after a crash and resume) counted once`] : []),
    ],
    types,
    overall: report(OVERALL, overall, target),
  };
}
