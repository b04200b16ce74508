// The events that say how a run's agent runners were paced: turns retried after a rate limit and
// the runner concurrency a finished turn left (src/run/agents/agent-rate-limits.ts folds them).

import type { Sql, Store } from "../store.js";
import type { StoredEvent } from "../events.js";

const PACING_EVENTS: Sql = {
  sqlite:
    "SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND ((type = 'instance_retried' AND payload LIKE '%\"rate_limited\":%') OR (type = 'instance_finished' AND payload LIKE '%\"runner_concurrency\":%')) ORDER BY seq",
};

/** A run's instance_retried events with `rate_limited` and instance_finished events with `runner_concurrency`, in order. */
export function pacingEvents(store: Store, run: string): StoredEvent[] {
  return store.select<StoredEvent>(PACING_EVENTS, [run]);
}
