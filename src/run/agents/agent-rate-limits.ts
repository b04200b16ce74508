// Rate limits per agent runner: a turn that ends in the tool's rate-limit report (HTTP
// 429/529, "rate limit", "overloaded") is tried again after the delay the tool asks for — or a
// capped exponential backoff when it names none — without counting as a failed attempt, and the
// runner's concurrency follows additive increase, multiplicative decrease: each limit halves the
// turns it may run at once (at least 1), and each turn that passes after a quiet period with no
// limit lets one more run, until the playbook's concurrency is reached again (no cap). One
// limiter per run and runner in this process (a worker process has its own).

import type { Store } from "../store/index.js";
import { decodeEvent, pacingEvents } from "../store/index.js";

/** The delay when the tool names none: 2 s, doubling per limit in a row, at most 2 minutes. */
export const BACKOFF_BASE_MS = 2000;
/** The longest wait after a rate limit, however many came in a row. */
export const BACKOFF_MAX_MS = 120_000;
/** How long without a limit before the concurrency is raised by one per passed turn. */
export const QUIET_MS = 60_000;
/** Rate-limited tries of one instance before the limit counts as a failed attempt after all. */
export const MAX_RATE_LIMITED_TRIES = 20;

/**
 * How long to wait after the `streak`-th rate limit in a row: the delay the tool asked for (at
 * most 10 minutes), else 2 s doubling per limit, at most 2 minutes. Agent turns and host calls
 * (src/decide/providers/host.ts) wait the same.
 */
export function rateLimitDelay(askedMs: number | undefined, streak: number): number {
  if (askedMs !== undefined) return Math.min(askedMs, BACKOFF_MAX_MS * 5);
  return Math.min(BACKOFF_BASE_MS * 2 ** (streak - 1), BACKOFF_MAX_MS);
}

/** One agent runner's concurrency under rate limits: lowered on a limit, raised again after quiet, with the wait before the next turn. */
export class RunnerLimiter {
  /** Turns of this runner running now. */
  running = 0;
  /** The most that may run at once; null: no limit of its own (the playbook's concurrency). */
  limit: number | null = null;
  /** Limits in a row (reset by a passed turn), for the backoff. */
  streak = 0;
  private lastLimitAt = -Infinity;
  private readonly waiting: Array<() => void> = [];

  constructor(
    /** The playbook's concurrency: once the limit reaches it, the runner is unlimited again. */
    private readonly ceiling: number,
    private readonly quietMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Waits for a slot under the runner's limit. */
  async acquire(signal: AbortSignal): Promise<void> {
    while (this.limit !== null && this.running >= this.limit && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        this.waiting.push(done);
        signal.addEventListener("abort", done, { once: true });
      });
    }
    this.running += 1;
  }

  release(): void {
    this.running -= 1;
    this.wake();
  }

  private wake(): void {
    while (this.waiting.length > 0 && (this.limit === null || this.running < this.limit)) this.waiting.shift()!();
  }

  /** A turn hit the limit (its slot still held): halve the concurrency; the delay before its retry. */
  limited(askedMs: number | undefined): { delay_ms: number; limit: number } {
    this.lastLimitAt = this.now();
    this.streak += 1;
    this.limit = Math.max(1, Math.floor(Math.min(this.limit ?? Infinity, this.running) / 2));
    return { delay_ms: rateLimitDelay(askedMs, this.streak), limit: this.limit };
  }

  /** A turn passed: after a quiet period, one more may run. Returns the new limit when it changed. */
  passed(): { changed: boolean; limit: number | null } {
    this.streak = 0;
    if (this.limit === null || this.now() - this.lastLimitAt < this.quietMs) return { changed: false, limit: this.limit };
    this.limit = this.limit + 1 >= this.ceiling ? null : this.limit + 1;
    this.wake();
    return { changed: true, limit: this.limit };
  }
}

const limiters = new Map<string, RunnerLimiter>();

/** The limiter of one runner in one run (made on first use). */
export function limiterFor(run: string, runner: string, ceiling: number, quietMs = QUIET_MS): RunnerLimiter {
  const id = `${run}\u0000${runner}`;
  let l = limiters.get(id);
  if (!l) limiters.set(id, (l = new RunnerLimiter(ceiling, quietMs)));
  return l;
}

/** Per agent runner of a run, from its events: turns retried after a rate limit, and its concurrency now (null: unlimited). */
export function rateLimitState(store: Store, run: string): Record<string, { retried: number; concurrency: number | null }> {
  const out: Record<string, { retried: number; concurrency: number | null }> = {};
  for (const e of pacingEvents(store, run).map((row) => decodeEvent(run, row))) {
    if (e.type === "instance_retried" && e.payload.rate_limited) {
      const { runner, concurrency } = e.payload.rate_limited;
      out[runner] = { retried: (out[runner]?.retried ?? 0) + 1, concurrency };
    } else if (e.type === "instance_finished" && e.payload.runner_concurrency) {
      const { runner, limit } = e.payload.runner_concurrency;
      out[runner] = { retried: out[runner]?.retried ?? 0, concurrency: limit };
    }
  }
  return out;
}
