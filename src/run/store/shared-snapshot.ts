// A run's pack snapshot on a store shared by many machines: the snapshot folder
// lives in the state folder of the machine that admitted the run, so the store keeps a copy as
// one archive (pack-archive.ts). Any other machine — a coordinator resuming the run, a worker
// running its attempts — unpacks that copy into its own state folder instead of needing a shared
// filesystem. With SQLite the state folder is the store, and nothing is copied.

import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { archivePack, extractPack } from "./pack-archive.js";
import type { Store } from "./store.js";
import type { PostgresStore } from "./store-postgres.js";

function shared(store: Store): PostgresStore | undefined {
  return store.kind === "postgres" ? (store as PostgresStore) : undefined;
}

/** After admission (or later, if a crash came first): the snapshot folder `dir` copied into a shared store. */
export function publishSnapshot(store: Store, run: string, dir: string, opts: { ifMissing?: boolean } = {}): void {
  const pg = shared(store);
  if (!pg || (opts.ifMissing && pg.hasPack(run))) return;
  pg.putPack(run, archivePack(dir));
}

/**
 * The snapshot folder of a run admitted on another machine: `recorded` (the admitting machine's
 * path) when it exists here, else this machine's copy under the run folder, unpacked from the
 * store the first time. Undefined when neither exists (the run's snapshot is lost).
 */
export function localSnapshot(store: Store, run: string, recorded: string): string | undefined {
  if (existsSync(recorded)) return recorded;
  const pg = shared(store);
  if (!pg) return undefined;
  const dir = join(store.runDir(run), "pack");
  if (existsSync(dir)) return dir;
  const archive = pg.getPack(run);
  if (!archive) return undefined;
  // Unpacked beside, then renamed: a process killed meanwhile never leaves half a pack.
  const tmp = `${dir}.fetch-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  extractPack(archive, tmp);
  renameSync(tmp, dir);
  return dir;
}
