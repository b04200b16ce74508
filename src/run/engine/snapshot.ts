// The pack snapshot: every file of the pack folder, hidden folders and node_modules
// excepted, copied into the run folder. Commands and agents see the copy as $SWITCHYARD_PACK, and
// every later step of the run (resume included) uses it, never the current files.
// A switchyard state folder inside the pack (a non-hidden --state-dir, say) is never copied,
// whatever its name: it is recognised by its database, and copying it would snapshot every earlier
// snapshot and the live database into each run. When the pack folder is itself the state folder,
// the state's own entries are left out and the pack's files kept.

import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { SnapshotInfo } from "../store/index.js";
import { CodedError } from "../../shared/coded-error.js";

/** The file name of the state folder's database (store.ts opens it). */
const STATE_DATABASE = "switchyard.db";

const SNAPSHOT_LIMIT_BYTES = 50 * 1024 * 1024;

/** A pack that cannot be snapshotted into the run folder, such as one over the size limit. */
export class SnapshotError extends CodedError {}

interface Entry {
  from: string;
  rel: string;
  size: number;
}

/** An entry a state folder makes: the database with SQLite's side files (-wal, -shm), runs/ and labs/. */
function isStateEntry(name: string): boolean {
  return name === STATE_DATABASE || name.startsWith(`${STATE_DATABASE}-`) || name === "runs" || name === "labs";
}

function collect(root: string, dir: string, out: Entry[]): void {
  const inState = dir === root && isStateFolder(dir);
  for (const name of readdirSync(dir).sort()) {
    if (inState && isStateEntry(name)) continue;
    const from = join(dir, name);
    let st = lstatSync(from);
    if (st.isSymbolicLink()) {
      try {
        st = statSync(from);
      } catch {
        continue; // a dangling link carries nothing
      }
      if (st.isDirectory()) continue; // linked folders could loop or leave the pack
    }
    if (st.isDirectory()) {
      if (name.startsWith(".") || name === "node_modules" || isStateFolder(from)) continue;
      collect(root, from, out);
    } else if (st.isFile()) {
      out.push({ from, rel: relative(root, from), size: st.size });
    }
  }
}

/** A switchyard state folder: it holds the run database. */
function isStateFolder(dir: string): boolean {
  return existsSync(join(dir, STATE_DATABASE));
}

/** Copies the pack at `packDir` into `dest`; throws SnapshotError over 50 MB before copying. */
export function snapshotPack(packDir: string, dest: string): SnapshotInfo {
  const entries: Entry[] = [];
  collect(packDir, packDir, entries);
  const bytes = entries.reduce((n, e) => n + e.size, 0);
  if (bytes > SNAPSHOT_LIMIT_BYTES) {
    const biggest = [...entries]
      .sort((a, b) => b.size - a.size)
      .slice(0, 3)
      .map((e) => `${e.rel} (${(e.size / 1048576).toFixed(1)} MB)`);
    throw new SnapshotError(
      "pack-too-large",
      `the pack ${packDir} holds ${(bytes / 1048576).toFixed(1)} MB, over the 50 MB snapshot limit (R-1); largest files: ${biggest.join(", ")}. Move data out of the pack, or into a hidden folder.`,
    );
  }
  mkdirSync(dest, { recursive: true });
  const made = new Set<string>();
  for (const e of entries) {
    const target = join(dest, e.rel);
    const parent = join(target, "..");
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    copyFileSync(e.from, target);
  }
  return { dir: dest, source: packDir, files: entries.length, bytes };
}
