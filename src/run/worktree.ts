// Git for `worktree` agents (issue 12): find the run's repository and its base commit, refuse a
// dirty or missing one, and give each attempt its own `git worktree` at the recorded base.
//
// Concurrency: `git worktree add/remove` and `git branch -D` write the repository's shared
// metadata (.git/worktrees, refs, packed-refs) and take its lock files, so in this process they
// are serialised per repository (one queue per repository path). Another process using the same
// repository at the same moment (a second run, the person's own git) can still hold a lock: such
// a failure ("index.lock", "… .lock': File exists", "cannot lock ref") is retried a few times
// with a short backoff before it fails the attempt. The turn itself, `git add -A` and `git diff`
// in a worktree use that worktree's own index and run in parallel.

import { execFile, spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

export function git(cwd: string, args: string[], maxBuffer = 256 * 1024 * 1024): Promise<GitResult> {
  return new Promise((done) => {
    execFile("git", args, { cwd, maxBuffer, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" } }, (err, stdout, stderr) => {
      done({
        ok: !err,
        stdout: String(stdout),
        stderr: String(stderr || (err && !("code" in err && typeof err.code === "number") ? err.message : "")),
      });
    });
  });
}

export type RepositoryProbe = { ok: true; path: string; head: string } | { ok: false; problem: string };

function gitSync(cwd: string, args: string[]): GitResult {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" } });
  return { ok: r.status === 0, stdout: r.stdout ?? "", stderr: r.stderr || (r.error ? r.error.message : "") };
}

/**
 * The repository at or above `dir`, its HEAD commit, and whether it can be used: it must exist,
 * have a commit, and have no uncommitted changes to tracked files (untracked files, such as a
 * state folder inside it, do not count). Synchronous: it runs once, before a run is admitted.
 */
export function probeRepository(dir: string): RepositoryProbe {
  const where = resolve(dir);
  if (!existsSync(where)) return { ok: false, problem: `${where} does not exist` };
  const top = gitSync(where, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) {
    if (/ENOENT/.test(top.stderr) && !/not a git/i.test(top.stderr)) return { ok: false, problem: "git is not installed (not on PATH)" };
    return {
      ok: false,
      problem: /not a git repository/i.test(top.stderr)
        ? `${where} is not inside a git repository`
        : `git cannot read ${where}: ${top.stderr.trim().split("\n")[0]}`,
    };
  }
  const path = top.stdout.trim();
  const head = gitSync(path, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (!head.ok) return { ok: false, problem: `the repository ${path} has no commit yet` };
  const status = gitSync(path, ["status", "--porcelain", "--untracked-files=no"]);
  if (!status.ok) return { ok: false, problem: `git status failed in ${path}: ${status.stderr.trim().split("\n")[0]}` };
  const changed = status.stdout.split("\n").filter((l) => l.trim() !== "");
  if (changed.length > 0) {
    const files =
      changed
        .slice(0, 5)
        .map((l) => l.slice(3))
        .join(", ") + (changed.length > 5 ? `, … (${changed.length} files)` : "");
    return {
      ok: false,
      problem: `the repository ${path} has uncommitted changes (${files}); commit or stash them, so that every worktree starts from a known commit`,
    };
  }
  return { ok: true, path: realpathSync(path), head: head.stdout.trim() };
}

/** Why a run's recorded repository can no longer be used (resume), or undefined. */
export function recordedRepositoryProblem(repo: { path: string; base: string }): string | undefined {
  if (!existsSync(repo.path)) return `the run's repository ${repo.path} no longer exists`;
  const base = gitSync(repo.path, ["cat-file", "-e", `${repo.base}^{commit}`]);
  if (!base.ok) return `the run's base commit ${repo.base.slice(0, 12)} is no longer in ${repo.path} (was the history rewritten?)`;
  return undefined;
}

const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call for the same repository has finished. */
function serialised<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(repo) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  queues.set(
    repo,
    next.catch(() => undefined),
  );
  return next;
}

// Also another process's half-written worktree folder (".git/worktrees/NAME/commondir"), which
// git reads while it lists worktrees (to add one, or to check a branch is not checked out).
const LOCKED = /index\.lock|\.lock'?: File exists|cannot lock ref|Unable to create .*\.lock|failed to read .*worktrees\//i;
const RETRIES = 6;

/** A metadata-writing git command: serialised per repository and retried on another process's lock. */
export function gitLocked(repo: string, args: string[]): Promise<GitResult> {
  return serialised(repo, async () => {
    let r = await git(repo, args);
    for (let i = 1; i <= RETRIES && !r.ok && LOCKED.test(r.stderr); i++) {
      await new Promise((ok) => setTimeout(ok, 25 * 2 ** i));
      r = await git(repo, args);
    }
    return r;
  });
}

/** A git branch name component from any text (a task name or an element key). */
export function refComponent(text: string): string {
  const safe = text
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .replace(/\.{2,}/g, "_")
    .replace(/^[.-]+/, "_")
    .replace(/\.lock$/i, "_lock")
    .replace(/\.$/, "_");
  return safe === "" ? "_" : safe.slice(0, 100);
}
