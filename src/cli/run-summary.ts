// The honest end of a run: what the decisions were (per mode), how many fell back to
// the host and why, retries, cost and the slowest instances — tallied from the events as they
// pass, so it costs nothing per instance beyond a few counters. A judgement type turned on for a
// model whose every decision fell back to the host is said loudly: the run still passed, but the
// model did none of the work it was turned on for.

import type { Plan } from "../plan/index.js";
import { eventTask, type RunEvent, type TaskProgress } from "../run/index.js";
import { formatElapsed } from "./run-lookup.js";
import { entryOf } from "../shared/checked-index.js";

const SLOWEST = 3;
const REASON_CHARS = 100;

/** The end-of-run summary as `--json` prints it: decisions per mode, fallbacks and why, retries, cost and the slowest instances. */
export interface SummaryJson {
  decisions: Record<string, number>;
  fallbacks: {
    total: number;
    reasons: Array<{ count: number; reason: string }>;
    all_fell_back: Array<{ type: string; decisions: number }>;
  };
  retries: number;
  agent_turns: { taken: number; in_revise_rounds: number };
  cost_usd: number;
  slowest: Array<{ task: string; key: string | null; ms: number }>;
}

/** Which of a task's parts are agent turns: the task itself, or a revise loop's body and reviewer. */
interface TurnTaker {
  agent: boolean;
  body: boolean;
  reviewer: boolean;
  maxRounds: number;
}

/** A revise instance's attempt in progress: the last round it recorded in this invocation. */
interface LoopAttempt {
  lastRound: number;
}

/** Tallies a run's events as they pass into the end-of-run summary, at a few counters per event. */
export class RunTally {
  private readonly takers = new Map<string, TurnTaker>();
  /** Agent turns that ran in this invocation; those of them in revise rounds. */
  private turns = 0;
  private reviseTurns = 0;
  private readonly loops = new Map<string, LoopAttempt>();
  private cancelAsked = false;
  private readonly modes = new Map<string, number>();
  /** Per judgement type turned on for a model: decisions, and how many the host answered instead. */
  private readonly turnedOn = new Map<string, { decisions: number; fellBack: number }>();
  private readonly reasons = new Map<string, number>();
  private fallbacks = 0;
  private retries = 0;
  /** Per agent runner: turns retried after a rate limit, and the lowest concurrency it was given. */
  private readonly limits = new Map<string, { count: number; lowest: number }>();

  private rateLimited(l: { runner: string; concurrency: number }): void {
    const r = this.limits.get(l.runner) ?? { count: 0, lowest: l.concurrency };
    this.limits.set(l.runner, { count: r.count + 1, lowest: Math.min(r.lowest, l.concurrency) });
  }
  private readonly started = new Map<string, number>();
  private slowest: Array<{ task: string; key: string | null; ms: number }> = [];

  /** The run's tasks: which of them take agent turns (before the first event). */
  plan(p: Plan): void {
    for (const t of p.tasks) {
      const r = t.revise;
      this.takers.set(t.name, {
        agent: t.kind === "agent",
        body: r?.body.kind === "agent",
        reviewer: r?.reviewer.kind === "agent",
        maxRounds: r?.max_rounds ?? 0,
      });
    }
  }

  /** The run is being cancelled (Ctrl-C, a signal, `switchyard cancel`): running turns are killed. */
  cancelling(): void {
    this.cancelAsked = true;
  }

  event(e: RunEvent): void {
    switch (e.type) {
      case "instance_started":
        this.started.set(`${e.task}\u0000${e.key ?? ""}`, Date.parse(e.time));
        this.turnStarted(eventTask(e), e.key);
        break;
      case "instance_retried":
        this.retries += 1;
        if (e.payload.rate_limited) this.rateLimited(e.payload.rate_limited);
        this.ended(e);
        this.loopEnded(eventTask(e), e.key, false);
        break;
      case "instance_interrupted":
        // A ceiling stops a loop only between rounds; a cancel kills the body that runs.
        this.loopEnded(eventTask(e), e.key, !this.cancelAsked);
        break;
      case "instance_finished":
        this.ended(e);
        this.loopEnded(eventTask(e), e.key, e.payload.status !== "failed");
        break;
      case "revise_round": {
        const t = this.takers.get(eventTask(e));
        const loop = this.loops.get(`${e.task}\u0000${e.key ?? ""}`);
        if (!t || !loop) break;
        loop.lastRound = e.payload.round;
        this.countRevise((t.body ? 1 : 0) + (t.reviewer ? 1 : 0));
        break;
      }
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

  /**
   * An attempt started: an agent's is one turn; a revise loop's turns are counted per round as
   * its rounds are recorded (and one more for a round its attempt ended in the middle of).
   */
  private turnStarted(task: string, key: string | null): void {
    const t = this.takers.get(task);
    if (t?.agent) this.turns += 1;
    else if (t?.body || t?.reviewer) this.loops.set(`${task}\u0000${key ?? ""}`, { lastRound: 0 });
  }

  /**
   * A revise attempt ended. Unless it passed, failed because its last round was the last allowed,
   * or was stopped by a ceiling (which only keeps the next round from starting), it ended inside a
   * round whose body had started (a body that failed, a reviewer that failed or gave a bad
   * verdict, a cancel): the body's turn ran. An agent reviewer's turn in such a round is not known
   * to have run and is not counted.
   */
  private loopEnded(task: string, key: string | null, settled: boolean): void {
    const id = `${task}\u0000${key ?? ""}`;
    const loop = this.loops.get(id);
    if (!loop) return;
    this.loops.delete(id);
    const t = entryOf(this.takers, task, "the tasks' takers");
    if (!settled && t.body && loop.lastRound < t.maxRounds) this.countRevise(1);
  }

  private countRevise(n: number): void {
    this.turns += n;
    this.reviseTurns += n;
  }

  /** Agent turns that ran in this invocation, and those of them in revise rounds. */
  agentTurns(): { taken: number; in_revise_rounds: number } {
    return { taken: this.turns, in_revise_rounds: this.reviseTurns };
  }

  private ended(e: RunEvent): void {
    const id = `${e.task}\u0000${e.key ?? ""}`;
    const t0 = this.started.get(id);
    if (t0 === undefined) return;
    this.started.delete(id);
    const ms = Date.parse(e.time) - t0;
    if (this.slowest.length === SLOWEST && ms <= this.slowest[SLOWEST - 1]!.ms) return;
    this.slowest.push({ task: eventTask(e), key: e.key, ms });
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
      agent_turns: this.agentTurns(),
      cost_usd: costUsd,
      slowest: this.slowest,
    };
  }

  private allFellBack(): Array<{ type: string; decisions: number }> {
    return [...this.turnedOn]
      .filter(([, t]) => t.decisions > 0 && t.fellBack === t.decisions)
      .map(([type, t]) => ({ type, decisions: t.decisions }));
  }

  /**
   * What the decisions bought: agent turns taken and not taken, and how many route answers gated
   * them. Agent turns are where the money goes, so this is the line a person looks for. Taken:
   * every agent turn this invocation ran (retries and revise rounds included); not taken and the
   * answers: the whole run's instances.
   */
  private turnsLine(tasks: TaskProgress[]): string | null {
    let notTaken = 0;
    let answers = 0;
    for (const t of tasks) {
      if (t.kind === "agent") notTaken += t.counts.not_taken;
      else if (t.kind === "route") answers += t.counts.passed;
    }
    if (this.turns + notTaken === 0) return null;
    const inRounds = this.reviseTurns > 0 ? ` (${this.reviseTurns} in revise rounds)` : "";
    const gated = answers > 0 ? `, ${notTaken} not taken, after ${answers} route answer${answers === 1 ? "" : "s"}` : "";
    return `agent turns: ${this.turns} taken${inRounds}${gated}`;
  }

  /** The summary's lines of text (after the per-task table). */
  lines(run: string, costUsd: number, tasks: TaskProgress[] = []): string[] {
    const out: string[] = [];
    const turns = this.turnsLine(tasks);
    if (turns) out.push(turns);
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
