// Git for `worktree` agents: find the run's repository and its base commit, refuse a
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

/** What a git command printed and whether it succeeded. */
export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

// Every git command switchyard issues goes through gitInvocation (docs/agents/README.md, "What
// an agent cannot do to your repository"). An agent in a worktree can write the repository's
// config and hooks, a .gitattributes, its worktree's .git file: nothing it writes may make
// switchyard's own git start a program, and no program git does start sees a provider key.

/**
 * The only variables of the engine's environment a git command gets: what git needs to find
 * itself, the person's own config, where repository discovery stops, and a temporary folder. An
 * allowlist, so no provider key (named in the machine config or not), token or other secret
 * reaches git or anything it could start. None of these can make git start a program.
 */
const GIT_ENV_KEPT = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "TMPDIR",
  "XDG_CONFIG_HOME",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_EXEC_PATH",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
];

/**
 * Config that starts programs, switched off on every command (a `-c` outranks every config
 * file): the file-system monitor, hooks, signing, automatic maintenance, any transport. External
 * diff programs and textconv are switched off by flags on each diff (--no-ext-diff,
 * --no-textconv); the pager by --no-pager; filters (clean/smudge/process) by name, see below.
 */
const NEUTRAL_CONFIG = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "commit.gpgSign=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "protocol.allow=never",
  "submodule.recurse=false",
];

/** Where a command works when the folder it runs in must not choose the repository (a worktree). */
export interface GitScope {
  /** The worktree's administrative folder (.git/worktrees/NAME). */
  gitDir: string;
  /** The repository's .git folder. */
  commonDir: string;
  workTree: string;
}

/** How git is run: the environment its allowlisted variables come from, and its scope. */
export interface GitOptions {
  /** The environment the allowlisted variables are taken from (default: the engine's own). */
  env?: NodeJS.ProcessEnv;
  scope?: GitScope;
  maxBuffer?: number;
}

function gitEnv(o: GitOptions): NodeJS.ProcessEnv {
  const from = o.env ?? process.env;
  const env: NodeJS.ProcessEnv = { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
  for (const name of GIT_ENV_KEPT) if (from[name] !== undefined) env[name] = from[name];
  // Not the worktree's .git file nor its administrative folder's commondir file, both writable
  // by the agent, but the folders the engine found before the turn name the repository.
  if (o.scope) env.GIT_COMMON_DIR = o.scope.commonDir;
  return env;
}

function scopeArgs(scope: GitScope | undefined): string[] {
  return scope ? [`--git-dir=${scope.gitDir}`, `--work-tree=${scope.workTree}`] : [];
}

/**
 * `-c` overrides emptying every filter driver the config defines (a `filter=NAME` attribute
 * with no driver is no filter). Read with `git config`, which starts nothing.
 */
function filterOverrides(configList: GitResult): string[] | { refused: string } {
  const out: string[] = [];
  const drivers = new Set<string>();
  for (const key of configList.stdout.split("\0")) {
    const m = /^filter\.([\s\S]*)\.(clean|smudge|process|required)$/.exec(key.trim());
    if (m) drivers.add(m[1]!);
  }
  for (const d of [...drivers].sort()) {
    if (/[=\n]/.test(d))
      return { refused: `the git config defines a filter named ${JSON.stringify(d)}, which switchyard cannot switch off; remove it` };
    out.push("-c", `filter.${d}.clean=`, "-c", `filter.${d}.smudge=`, "-c", `filter.${d}.process=`, "-c", `filter.${d}.required=false`);
  }
  return out;
}

const LIST_FILTERS = ["config", "-z", "--name-only", "--get-regexp", "^filter\\."];

function invocation(args: string[], o: GitOptions, filters: string[]): string[] {
  return ["--no-pager", ...NEUTRAL_CONFIG.flatMap((c) => ["-c", c]), ...filters, ...scopeArgs(o.scope), ...args];
}

function result(err: Error | null, stdout: unknown, stderr: unknown): GitResult {
  return {
    ok: !err,
    stdout: String(stdout),
    stderr: String(stderr || (err && !("code" in err && typeof err.code === "number") ? err.message : "")),
  };
}

function run(cwd: string, argv: string[], o: GitOptions): Promise<GitResult> {
  return new Promise((done) => {
    execFile("git", argv, { cwd, maxBuffer: o.maxBuffer ?? 256 * 1024 * 1024, env: gitEnv(o) }, (err, stdout, stderr) =>
      done(result(err, stdout, stderr)),
    );
  });
}

/** Runs git with the neutral config, filters emptied and the allowlisted environment. */
export async function git(cwd: string, args: string[], o: GitOptions = {}): Promise<GitResult> {
  const filters = filterOverrides(await run(cwd, invocation(LIST_FILTERS, o, []), o));
  if ("refused" in filters) return { ok: false, stdout: "", stderr: filters.refused };
  return run(cwd, invocation(args, o, filters), o);
}

function runSync(cwd: string, argv: string[]): GitResult {
  const r = spawnSync("git", argv, { cwd, encoding: "utf8", env: gitEnv({}) });
  return { ok: r.status === 0, stdout: r.stdout ?? "", stderr: r.stderr || (r.error ? r.error.message : "") };
}

/** git, synchronously (before a run is admitted), on the same terms as git(). */
function gitSync(cwd: string, args: string[]): GitResult {
  const filters = filterOverrides(runSync(cwd, invocation(LIST_FILTERS, {}, [])));
  if ("refused" in filters) return { ok: false, stdout: "", stderr: filters.refused };
  return runSync(cwd, invocation(args, {}, filters));
}

/** The repository a run uses, or why it cannot be used. */
export type RepositoryProbe = { ok: true; path: string; head: string } | { ok: false; problem: string };

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
export function gitLocked(repo: string, args: string[], o: GitOptions = {}): Promise<GitResult> {
  return serialised(repo, async () => {
    let r = await git(repo, args, o);
    for (let i = 1; i <= RETRIES && !r.ok && LOCKED.test(r.stderr); i++) {
      await new Promise((ok) => setTimeout(ok, 25 * 2 ** i));
      r = await git(repo, args, o);
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
