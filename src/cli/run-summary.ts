// The honest end of a run (issue 13): what the decisions were (per mode), how many fell back to
// the host and why, retries, cost and the slowest instances — tallied from the events as they
// pass, so it costs nothing per instance beyond a few counters. A judgement type turned on for a
// model whose every decision fell back to the host is said loudly: the run still passed, but the
// model did none of the work it was turned on for.

import type { RunEvent } from "../run/index.js";
import { formatElapsed } from "./run-lookup.js";

const SLOWEST = 3;
const REASON_CHARS = 100;

export interface SummaryJson {
  decisions: Record<string, number>;
  fallbacks: {
    total: number;
    reasons: Array<{ count: number; reason: string }>;
    all_fell_back: Array<{ type: string; decisions: number }>;
  };
  retries: number;
  cost_usd: number;
  slowest: Array<{ task: string; key: string | null; ms: number }>;
}

export class RunTally {
  private readonly modes = new Map<string, number>();
  /** Per judgement type turned on for a model: decisions, and how many the host answered instead. */
  private readonly turnedOn = new Map<string, { decisions: number; fellBack: number }>();
  private readonly reasons = new Map<string, number>();
  private fallbacks = 0;
  private retries = 0;
  /** Per agent runner: turns retried after a rate limit, and the lowest concurrency it was given (issue 27). */
  private readonly limits = new Map<string, { count: number; lowest: number }>();

  private rateLimited(l: { runner: string; concurrency: number }): void {
    const r = this.limits.get(l.runner) ?? { count: 0, lowest: l.concurrency };
    this.limits.set(l.runner, { count: r.count + 1, lowest: Math.min(r.lowest, l.concurrency) });
  }
  private readonly started = new Map<string, number>();
  private slowest: Array<{ task: string; key: string | null; ms: number }> = [];

  event(e: RunEvent): void {
    switch (e.type) {
      case "instance_started":
        this.started.set(`${e.task}\u0000${e.key ?? ""}`, Date.parse(e.time));
        break;
      case "instance_retried":
        this.retries += 1;
        if (e.payload.rate_limited) this.rateLimited(e.payload.rate_limited);
        this.ended(e);
        break;
      case "instance_finished":
        this.ended(e);
        break;
      case "decision_recorded": {
        this.ended(e);
        const p = e.payload;
        if (p.reused) break;
        for (const d of Object.values(p.record)) {
          this.modes.set(d.mode, (this.modes.get(d.mode) ?? 0) + 1);
          if (d.mode === "model") {
            const t = this.turnedOn.get(d.judgement_type) ?? { decisions: 0, fellBack: 0 };
            t.decisions += 1;
            if (d.receipt) t.fellBack += 1;
            this.turnedOn.set(d.judgement_type, t);
          }
          if (d.receipt) {
            this.fallbacks += 1;
            const reason = `${d.receipt.provider}/${d.receipt.model}: ${d.receipt.reason.length > REASON_CHARS ? d.receipt.reason.slice(0, REASON_CHARS - 1) + "…" : d.receipt.reason}`;
            this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
          }
        }
        break;
      }
    }
  }

  private ended(e: RunEvent): void {
    const id = `${e.task}\u0000${e.key ?? ""}`;
    const t0 = this.started.get(id);
    if (t0 === undefined) return;
    this.started.delete(id);
    const ms = Date.parse(e.time) - t0;
    if (this.slowest.length === SLOWEST && ms <= this.slowest[SLOWEST - 1]!.ms) return;
    this.slowest.push({ task: e.task!, key: e.key, ms });
    this.slowest.sort((a, b) => b.ms - a.ms);
    this.slowest.length = Math.min(this.slowest.length, SLOWEST);
  }

  json(costUsd: number): SummaryJson {
    return {
      decisions: Object.fromEntries(this.modes),
      fallbacks: {
        total: this.fallbacks,
        reasons: [...this.reasons].map(([reason, count]) => ({ count, reason })).sort((a, b) => b.count - a.count),
        all_fell_back: this.allFellBack(),
      },
      retries: this.retries,
      cost_usd: costUsd,
      slowest: this.slowest,
    };
  }

  private allFellBack(): Array<{ type: string; decisions: number }> {
    return [...this.turnedOn]
      .filter(([, t]) => t.decisions > 0 && t.fellBack === t.decisions)
      .map(([type, t]) => ({ type, decisions: t.decisions }));
  }

  /** The summary's lines of text (after the per-task table). */
  lines(run: string, costUsd: number): string[] {
    const out: string[] = [];
    const total = [...this.modes.values()].reduce((a, b) => a + b, 0);
    if (total > 0) {
      const order = ["model", "shadow", "host", "output"];
      const parts = [...this.modes]
        .sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]))
        .map(
          ([m, n]) =>
            `${n} ${m === "model" ? "by a turned-on model" : m === "shadow" ? "host (model in shadow)" : m === "host" ? "by the host" : "from outputs"}`,
        );
      out.push(`decisions: ${total} (${parts.join(", ")})`);
    }
    if (this.fallbacks > 0) {
      out.push(`fallbacks to the host: ${this.fallbacks} — see \`switchyard show ${run} --receipts\``);
      for (const r of this.json(costUsd).fallbacks.reasons.slice(0, 5)) out.push(`  ${r.count}× ${r.reason}`);
      if (this.reasons.size > 5) out.push(`  … and ${this.reasons.size - 5} other reasons`);
    }
    for (const t of this.allFellBack()) {
      out.push(
        `WARNING: every decision of ${t.type} (${t.decisions}) fell back to the host: the model it is turned on for answered none of them`,
      );
    }
    if (this.retries > 0) out.push(`retries: ${this.retries}`);
    for (const [runner, r] of this.limits)
      out.push(
        `rate limits: ${r.count} turn${r.count > 1 ? "s" : ""} of runner "${runner}" retried after the tool's delay; its concurrency went down to ${r.lowest}`,
      );
    if (costUsd > 0) out.push(`cost: $${costUsd.toFixed(4)}`);
    if (this.slowest.length > 0)
      out.push(
        `slowest: ${this.slowest.map((s) => `${s.task}${s.key !== null ? `[${s.key}]` : ""} ${s.ms < 1000 ? `${s.ms}ms` : formatElapsed(s.ms)}`).join(", ")}`,
      );
    return out;
  }
}
