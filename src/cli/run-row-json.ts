// A run's row as `runs --json` lists it and `status --json` heads it: one shape for both.

import type { RunRow } from "../run/index.js";

export function runRowJson(r: RunRow) {
  return {
    run: r.run,
    status: r.status,
    playbook: r.playbook,
    source: r.source,
    started_at: r.started_at,
    finished_at: r.finished_at,
    elapsed_ms: r.elapsed_ms,
    spent_usd: r.spent_usd,
    reason: r.stop_reason,
  };
}
