// The run's ceilings: wall-clock time summed over every invocation, and the cost agents
// reported. They are checked before each instance and decision request starts; a reached one
// halts the run as `stopped`, naming it and the flag that raises it on resume. Time in which the
// run only waits for people to answer review questions does not count (D-67): an overnight wait
// for a person is not work, and review_timeout, not max_duration, bounds it.

import type { Settings } from "../store/index.js";
import { codedText } from "../../shared/coded-error.js";

/**
 * Why the run stops starting work: a ceiling was reached, or it was cancelled.
 * `reason` is the recorded text; a reached ceiling's is `ceiling-reached: message`.
 */
export type Halt =
  | { kind: "stopped"; ceiling: "max_duration" | "budget_usd"; code: "ceiling-reached"; reason: string }
  | { kind: "cancelled"; reason: string };

function stopped(ceiling: "max_duration" | "budget_usd", message: string): Halt {
  return { kind: "stopped", ceiling, code: "ceiling-reached", reason: codedText({ code: "ceiling-reached", message }) };
}

/** The halt a reached ceiling calls for, or null while both are below their limits. */
export function ceilingReached(settings: Settings, elapsedMs: number, spentUsd: number): Halt | null {
  const limit = settings.max_duration_seconds * 1000;
  if (elapsedMs >= limit) {
    return stopped(
      "max_duration",
      `max_duration of ${settings.max_duration_seconds}s reached (${(elapsedMs / 1000).toFixed(1)}s over all invocations); resume with a higher --max-duration`,
    );
  }
  const budget = settings.budget_usd;
  if (budget !== undefined && spentUsd >= budget) {
    return stopped(
      "budget_usd",
      `budget_usd of $${budget} reached ($${spentUsd.toFixed(4)} reported by agents); resume with a higher --budget-usd`,
    );
  }
  return null;
}

/** The stretches in which the run only waits for review answers (D-67): started when it says it stays up, stopped when an answer lets work go on. */
export class WaitingClock {
  private since: number | undefined;
  private total = 0;

  /** Only waiting instances are left (again); a clock already running keeps its start. */
  start(now = Date.now()): void {
    this.since ??= now;
  }

  /** Work goes on. */
  stop(now = Date.now()): void {
    if (this.since === undefined) return;
    this.total += now - this.since;
    this.since = undefined;
  }

  /** Milliseconds spent only waiting in this invocation, the current stretch included. */
  ms(now = Date.now()): number {
    return this.total + (this.since === undefined ? 0 : now - this.since);
  }
}
