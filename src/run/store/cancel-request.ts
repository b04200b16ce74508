// A cancel asked through the store (R-7 across machines): `switchyard cancel` can signal only a
// process on its own machine, so for an owner elsewhere (a PostgreSQL store shared by several
// machines) it leaves a request in the store, and the owner, which looks for one about once a
// second, cancels as on Ctrl-C. Only the owner acts on a request and appends the events, so the
// run keeps a single writer; the request is removed when the owner takes it, and any request
// left from an earlier invocation is dropped when a new owner claims the run.

import type { Sql, Store } from "./store.js";

const SCHEMA = `CREATE TABLE IF NOT EXISTS cancel_requests (
  run TEXT PRIMARY KEY, reason TEXT NOT NULL, at TEXT NOT NULL
) WITHOUT ROWID`;

const ASK: Sql = {
  sqlite: "INSERT OR REPLACE INTO cancel_requests (run, reason, at) VALUES (?, ?, ?)",
  postgres: `INSERT INTO cancel_requests (run, reason, at) VALUES ($1, $2, $3)
    ON CONFLICT (run) DO UPDATE SET reason = excluded.reason, at = excluded.at`,
};
const READ: Sql = { sqlite: "SELECT reason FROM cancel_requests WHERE run = ?" };
const DROP: Sql = { sqlite: "DELETE FROM cancel_requests WHERE run = ?" };

/** How often an owner looks for a request: a cancel from another machine lands within about this. */
const CANCEL_POLL_MS = 1000;

/** Leaves a cancel request for the run's owner. */
export function requestCancel(store: Store, run: string, reason: string): void {
  store.ensureTable(SCHEMA);
  store.exec(ASK, [run, reason, new Date().toISOString()]);
}

/** Drops a request (a new owner starts clean; a request is acted on once). */
function dropCancelRequest(store: Store, run: string): void {
  store.ensureTable(SCHEMA);
  store.exec(DROP, [run]);
}

/** The reason of the run's pending cancel request, taken (removed) if there is one. */
function takeCancelRequest(store: Store, run: string): string | undefined {
  store.ensureTable(SCHEMA);
  const row = store.select<{ reason: string }>(READ, [run])[0];
  if (row) store.exec(DROP, [run]);
  return row?.reason;
}

/**
 * While a run executes: looks for a cancel request every CANCEL_POLL_MS and hands its reason to
 * `cancel`. Returns the function that stops looking. A store that cannot be read just means no
 * request is seen this time (the engine reports store faults itself).
 */
export function watchCancelRequests(store: Store, run: string, cancel: (reason: string) => void): () => void {
  dropCancelRequest(store, run);
  const timer = setInterval(() => {
    let reason: string | undefined;
    try {
      reason = takeCancelRequest(store, run);
    } catch {
      return;
    }
    if (reason !== undefined) cancel(reason);
  }, CANCEL_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
