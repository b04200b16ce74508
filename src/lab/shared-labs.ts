// Labs on a PostgreSQL store (issue 17 item 1): when several machines share one store, the lab —
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
import type { PostgresStore } from "../run/store/index.js";
import type { ShadowPair } from "../decide/pair.js";
import { pairLine } from "./pair-line.js";
import { labsDir, newLabId, pairsPath, type LabInfo, type LabSink } from "./store.js";

/** The store as a shared one (PostgreSQL), or undefined: then labs are the state folder's own. */
export function sharedStore(store: Store | null | undefined): PostgresStore | undefined {
  return store && store.kind === "postgres" ? (store as PostgresStore) : undefined;
}

function insertLab(pg: PostgresStore, note: string): LabInfo {
  const info: LabInfo = { id: newLabId(), created: new Date().toISOString(), note };
  pg.exec({ sqlite: "INSERT INTO labs (id, created, note) VALUES (?, ?, ?)" }, [info.id, info.created, info.note]);
  return info;
}

function currentOf(pg: PostgresStore): string | undefined {
  return pg.select<{ id: string }>({ sqlite: "SELECT id FROM lab_current WHERE only_row" })[0]?.id;
}

/** `lab new` on a shared store: a new lab, made current for every machine. */
export function newSharedLab(pg: PostgresStore, note: string): LabInfo {
  const info = insertLab(pg, note);
  pg.exec(
    {
      sqlite: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, ?)",
      postgres: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, $1) ON CONFLICT (only_row) DO UPDATE SET id = excluded.id",
    },
    [info.id],
  );
  return info;
}

/** The current lab, or a new one made current when there is none; two machines racing agree on one. */
function ensureCurrent(pg: PostgresStore): string {
  const existing = currentOf(pg);
  if (existing) return existing;
  const info = insertLab(pg, "made by the first shadow pair");
  pg.exec(
    {
      sqlite: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, ?)",
      postgres: "INSERT INTO lab_current (only_row, id) VALUES (TRUE, $1) ON CONFLICT (only_row) DO NOTHING",
    },
    [info.id],
  );
  const winner = currentOf(pg)!;
  if (winner !== info.id) pg.exec({ sqlite: "DELETE FROM labs WHERE id = ?" }, [info.id]);
  return winner;
}

/** A PairSink over the shared store's current lab (chosen at the first pair, kept for the sink's life). */
export function openSharedLabSink(pg: PostgresStore): LabSink {
  let lab: string | null = null;
  return {
    append(pair: Omit<ShadowPair, "lab">): void {
      lab ??= ensureCurrent(pg);
      // Merged with the commit's other pairs into one insert; ids follow the order they were asked in.
      pg.addToNextCommit({
        text: "INSERT INTO lab_pairs (lab, line) SELECT l, p FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(l, p, o) ORDER BY o",
        values: [[lab], [pairLine({ ...pair, lab })]],
        merge: true,
      });
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
  const labs = pg.select<LabInfo>({ sqlite: "SELECT id, created, note FROM labs ORDER BY created, id" });
  mkdirSync(labsDir(stateDir), { recursive: true });
  for (const lab of labs) {
    const dir = join(labsDir(stateDir), lab.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "lab.json"), JSON.stringify({ id: lab.id, created: lab.created, note: lab.note }, null, 2) + "\n");
    const lines = pg.select<{ line: string }>({ sqlite: "SELECT line FROM lab_pairs WHERE lab = ? ORDER BY id" }, [lab.id]);
    const file = pairsPath(stateDir, lab.id);
    const tmp = `${file}.pull-${process.pid}`;
    writeFileSync(tmp, lines.map((r) => r.line + "\n").join(""));
    renameSync(tmp, file);
  }
  const current = currentOf(pg);
  if (current) {
    const tmp = join(labsDir(stateDir), `current.pull-${process.pid}`);
    writeFileSync(tmp, current + "\n");
    renameSync(tmp, join(labsDir(stateDir), "current"));
  }
}
