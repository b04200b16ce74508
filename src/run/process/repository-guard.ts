// What an agent working in a worktree may not leave behind in the person's repository: config
// and hooks that would start programs the next time the person (or switchyard) runs git there.
// The files git reads them from — the repository's config (and config.worktree), info/attributes,
// every hook, and each linked worktree's config.worktree — are copied when the first turn on a
// repository starts (while no turn of this process is working in it) and put back as they were
// when each turn ends, before switchyard runs git in the worktree again
// (docs/agents/README.md, "What an agent cannot do to your repository").

import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** One guarded path as it was: a regular file (content and mode), a symbolic link, or absent. */
type Entry = { kind: "file"; content: Buffer; mode: number } | { kind: "link"; target: string } | { kind: "absent" } | { kind: "other" };

function entryAt(path: string): Entry {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return { kind: "absent" };
  if (st.isSymbolicLink()) return { kind: "link", target: readlinkSync(path) };
  if (st.isFile()) return { kind: "file", content: readFileSync(path), mode: st.mode & 0o7777 };
  return { kind: "other" };
}

function same(a: Entry, b: Entry): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.mode === b.mode && a.content.equals(b.content);
  if (a.kind === "link" && b.kind === "link") return a.target === b.target;
  return true;
}

/** Puts `path` back as `was` (a file by write-and-rename, as git writes its config). */
function putBack(path: string, was: Entry): void {
  if (was.kind === "other") return;
  rmSync(path, { recursive: true, force: true });
  if (was.kind !== "absent") mkdirSync(dirname(path), { recursive: true });
  if (was.kind === "link") symlinkSync(was.target, path);
  else if (was.kind === "file") {
    const tmp = `${path}.switchyard-restore`;
    writeFileSync(tmp, was.content);
    chmodSync(tmp, was.mode);
    renameSync(tmp, path);
  }
}

function names(dir: string): string[] {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  return st?.isDirectory() ? readdirSync(dir).sort() : [];
}

/** The guarded files of a repository (by .git folder) as they are now. */
export class RepositorySnapshot {
  private readonly files = new Map<string, Entry>();
  private readonly hooksWas: Entry;

  constructor(private readonly commonDir: string) {
    for (const rel of this.guarded()) this.files.set(rel, entryAt(join(commonDir, rel)));
    this.hooksWas = entryAt(join(commonDir, "hooks"));
  }

  /** The guarded paths, relative to the .git folder, that exist now (or are always guarded). */
  private guarded(): string[] {
    const rels = ["config", "config.worktree", join("info", "attributes")];
    for (const n of names(join(this.commonDir, "hooks"))) rels.push(join("hooks", n));
    for (const n of names(join(this.commonDir, "worktrees"))) rels.push(join("worktrees", n, "config.worktree"));
    return rels;
  }

  /** Also guards `path` (relative to the .git folder) as it is now: a worktree made after the snapshot. */
  add(rel: string): void {
    this.files.set(rel, entryAt(join(this.commonDir, rel)));
  }

  /** Forgets a worktree's files (it was removed). */
  forget(prefix: string): void {
    for (const rel of [...this.files.keys()]) if (rel.startsWith(prefix)) this.files.delete(rel);
  }

  /**
   * Puts every guarded file back as it was and removes hooks added since; returns what had
   * changed (paths relative to the .git folder), empty when nothing had.
   */
  restore(): string[] {
    const changed: string[] = [];
    const hooks = join(this.commonDir, "hooks");
    const hooksNow = entryAt(hooks);
    if (hooksNow.kind !== this.hooksWas.kind || hooksNow.kind === "link") {
      changed.push("hooks");
      rmSync(hooks, { recursive: true, force: true });
      if (this.hooksWas.kind === "other") mkdirSync(hooks);
      else putBack(hooks, this.hooksWas);
    }
    for (const n of names(hooks)) {
      const rel = join("hooks", n);
      if (!this.files.has(rel)) {
        changed.push(rel);
        rmSync(join(hooks, n), { recursive: true, force: true });
      }
    }
    for (const [rel, was] of this.files) {
      const path = join(this.commonDir, rel);
      if (same(entryAt(path), was)) continue;
      // A worktree's administrative folder that is gone was removed by git (a finished turn).
      if (rel.startsWith(`worktrees`) && lstatSync(join(path, ".."), { throwIfNoEntry: false }) === undefined) continue;
      changed.push(rel);
      putBack(path, was);
    }
    return changed.sort();
  }
}

/** Per repository (.git folder): the snapshot taken when its first running turn started. */
const turns = new Map<string, { snapshot: RepositorySnapshot; running: number }>();

/**
 * A turn in a worktree of the repository whose .git folder is `commonDir` starts: its guarded
 * files are copied now unless another turn of this process is already running there (then that
 * turn's copy, taken before either could change anything, is the one put back).
 */
export function turnStarts(commonDir: string): RepositorySnapshot {
  let t = turns.get(commonDir);
  if (!t) turns.set(commonDir, (t = { snapshot: new RepositorySnapshot(commonDir), running: 0 }));
  t.running++;
  return t.snapshot;
}

/** The turn ended: the guarded files are put back; returns what had changed. */
export function turnEnds(commonDir: string): string[] {
  const t = turns.get(commonDir);
  if (!t) return [];
  try {
    return t.snapshot.restore();
  } finally {
    if (--t.running === 0) turns.delete(commonDir);
  }
}
