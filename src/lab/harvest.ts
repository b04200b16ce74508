// Harvest (H-2, H-3): agreement between the model and the host, per judgement type and overall,
// out of fixed-size counters. Pairs stream past once; each type keeps 101 confidence buckets
// (agree / total / sum of confidence), a capped confusion matrix and a few totals, so memory does
// not grow with the number of pairs. Every definition here is written down in docs/lab.md.

import { createHash } from "node:crypto";
import { applyMap, type TypeCalibration } from "../decide/calibration-map.js";
import { REVIEW_QUEUE_SOURCE, type ShadowPair } from "../decide/pair.js";
import type { QuestionKind } from "../plan/plan.js";
import { entryOf, itemAt } from "../shared/checked-index.js";
import { UNCERTAIN } from "../shared/primitives.js";
import { fitDigestLine, pairFilter, pairKind, pairModel, type PairFilters } from "./pair-filter.js";
import { scanPairs } from "./pairs-reader.js";
import { meanLevelDistance, newcombe, quadraticKappa, wilson } from "./stats.js";
import { kappaReport, labelReports, type KappaReport, type LabelReport } from "./agreement.js";
import { CostTally, type ModelCost, type Savings } from "./cost.js";
import { CodedError } from "../shared/coded-error.js";

/**
 * Below this many pairs a figure is flagged as a small sample, no verdict is `ready`, and
 * `lab calibrate` fits no map (docs/lab.md).
 */
export const SMALL_SAMPLE = 30;
/** Disagreeing pairs listed per type (all are counted). */
const DEFAULT_LISTED = 50;
/** The audit fraction the pasteable config line suggests. */
const SUGGESTED_AUDIT = 0.1;

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
const ABSTAIN = UNCERTAIN;
const OVERALL = "(overall)";

/** The 1 %-wide confidence bucket an answer falls in (0 … 99), with a tolerance so that 0.29 lands in bucket 29. */
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
  /** Answers recorded `uncertain` under a threshold (not refused), and how many of them agreed. */
  gatedUncertain = 0;
  gatedUncertainAgree = 0;
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
    const who = pair.model
      ? `${pair.model.provider}/${pair.model.model}`
      : pair.skipped
        ? `${pair.skipped.provider}/${pair.skipped.model}`
        : "";
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
    if (pair.model.label === ABSTAIN) {
      this.gatedUncertain++;
      this.gatedUncertainAgree += agrees;
    }
    const c = pair.model.confidence;
    const k = bucketOf(c);
    addAt(this.n, k, 1);
    addAt(this.nAgree, k, agrees);
    addAt(this.confSum, k, c);
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
    this.gatedUncertain += o.gatedUncertain;
    this.gatedUncertainAgree += o.gatedUncertainAgree;
    this.brierSum += o.brierSum;
    for (let k = 0; k < BUCKETS; k++) {
      addAt(this.n, k, itemAt(o.n, k));
      addAt(this.nAgree, k, itemAt(o.nAgree, k));
      addAt(this.confSum, k, itemAt(o.confSum, k));
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

/** Adds to bucket k of a tally of BUCKETS buckets (k from bucketOf, or a loop below BUCKETS). */
function addAt(buckets: Float64Array, k: number, by: number): void {
  buckets[k] = itemAt(buckets, k) + by;
}

function bump(map: Map<string, number>, key: string, cap: number, by = 1): void {
  const k = map.has(key) || map.size < cap ? key : OTHER;
  map.set(k, (map.get(k) ?? 0) + by);
}

/** "error: HTTP 500 …" → "error": the reason's class, so counts stay few and free of details. */
function reasonClass(reason: string): string {
  const head = (reason.split(":")[0] ?? "").trim().slice(0, 40);
  return head === "" ? "unknown" : head;
}

/** Agreement within one confidence band of the report. */
export interface BandReport {
  band: string;
  lo: number;
  hi: number;
  n: number;
  agree: number;
  agreement: number | null;
  mean_confidence: number | null;
  /** Fewer than SMALL_SAMPLE answers in the band. */
  small_sample: boolean;
}

/** A confidence interval on an agreement rate. */
export type Interval = { lo: number; hi: number };

/** One pair where the model and the host gave different labels, with where to find it. */
export interface Disagreement {
  run: string;
  task: string;
  key: string | null;
  host_label: string;
  /** The model's label, `uncertain` for an abstention. */
  model_label: string;
  confidence: number;
}

/** How a type's calibration map did on the pairs: applied, fitted or stale, and its figures. */
export interface CalibrationReport {
  /** `applied`: the machine config applies it; `fitted`: it exists for this lab; `stale`: it was fitted on other pairs than these. */
  status: "applied" | "fitted" | "stale";
  id: string;
  file: string;
  method: string;
  model: string;
  lab: string | null;
  fitted_pairs: number;
  cv: TypeCalibration["cv"];
  /** The figures of this harvest's answers (of the map's model) with their confidence mapped. */
  calibrated: number;
  ece: number | null;
  brier: number | null;
  bands: BandReport[];
  thresholds: ThresholdPoint[];
  recommended: TypeReport["recommended"];
}

/** A turned-on type's audit pairs (D-34): how many, how often the host agreed, and whether that drifted below the shadow agreement. */
export interface AuditReport {
  pairs: number;
  skipped: number;
  answered: number;
  agreement: { agree: number; rate: number | null; wilson: Interval; small_sample: boolean };
  /** The audited decisions the model decided (not `uncertain`), and its agreement there. */
  decided: { n: number; agree: number; rate: number | null };
  /** What the audit is compared with: the lab's shadow pairs of the type, else the map's. */
  baseline: { source: "shadow" | "calibration"; answered: number; agree: number; rate: number | null } | null;
  /** 95 % interval of audit − baseline agreement (Newcombe); null without a baseline. */
  difference: { d: number; lo: number; hi: number } | null;
  /** The whole interval lies below zero: agreement has dropped beyond chance. */
  drift: boolean;
}

/** Whether a type is ready to be turned on at the target agreement, and if not, why. */
export interface Verdict {
  /** `audited`: a turned-on type with audit pairs only, where drift (not readiness) is the question. */
  status: "ready" | "more pairs needed" | "not reaching target" | "audited";
  /** For `more pairs needed`: about how many more pairs. */
  needed: number | null;
  text: string;
}

/** At threshold `t`: how many answers the model would give itself (coverage), and how often those agree with the host. */
export interface ThresholdPoint {
  t: number;
  covered: number;
  coverage: number | null;
  agree: number;
  agreement: number | null;
}

/** The harvest of one judgement type (or of all pairs): agreement, bands, thresholds, audits, calibration and verdict. */
export interface TypeReport {
  type: string;
  kinds: QuestionKind[];
  models: Array<{ model: string; pairs: number }>;
  pairs: number;
  skipped: { total: number; by_reason: Record<string, number> };
  answered: number;
  abstained: { total: number; refused: number; no_label: number };
  agreement: { agree: number; rate: number | null; wilson?: Interval; small_sample?: boolean };
  calibrated: number;
  ece: number | null;
  brier: number | null;
  bands: BandReport[];
  thresholds: ThresholdPoint[];
  recommended: { threshold: number; covered: number; coverage: number; agreement: number; small_sample?: boolean } | null;
  /** null for the overall report when the types' labels differ (no pooled matrix then). */
  confusion: { host_labels: string[]; model_labels: string[]; counts: number[][] } | null;
  /** Added in version 2 (per type; null in `overall`): */
  verdict?: Verdict | null;
  calibration?: CalibrationReport | null;
  config_line?: string | null;
  disagreements?: { total: number; listed: Disagreement[] };
  /** Score questions: distances between the host's and the model's levels. */
  score?: { mean_abs_level_distance: number | null; quadratic_kappa: number | null } | null;
  audit?: AuditReport | null;
  /** Cohen's kappa of the labelled answers with its 95 % interval (per type; null when undefined). */
  kappa?: KappaReport | null;
  /** Per label of the question: the model's precision and recall against the host. */
  per_label?: LabelReport[];
  /** Cost and latency per model on both sides, and what turning the type on would have saved. */
  cost?: { models: ModelCost[]; savings: Savings | null };
  /**
   * Agreement of the host and of the model each with labels people gave (`lab import`, the review
   * queue); null without any. The host is compared only where it answered apart from the person
   * (`host.answered`: not on review-queue pairs, where no host was asked).
   */
  reviewed?: {
    n: number;
    host: { answered: number; agree: number; rate: number | null; wilson: Interval };
    model: { answered: number; agree: number; rate: number | null; wilson: Interval };
  } | null;
}

/** What `lab harvest` reports (H-2), as its --json prints it (shape in docs/lab.md). */
export interface HarvestReport {
  version: 2;
  file: string;
  lab: string | null;
  target: number;
  lines: number;
  /** What was read: the filters, and how many pairs the dedupe dropped. */
  filters: { runs: string[]; since: string | null; types: string[]; models: string[]; deduplicated: boolean };
  duplicates: number;
  /** Types whose audit agreement dropped beyond chance (`lab harvest --check` exits 1). */
  drift: string[];
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
      n += itemAt(t.n, k);
      agree += itemAt(t.nAgree, k);
      conf += itemAt(t.confSum, k);
    }
    return { b, n, agree, conf };
  });
  const bands: BandReport[] = sums.map(({ b, n, agree, conf }) => ({
    band: b.name,
    lo: b.lo / 100,
    hi: Math.min(1, b.hi / 100),
    n,
    agree,
    agreement: rate(agree, n),
    mean_confidence: rate(conf, n),
    small_sample: n < SMALL_SAMPLE,
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
    covered += itemAt(t.n, k);
    agreeAbove += itemAt(t.nAgree, k);
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
    agreement: {
      agree: t.agree,
      rate: rate(t.agree, t.answered),
      wilson: interval(t.agree, t.answered),
      small_sample: t.answered < SMALL_SAMPLE,
    },
    calibrated,
    ece,
    brier: calibrated > 0 ? r6(t.brierSum / calibrated) : null,
    bands,
    thresholds,
    recommended: best
      ? {
          threshold: best.t,
          covered: best.covered,
          coverage: best.coverage ?? 0,
          agreement: best.agreement ?? 0,
          small_sample: best.covered < SMALL_SAMPLE,
        }
      : null,
    confusion: {
      host_labels: hosts,
      model_labels: modelLabels,
      counts: hosts.map((h) => modelLabels.map((m) => t.confusion.get(h)?.get(m) ?? 0)),
    },
  };
}

function interval(k: number, n: number): Interval {
  const w = wilson(k, n);
  return { lo: r6(w.lo), hi: r6(w.hi) };
}

/** A calibration the harvest knows of for a type, and whether the machine config applies it. */
export interface KnownCalibration {
  calibration: TypeCalibration;
  file: string;
  lab: string | null;
  applied: boolean;
}

/** What to harvest: the pair filters, the target agreement, the lab, and the calibrations to report on. */
export interface HarvestOptions extends PairFilters {
  /** Agreement the recommended threshold must reach (H-2 `--target`), default 0.95. */
  target?: number;
  /** The lab the file belongs to, echoed in the report. */
  lab?: string | null;
  /** Calibrations by judgement type (the lab's calibration.json, the machine config's). */
  calibrations?: Record<string, KnownCalibration>;
  /** How many disagreeing pairs to list per type. */
  listed?: number;
}

/** Reviewed pairs of a type: how often the host and the model each agreed with a person's label. */
class ReviewTally {
  n = 0;
  hostAnswered = 0;
  hostAgree = 0;
  modelAnswered = 0;
  modelAgree = 0;

  add(pair: ShadowPair): void {
    const label = pair.reviewed?.label;
    if (label === undefined) return;
    this.n++;
    if (pair.reviewed?.source !== REVIEW_QUEUE_SOURCE) {
      this.hostAnswered++;
      if (pair.host_label === label) this.hostAgree++;
    }
    if (!pair.model) return;
    this.modelAnswered++;
    if (modelLabel(pair) === label) this.modelAgree++;
  }
}

/** Everything one judgement type keeps while the file streams past. */
class TypeState {
  shadow = new Tally();
  audit = new Tally();
  reviewed = new ReviewTally();
  cost = new CostTally();
  /** Shadow answers of the calibration's model, with their confidence mapped. */
  mapped: Tally | null = null;
  digest = createHash("sha256");
  disagreements: Disagreement[] = [];
  disagreeing = 0;
  levels: string[] | null = null;
  constructor(readonly known: KnownCalibration | undefined) {
    if (known) this.mapped = new Tally();
  }
}

/** The states of the types read so far, capped at MAX_TYPES (the rest fold into OTHER, with a warning). */
class TypeStates {
  readonly byType = new Map<string, TypeState>();
  readonly folded: string[] = [];
  constructor(private readonly calibrations: Record<string, KnownCalibration> | undefined) {}

  of(type: string): TypeState {
    let st = this.byType.get(type);
    if (st) return st;
    let name = type;
    if (this.byType.size >= MAX_TYPES) {
      if (this.folded.length === 0) this.folded.push(`more than ${MAX_TYPES} judgement types: the rest are counted under '${OTHER}'`);
      name = OTHER;
      st = this.byType.get(name);
      if (st) return st;
    }
    this.byType.set(name, (st = new TypeState(this.calibrations?.[name])));
    return st;
  }
}

/** One shadow pair into its type's state: the tallies, the listed disagreements, the cost and the mapped confidences. */
function addShadowPair(st: TypeState, pair: ShadowPair, listed: number): void {
  st.shadow.add(pair);
  st.levels ??= pair.question.kind === "score" ? [...pair.question.labels] : null;
  const m = pair.model;
  if (!m) return;
  const label = modelLabel(pair);
  st.cost.add(pair, pairModel(pair), label === null ? null : bucketOf(m.confidence), MAX_MODELS);
  if (label !== pair.host_label) {
    st.disagreeing++;
    if (st.disagreements.length < listed) {
      st.disagreements.push({
        run: pair.run,
        task: pair.task,
        key: pair.key,
        host_label: pair.host_label,
        model_label: label ?? ABSTAIN,
        confidence: m.confidence,
      });
    }
  }
  const known = st.known;
  if (known && st.mapped && pairModel(pair) === known.calibration.model) {
    st.mapped.add(label === null ? pair : { ...pair, model: { ...m, confidence: applyMap(known.calibration.map, m.confidence) } });
    // The same digest `lab calibrate` takes, to tell whether the map was fitted on these pairs.
    if (label !== null) st.digest.update(fitDigestLine(pair, pairModel(pair), label, m.confidence));
  }
}

/** One type's report: the shadow figures, then calibration, audit, verdict, kappa, cost and reviewed labels. */
function typeReport(name: string, st: TypeState, lab: string | null, target: number): TypeReport {
  const r = report(name, st.shadow, target);
  r.calibration = calibrationReport(st, lab, target);
  const rec = r.calibration && r.calibration.status !== "stale" ? r.calibration.recommended : r.recommended;
  r.audit = auditReport(st);
  r.verdict = r.pairs === 0 && r.audit ? audited(r.audit) : verdict(r, rec);
  r.config_line = configLine(name, r, rec);
  r.disagreements = { total: st.disagreeing, listed: st.disagreements };
  r.score = st.levels ? scoreFigures(st.shadow, st.levels) : null;
  const labels = st.levels ?? st.shadow.labels;
  r.kappa = kappaReport(st.shadow.confusion, labels, r.kinds);
  r.per_label = labelReports(st.shadow.confusion, labels);
  // The savings are counted on the raw confidences: at the raw recommended threshold.
  r.cost = {
    models: st.cost.byModel(),
    savings: r.recommended ? st.cost.savings(r.recommended.threshold, bucketOf(r.recommended.threshold)) : null,
  };
  r.reviewed = reviewedReport(st.reviewed);
  return r;
}

function reviewedReport(t: ReviewTally): TypeReport["reviewed"] {
  if (t.n === 0) return null;
  return {
    n: t.n,
    host: {
      answered: t.hostAnswered,
      agree: t.hostAgree,
      rate: rate(t.hostAgree, t.hostAnswered),
      wilson: interval(t.hostAgree, t.hostAnswered),
    },
    model: {
      answered: t.modelAnswered,
      agree: t.modelAgree,
      rate: rate(t.modelAgree, t.modelAnswered),
      wilson: interval(t.modelAgree, t.modelAnswered),
    },
  };
}

/** Reads the file once into per-type states; throws PairsFileError on a bad middle line. */
async function collect(pairsFile: string, options: HarvestOptions) {
  const listed = options.listed ?? DEFAULT_LISTED;
  const selection = pairFilter(options);
  const states = new TypeStates(options.calibrations);
  const scan = await scanPairs(pairsFile, (pair) => {
    if (!selection.keep(pair)) return;
    const st = states.of(pair.type);
    const kind = pairKind(pair);
    if (kind === "audit") st.audit.add(pair);
    else if (kind === "reviewed") st.reviewed.add(pair);
    else addShadowPair(st, pair, listed);
  });
  return { scan, selection, states };
}

/** Harvests one pairs file in one pass and bounded memory. Throws PairsFileError on a bad middle line. */
export async function harvest(pairsFile: string, options: HarvestOptions = {}): Promise<HarvestReport> {
  const target = options.target ?? 0.95;
  if (!(target > 0 && target <= 1)) throw new CodedError("internal-error", `target must be in (0, 1], got ${target}`);
  const { scan, selection, states } = await collect(pairsFile, options);
  const overall = new Tally();
  const types: TypeReport[] = [];
  const labelSets = new Set<string>();
  for (const name of [...states.byType.keys()].sort()) {
    const st = entryOf(states.byType, name, "the harvest's types");
    overall.merge(st.shadow);
    const r = typeReport(name, st, options.lab ?? null, target);
    if (st.shadow.pairs > 0) labelSets.add(JSON.stringify(r.confusion?.model_labels));
    types.push(r);
  }
  const pooled = report(OVERALL, overall, target);
  // A pooled confusion matrix means nothing across types whose labels differ.
  if (labelSets.size > 1) pooled.confusion = null;
  return {
    version: 2,
    file: pairsFile,
    lab: options.lab ?? null,
    target,
    lines: scan.lines,
    filters: {
      runs: options.runs ?? [],
      since: options.since?.toISOString() ?? null,
      types: options.types ?? [],
      models: options.models ?? [],
      deduplicated: !options.all,
    },
    duplicates: selection.duplicates,
    drift: types.filter((t) => t.audit?.drift).map((t) => t.type),
    warnings: [...scan.warnings, ...states.folded],
    types,
    overall: pooled,
  };
}

function calibrationReport(st: TypeState, lab: string | null, target: number): CalibrationReport | null {
  const k = st.known;
  if (!k || !st.mapped) return null;
  const c = k.calibration;
  const digest = "sha256:" + st.digest.digest("hex");
  const stale = k.lab !== null && k.lab === lab && digest !== c.pairs.digest;
  const r = report(c.type, st.mapped, target);
  return {
    status: k.applied ? "applied" : stale ? "stale" : "fitted",
    id: c.id,
    file: k.file,
    method: c.method,
    model: c.model,
    lab: k.lab,
    fitted_pairs: c.pairs.count,
    cv: c.cv,
    calibrated: r.calibrated,
    ece: r.ece,
    brier: r.brier,
    bands: r.bands,
    thresholds: r.thresholds,
    recommended: r.recommended,
  };
}

function verdict(r: TypeReport, rec: TypeReport["recommended"]): Verdict {
  const more = (n: number): Verdict => ({ status: "more pairs needed", needed: n, text: `more pairs needed (${n})` });
  if (r.calibrated < SMALL_SAMPLE) return more(SMALL_SAMPLE - r.calibrated);
  if (!rec) return { status: "not reaching target", needed: null, text: "not reaching target" };
  // The threshold must have SMALL_SAMPLE answers above it; at its coverage that takes this many more.
  if (rec.covered < SMALL_SAMPLE) return more(Math.ceil((SMALL_SAMPLE - rec.covered) / Math.max(rec.coverage, 1e-9)));
  return { status: "ready", needed: null, text: "ready" };
}

function audited(a: AuditReport): Verdict {
  return { status: "audited", needed: null, text: a.drift ? "audited: drift" : a.baseline ? "audited: holding" : "audited: no baseline" };
}

/** The `[decisions.types]` line that turns the type on at the recommended threshold, with an audit. */
function configLine(type: string, r: TypeReport, rec: TypeReport["recommended"]): string | null {
  const model = r.models[0]?.model;
  if (!model || !rec) return null;
  const cal = r.calibration && r.calibration.status !== "stale" ? `, calibration = ${JSON.stringify(r.calibration.file)}` : "";
  return `${JSON.stringify(type)} = { mode = ${JSON.stringify(model)}${cal}, min_confidence = ${rec.threshold.toFixed(2)}, audit = ${SUGGESTED_AUDIT} }`;
}

function scoreFigures(t: Tally, levels: string[]): TypeReport["score"] {
  const counts = levels.map((h) => levels.map((m) => t.confusion.get(h)?.get(m) ?? 0));
  const mad = meanLevelDistance(counts);
  const qwk = quadraticKappa(counts);
  return { mean_abs_level_distance: mad === null ? null : r6(mad), quadratic_kappa: qwk === null ? null : r6(qwk) };
}

function auditReport(st: TypeState): AuditReport | null {
  const a = st.audit;
  if (a.pairs === 0) return null;
  let decided = 0;
  let decidedAgree = 0;
  for (const [host, row] of a.confusion) {
    for (const [label, n] of row) {
      if (label === ABSTAIN) continue;
      decided += n;
      if (label === host) decidedAgree += n;
    }
  }
  // Audit pairs carry the gated label: `uncertain` below the threshold is not a decision made.
  decided -= a.gatedUncertain;
  decidedAgree -= a.gatedUncertainAgree;
  let baseline: AuditReport["baseline"] = null;
  if (st.shadow.answered > 0)
    baseline = { source: "shadow", answered: st.shadow.answered, agree: st.shadow.agree, rate: rate(st.shadow.agree, st.shadow.answered) };
  else if (st.known) {
    const b = st.known.calibration.baseline;
    baseline = { source: "calibration", answered: b.answered, agree: b.agree, rate: rate(b.agree, b.answered) };
  }
  const difference = baseline && a.answered > 0 ? newcombe(a.agree, a.answered, baseline.agree, baseline.answered) : null;
  return {
    pairs: a.pairs,
    skipped: a.pairs - a.answered,
    answered: a.answered,
    agreement: {
      agree: a.agree,
      rate: rate(a.agree, a.answered),
      wilson: interval(a.agree, a.answered),
      small_sample: a.answered < SMALL_SAMPLE,
    },
    decided: { n: decided, agree: decidedAgree, rate: rate(decidedAgree, decided) },
    baseline,
    difference: difference ? { d: r6(difference.d), lo: r6(difference.lo), hi: r6(difference.hi) } : null,
    drift: difference !== null && difference.hi < 0,
  };
}
