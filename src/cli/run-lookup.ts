// Finding a run for the reading commands: by id, or the latest one (status), with a clear error.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore, type Store } from "../run/index.js";
import { namedStore, openNamed } from "./store-option.js";
import { UsageError, stateDir } from "./common.js";
import { nearestName } from "../lang/diagnostic.js";
import { describeSearch } from "./state-discovery.js";

/** `latest` (or no id at all) names the most recently started run. */
export function findRun(store: Store, id: string | undefined): string {
  if (id === undefined || (id === "latest" && !store.run(id))) {
    const latest = store.latestRun();
    if (!latest)
      throw new UsageError("usage", `no runs in ${store.stateDir}`, {
        hint: "start one with `switchyard run PATH`, or point --state-dir at another state folder",
      });
    return latest;
  }
  if (store.run(id)) return id;
  const known = store.runs().map((r) => r.run);
  // A unique prefix names a run, as git takes a short commit id.
  const prefixed = known.filter((r) => r.startsWith(id));
  const [only] = prefixed;
  if (prefixed.length === 1 && only !== undefined) return only;
  if (prefixed.length > 1) {
    throw new UsageError("usage", `the run id prefix ${id} is ambiguous: ${prefixed.length} runs start with it`, {
      hint: `say more of the id: ${prefixed.slice(-5).join(", ")}${prefixed.length > 5 ? ", …" : ""}`,
    });
  }
  const near = nearestName(id, known);
  throw new UsageError("unknown-run", `no run ${id} in ${store.stateDir}`, {
    hint: near ? `did you mean ${near}?` : known.length ? "list runs with `switchyard runs`" : "start one with `switchyard run PATH`",
  });
}

/** The record of a run `findRun` found (it exists: findRun checked); its row is read again each time. */
export function foundRun(store: Store, run: string): NonNullable<ReturnType<Store["run"]>> {
  const row = store.run(run);
  if (row === undefined) throw new UsageError("unknown-run", `no run ${run} in ${store.stateDir}`);
  return row;
}

/** A duration for people: 4.2s, 3m07s, or hours and minutes. */
export function formatElapsed(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * Opens the store for reading (--store/$SWITCHYARD_STORE, else the state folder's database); a
 * folder without a database has no runs (and is not created).
 */
export function openForReading(flag: string | undefined, storeFlag?: string): Store | null {
  const dir = stateDir(flag);
  const named = namedStore(storeFlag, dir);
  if (named) return openNamed(named, dir, true);
  if (!existsSync(join(dir, "switchyard.db"))) return null;
  return new SqliteStore(dir);
}

/** The usage error for a state folder holding no runs, saying where it looked and how to point elsewhere. */
export function noRuns(flag: string | undefined): UsageError {
  return new UsageError("usage", `no runs in ${describeSearch(flag)}`, {
    hint: "start one with `switchyard run PATH`, run this from the folder you ran it in (or below it), or point --state-dir (or $SWITCHYARD_HOME) at the state folder",
  });
}

/** A run's summary fields as `runs --json` and `status --json` print them. */
export function runSummaryJson(r: NonNullable<ReturnType<Store["run"]>>): Record<string, unknown> {
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
