// `lab compare` (docs/lab.md): two candidate models of one judgement type on the same elements —
// from one lab whose pairs hold both, or from two labs — each judged against the host. Paired on
// the elements both answered (same task, key, question and state; within one run when both
// answered the element in the same run, as a shadow of two candidates does, H-6, so both are
// judged against one and the same host answer), it gives the difference in
// agreement with McNemar's exact test and Newcombe's paired interval, coverage and agreement at one
// threshold for both, and each model's cost and latency per decision on those elements.

import type { ShadowPair } from "../decide/pair.js";
import type { Usage } from "../run/kinds/index.js";
import { entryOf, itemAt } from "../shared/checked-index.js";
import { bucketOf, modelLabel } from "./harvest.js";
import { pairFilter, pairKind, pairModel, type PairFilters } from "./pair-filter.js";
import { scanPairs } from "./pairs-reader.js";
import { mcnemarExact, pairedDifference, type PairedTable } from "./paired-stats.js";
import { Side, type SideFigures } from "./cost.js";
import { wilson } from "./stats.js";
import { LabError } from "./store.js";

/** One side of the comparison: a pairs file and the model whose answers to take from it. */
export interface CompareSide {
  file: string;
  /** PROVIDER/MODEL; null: the type's only model in that file. */
  model: string | null;
}

/** What to compare: the type, both sides, the filters, the threshold and the target. */
export interface CompareOptions extends Omit<PairFilters, "types"> {
  type: string;
  a: CompareSide;
  b: CompareSide;
  /** The threshold both are measured at; default: the lowest at which A reaches the target. */
  threshold?: number;
  target?: number;
}

/** One model at the shared threshold: how many of the paired elements it would decide, and how well. */
export interface AtThreshold {
  covered: number;
  coverage: number | null;
  agree: number;
  agreement: number | null;
}

/** One model's figures on the paired elements. */
export interface CompareModel {
  model: string;
  file: string;
  /** Elements of the type it answered (paired or not). */
  answered: number;
  agree: number;
  agreement: number | null;
  wilson: { lo: number; hi: number };
  at_threshold: AtThreshold;
  cost: SideFigures;
}

/** What `lab compare --json` prints (shape in docs/lab.md). */
export interface CompareReport {
  type: string;
  target: number;
  threshold: number | null;
  /** Elements both answered: the comparison is over these. */
  paired: number;
  /** Of those, the elements both answered in one run (against one host answer: H-6 shadows). */
  same_run: number;
  table: { both: number; only_a: number; only_b: number; neither: number };
  a: CompareModel;
  b: CompareModel;
  /** Agreement of B minus agreement of A on the paired elements, with its 95 % interval. */
  difference: { d: number; lo: number; hi: number } | null;
  /** McNemar's exact two-sided p-value on the discordant elements. */
  mcnemar_p: number;
  warnings: string[];
}

/** A model's answer to one element in one run: whether it agreed with the host, its confidence, and what it took. */
interface Answer {
  run: string;
  agrees: boolean;
  confidence: number | null;
  latency: number;
  usage: Usage | null;
}

/** The element a pair is about: the same question about the same state, whichever run asked it. */
function elementOf(pair: ShadowPair): string {
  return JSON.stringify([pair.task, pair.key, pair.question.id, pair.state_digest]);
}

/** Reads one side's answers of the type, by element: each run's first answer, in file order. */
async function answersOf(
  side: CompareSide,
  options: CompareOptions,
): Promise<{ model: string; answers: Map<string, Answer[]>; warnings: string[] }> {
  const selection = pairFilter({ ...options, types: [options.type] });
  const byModel = new Map<string, Map<string, Answer[]>>();
  const scan = await scanPairs(side.file, (pair) => {
    if (pairKind(pair) !== "shadow" || !selection.keep(pair) || !pair.model) return;
    const who = pairModel(pair);
    if (side.model !== null && who !== side.model) return;
    let answers = byModel.get(who);
    if (!answers) byModel.set(who, (answers = new Map()));
    const element = elementOf(pair);
    const runs = answers.get(element) ?? [];
    if (runs.some((a) => a.run === pair.run)) return;
    answers.set(element, runs);
    const label = modelLabel(pair);
    runs.push({
      run: pair.run,
      agrees: label !== null && label === pair.host_label,
      confidence: label === null ? null : pair.model.confidence,
      latency: pair.model.latency_ms,
      usage: pair.model.usage,
    });
  });
  const found = [...byModel.keys()];
  if (side.model === null && found.length !== 1) {
    throw new LabError(
      "lab-compare-model",
      found.length === 0
        ? `no answered pairs of type ${options.type} in ${side.file}`
        : `the pairs of type ${options.type} in ${side.file} are of several models (${found.join(", ")}); name the one to compare`,
    );
  }
  const model = side.model ?? itemAt(found, 0);
  const answers = byModel.get(model);
  if (!answers) throw new LabError("lab-compare-model", `no answered pairs of model ${model} and type ${options.type} in ${side.file}`);
  return { model, answers, warnings: scan.warnings };
}

/** The lowest threshold at which A's agreement over the elements it decides reaches the target. */
function thresholdFor(answers: Answer[], target: number): number | null {
  const n = new Float64Array(101);
  const agree = new Float64Array(101);
  for (const a of answers) {
    if (a.confidence === null) continue;
    const k = bucketOf(a.confidence);
    n[k] = itemAt(n, k) + 1;
    agree[k] = itemAt(agree, k) + (a.agrees ? 1 : 0);
  }
  let covered = 0;
  let agreed = 0;
  let best: number | null = null;
  for (let k = 100; k >= 0; k--) {
    covered += itemAt(n, k);
    agreed += itemAt(agree, k);
    if (covered > 0 && agreed / covered >= target - 1e-9) best = k / 100;
  }
  return best;
}

function rate(k: number, n: number): number | null {
  return n > 0 ? Math.round((k / n) * 1e6) / 1e6 : null;
}

/** One model's figures over the paired answers. */
function modelFigures(model: string, file: string, answered: number, paired: Answer[], threshold: number | null): CompareModel {
  const agree = paired.filter((a) => a.agrees).length;
  const decided = threshold === null ? [] : paired.filter((a) => a.confidence !== null && bucketOf(a.confidence) >= bucketOf(threshold));
  const decidedAgree = decided.filter((a) => a.agrees).length;
  const cost = new Side();
  for (const a of paired) cost.add(a.latency, a.usage);
  const w = wilson(agree, paired.length);
  return {
    model,
    file,
    answered,
    agree,
    agreement: rate(agree, paired.length),
    wilson: { lo: Math.round(w.lo * 1e6) / 1e6, hi: Math.round(w.hi * 1e6) / 1e6 },
    at_threshold: {
      covered: decided.length,
      coverage: rate(decided.length, paired.length),
      agree: decidedAgree,
      agreement: rate(decidedAgree, decided.length),
    },
    cost: cost.figures(),
  };
}

/**
 * The two answers one element is compared on: from the first run (in A's file order) in which both
 * answered it — one host answer for both — else each model's first answer.
 */
function pairedAnswers(as: Answer[], bs: Answer[]): { a: Answer; b: Answer; sameRun: boolean } {
  for (const a of as) {
    const b = bs.find((x) => x.run === a.run);
    if (b) return { a, b, sameRun: true };
  }
  return { a: itemAt(as, 0), b: itemAt(bs, 0), sameRun: false };
}

/** Compares model B with model A on the elements of the type both answered. */
export async function compare(options: CompareOptions): Promise<CompareReport> {
  const target = options.target ?? 0.95;
  const a = await answersOf(options.a, options);
  const b = await answersOf(options.b, options);
  const elements = [...a.answers.keys()].filter((e) => b.answers.has(e)).sort();
  const paired = elements.map((e) => pairedAnswers(entryOf(a.answers, e, "model A's answers"), entryOf(b.answers, e, "model B's answers")));
  const pa = paired.map((p) => p.a);
  const pb = paired.map((p) => p.b);
  const t: PairedTable = { both: 0, onlyA: 0, onlyB: 0, neither: 0 };
  pa.forEach((x, i) => {
    const y = itemAt(pb, i).agrees;
    if (x.agrees && y) t.both++;
    else if (x.agrees) t.onlyA++;
    else if (y) t.onlyB++;
    else t.neither++;
  });
  const threshold = options.threshold ?? thresholdFor(pa, target);
  const diff = pairedDifference(t);
  const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
  return {
    type: options.type,
    target,
    threshold,
    paired: elements.length,
    same_run: paired.filter((p) => p.sameRun).length,
    table: { both: t.both, only_a: t.onlyA, only_b: t.onlyB, neither: t.neither },
    a: modelFigures(a.model, options.a.file, a.answers.size, pa, threshold),
    b: modelFigures(b.model, options.b.file, b.answers.size, pb, threshold),
    difference: diff ? { d: r6(diff.d), lo: r6(diff.lo), hi: r6(diff.hi) } : null,
    mcnemar_p: mcnemarExact(t.onlyA, t.onlyB),
    warnings: [...a.warnings, ...(options.b.file === options.a.file ? [] : b.warnings)],
  };
}
