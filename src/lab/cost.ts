// Cost and latency of a shadow's two sides (docs/lab.md): per model, what the model's answers and
// the host's answers to the same questions took — mean and 95th-percentile latency, tokens and
// cost per decision — and what turning the type on at a threshold would have saved on these pairs.
// Latencies are kept (8 bytes per answer and side) for an exact percentile; the rest are sums.

import type { ShadowPair } from "../decide/pair.js";
import type { Usage } from "../run/kinds/index.js";
import { itemAt } from "../shared/checked-index.js";

/** What one side's answers took, per decision. */
export interface SideFigures {
  /** Answers with a latency (the model's answers; the host's where the pair recorded it). */
  n: number;
  mean_latency_ms: number | null;
  /** Nearest rank: the smallest latency with at least 95 % of the answers at or below it. */
  p95_latency_ms: number | null;
  /** Means over the answers whose usage gave tokens (`with_tokens` of them). */
  mean_input_tokens: number | null;
  mean_output_tokens: number | null;
  with_tokens: number;
  /** Mean cost over the answers whose usage gave one (`with_cost` of them), in US dollars. */
  mean_cost_usd: number | null;
  with_cost: number;
}

/** Cost and latency of one model's pairs of a type: its side and the host's on the same pairs. */
export interface ModelCost {
  model: string;
  model_side: SideFigures;
  host: SideFigures;
}

/**
 * Turned on at `threshold`, the model answers every decision and the host only those below it:
 * the host's cost and latency on the covered pairs are saved, the model's on all answered pairs
 * are spent. Over the pairs that recorded the host's side (`host_recorded` of `answered`).
 */
export interface Savings {
  threshold: number;
  answered: number;
  host_recorded: number;
  covered: number;
  host_cost_avoided_usd: number;
  model_cost_usd: number;
  saved_usd: number;
  host_latency_avoided_ms: number;
  model_latency_ms: number;
  saved_latency_ms: number;
}

/** The sums behind one side's figures (also one model's, in `lab compare`). */
export class Side {
  latencies: number[] = [];
  latencySum = 0;
  tokensIn = 0;
  tokensOut = 0;
  withTokens = 0;
  cost = 0;
  withCost = 0;

  add(latency: number, usage: Usage | null): void {
    if (Number.isFinite(latency) && latency >= 0) {
      this.latencies.push(latency);
      this.latencySum += latency;
    }
    if (usage && (typeof usage.input_tokens === "number" || typeof usage.output_tokens === "number")) {
      this.tokensIn += usage.input_tokens ?? 0;
      this.tokensOut += usage.output_tokens ?? 0;
      this.withTokens++;
    }
    if (usage && typeof usage.cost_usd === "number") {
      this.cost += usage.cost_usd;
      this.withCost++;
    }
  }

  figures(): SideFigures {
    const n = this.latencies.length;
    return {
      n,
      mean_latency_ms: n > 0 ? r3(this.latencySum / n) : null,
      p95_latency_ms: percentile(this.latencies, 0.95),
      mean_input_tokens: this.withTokens > 0 ? r3(this.tokensIn / this.withTokens) : null,
      mean_output_tokens: this.withTokens > 0 ? r3(this.tokensOut / this.withTokens) : null,
      with_tokens: this.withTokens,
      mean_cost_usd: this.withCost > 0 ? r9(this.cost / this.withCost) : null,
      with_cost: this.withCost,
    };
  }
}

/** Nearest-rank percentile: the value at rank ⌈q·n⌉ of the sorted values; null when there are none. */
export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return itemAt(sorted, Math.max(0, Math.ceil(q * sorted.length - 1e-9) - 1));
}

function r3(x: number): number {
  return Math.round(x * 1e3) / 1e3;
}
function r9(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

const BUCKETS = 101;

/** Cost and latency of one judgement type's shadow pairs, per model, and by confidence bucket for the savings. */
export class CostTally {
  private models = new Map<string, { model: Side; host: Side }>();
  private answered = 0;
  private hostRecorded = 0;
  private modelCost = 0;
  private modelLatency = 0;
  private hostCost = new Float64Array(BUCKETS);
  private hostLatency = new Float64Array(BUCKETS);
  private hostCovered = new Float64Array(BUCKETS);

  /** One shadow pair; `bucket` is its confidence bucket when the model gave a label, else null. */
  add(pair: ShadowPair, who: string, bucket: number | null, maxModels: number): void {
    const m = pair.model;
    if (!m) return;
    let sides = this.models.get(who);
    if (!sides && this.models.size >= maxModels) return;
    if (!sides) this.models.set(who, (sides = { model: new Side(), host: new Side() }));
    sides.model.add(m.latency_ms, m.usage);
    this.answered++;
    if (!pair.host) return;
    sides.host.add(pair.host.latency_ms, pair.host.usage);
    // The savings compare both sides on the same pairs: those that recorded the host's.
    this.hostRecorded++;
    this.modelCost += m.usage?.cost_usd ?? 0;
    this.modelLatency += Number.isFinite(m.latency_ms) ? m.latency_ms : 0;
    if (bucket === null) return;
    this.hostCost[bucket] = itemAt(this.hostCost, bucket) + (pair.host.usage?.cost_usd ?? 0);
    this.hostLatency[bucket] = itemAt(this.hostLatency, bucket) + pair.host.latency_ms;
    this.hostCovered[bucket] = itemAt(this.hostCovered, bucket) + 1;
  }

  /** Per model, both sides' figures, the busiest model first. */
  byModel(): ModelCost[] {
    return [...this.models]
      .map(([model, s]) => ({ model, model_side: s.model.figures(), host: s.host.figures() }))
      .sort((a, b) => b.model_side.n - a.model_side.n || (a.model < b.model ? -1 : 1));
  }

  /** What turning the type on at `threshold` would have saved; null without pairs that recorded the host. */
  savings(threshold: number | null, firstBucket: number): Savings | null {
    if (threshold === null || this.hostRecorded === 0) return null;
    let cost = 0;
    let latency = 0;
    let covered = 0;
    for (let k = firstBucket; k < BUCKETS; k++) {
      cost += itemAt(this.hostCost, k);
      latency += itemAt(this.hostLatency, k);
      covered += itemAt(this.hostCovered, k);
    }
    return {
      threshold,
      answered: this.answered,
      host_recorded: this.hostRecorded,
      covered,
      host_cost_avoided_usd: r9(cost),
      model_cost_usd: r9(this.modelCost),
      saved_usd: r9(cost - this.modelCost),
      host_latency_avoided_ms: r3(latency),
      model_latency_ms: r3(this.modelLatency),
      saved_latency_ms: r3(latency - this.modelLatency),
    };
  }
}
