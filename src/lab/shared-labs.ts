// Labs on a PostgreSQL store: when several machines share one store, the lab —
// which labs exist, which one is current, and every shadow and audit pair — lives in the store's
// `labs`, `lab_current` and `lab_pairs` tables, so pairs asked on any machine land in one lab.
// A pair rides the store's next commit (the one that records the decision's events), so a
// decision lost in a crash loses its pair too and is asked again on resume: never a pair without
// its decision, never one twice. `lab` commands on such a store first copy the store's labs into
// the local state folder (lab.json, pairs.jsonl, current, as the folder store keeps them), so
// harvest, calibrate and the web view read them exactly as they read a machine's own.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../run/store/index.js";
import {
  addPairToNextCommit,
  currentLabId,
  deleteLabRow,
  insertLabRow,
  labPairLines,
  labRows,
  setCurrentLab,
  setCurrentLabIfNone,
  type PostgresStore,
} from "../run/store/index.js";
import type { ShadowPair } from "../decide/pair.js";
import { pairLine } from "./pair-line.js";
import { labsDir, newLabId, pairsPath, type LabInfo, type LabSink } from "./store.js";

/** The store as a shared one (PostgreSQL), or undefined: then labs are the state folder's own. */
export function sharedStore(store: Store | null | undefined): PostgresStore | undefined {
  return store && store.kind === "postgres" ? (store as PostgresStore) : undefined;
}

function insertLab(pg: PostgresStore, note: string): LabInfo {
  const info: LabInfo = { id: newLabId(), created: new Date().toISOString(), note };
  insertLabRow(pg, info);
  return info;
}

/** `lab new` on a shared store: a new lab, made current for every machine. */
export function newSharedLab(pg: PostgresStore, note: string): LabInfo {
  const info = insertLab(pg, note);
  setCurrentLab(pg, info.id);
  return info;
}

/** The current lab, or a new one made current when there is none; two machines racing agree on one. */
function ensureCurrent(pg: PostgresStore): string {
  const existing = currentLabId(pg);
  if (existing) return existing;
  const info = insertLab(pg, "made by the first shadow pair");
  setCurrentLabIfNone(pg, info.id);
  const winner = currentLabId(pg)!;
  if (winner !== info.id) deleteLabRow(pg, info.id);
  return winner;
}

/** A PairSink over the shared store's current lab (chosen at the first pair, kept for the sink's life). */
export function openSharedLabSink(pg: PostgresStore): LabSink {
  let lab: string | null = null;
  return {
    append(pair: Omit<ShadowPair, "lab">): void {
      lab ??= ensureCurrent(pg);
      addPairToNextCommit(pg, lab, pairLine({ ...pair, lab }));
    },
    labId: () => lab,
    close(): void {
      // the pairs are committed with the run's events
    },
  };
}

/**
 * Copies the shared store's labs into the state folder `stateDir` (each lab's lab.json and
 * pairs.jsonl rewritten whole, then `current`), for the `lab` commands and the web view to read.
 * Labs made in the folder itself are left alone.
 */
export function pullSharedLabs(pg: PostgresStore, stateDir: string): void {
  const labs: LabInfo[] = labRows(pg);
  mkdirSync(labsDir(stateDir), { recursive: true });
  for (const lab of labs) {
    const dir = join(labsDir(stateDir), lab.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "lab.json"), JSON.stringify({ id: lab.id, created: lab.created, note: lab.note }, null, 2) + "\n");
    const lines = labPairLines(pg, lab.id);
    const file = pairsPath(stateDir, lab.id);
    const tmp = `${file}.pull-${process.pid}`;
    writeFileSync(tmp, lines.map((line) => line + "\n").join(""));
    renameSync(tmp, file);
  }
  const current = currentLabId(pg);
  if (current) {
    const tmp = join(labsDir(stateDir), `current.pull-${process.pid}`);
    writeFileSync(tmp, current + "\n");
    renameSync(tmp, join(labsDir(stateDir), "current"));
  }
}
