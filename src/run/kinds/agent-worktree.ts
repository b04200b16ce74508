// `agent(..., workspace = "worktree")`: the attempt's workspace is its own git worktree
// of the run's repository at the recorded base commit, on a branch switchyard/RUN/TASK/KEY/aN.
// After the turn, whatever it passed or failed, the change is captured — `git add -A` in the
// worktree, then the diff of its index against the base — into changes.patch in the attempt
// folder, the worktree is removed, and the branch deleted unless the run keeps branches. A passed
// turn's output gets `files_changed` (paths, sorted) and `patch` (the patch file). The files the
// agent was asked to leave (`files`) are read as for any agent and are not part of the patch.
//
// The agent is untrusted (docs/agents/README.md, "What an agent cannot do to your repository"):
// every git command here runs through worktree.ts (no program started from config, hooks or
// filters; no secret in the environment), the commands in the worktree name its repository
// folders themselves (not through the worktree's .git file), the repository's config and hooks
// are put back as they were when the turn ends (repository-guard.ts), and a workspace folder
// replaced by a link or another folder fails the attempt with `workspace-replaced` and is never
// read, staged or written through.

import { appendFileSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { failedOutcome, type AttemptContext, type InstanceInput, type Outcome } from "./context.js";
import { prepareAttempt, type AttemptFiles } from "./command.js";
import { git, gitLocked, refComponent, type GitOptions, type GitScope } from "../agents/index.js";
import { pinWorkspace, workspaceReplaced } from "../process/index.js";
import { turnEnds, turnStarts, type RepositorySnapshot } from "../process/index.js";
import type { RunRepository } from "../store/index.js";
import { errnoCode } from "../../shared/thrown.js";
import { isPlainObject } from "../../shared/primitives.js";
import { CodedError } from "../../shared/coded-error.js";

/**
 * Per repository and run, this process's sweep of leftover worktrees: every attempt awaits the
 * same one, so none creates its worktree while the sweep could still list and remove it.
 */
const sweeps = new Map<string, Promise<void>>();

function failed(error: string): Outcome {
  return failedOutcome("worktree-failed", error);
}

const firstLine = (text: string): string => text.trim().split("\n").slice(-3).join(" ").slice(0, 400);

/**
 * Worktrees of this run left by an earlier process that was killed mid-turn (their folders are
 * under the run's work folder): removed once, before this process creates its first one.
 */
function sweep(repo: RunRepository, run: string, workDir: string, o: GitOptions): Promise<void> {
  const id = `${repo.path}\0${run}`;
  let done = sweeps.get(id);
  if (!done) sweeps.set(id, (done = sweepNow(repo, run, workDir, o)));
  return done;
}

async function sweepNow(repo: RunRepository, run: string, workDir: string, o: GitOptions): Promise<void> {
  const list = await git(repo.path, ["worktree", "list", "--porcelain"], o);
  for (const line of list.stdout.split("\n")) {
    if (!line.startsWith("worktree ")) continue;
    const path = line.slice("worktree ".length);
    if (path.startsWith(workDir + sep)) await gitLocked(repo.path, ["worktree", "remove", "--force", path], o);
  }
  await gitLocked(repo.path, ["worktree", "prune"], o);
  if (!repo.keep_branches) {
    const refs = await git(repo.path, ["for-each-ref", "--format=%(refname:short)", `refs/heads/switchyard/${refComponent(run)}/`], o);
    const names = refs.stdout.split("\n").filter((n) => n !== "");
    if (names.length) await gitLocked(repo.path, ["branch", "-D", ...names], o);
  }
}

/** The repository's .git folder (real path), found once per repository before any turn. */
const commonDirs = new Map<string, Promise<string | { error: string }>>();

function commonDirOf(repo: RunRepository, o: GitOptions): Promise<string | { error: string }> {
  let found = commonDirs.get(repo.path);
  if (!found) {
    found = git(repo.path, ["rev-parse", "--git-common-dir"], o).then((r) =>
      r.ok
        ? resolve(repo.path, r.stdout.trim())
        : { error: `git rev-parse --git-common-dir failed in ${repo.path}: ${firstLine(r.stderr)}` },
    );
    commonDirs.set(repo.path, found);
  }
  return found;
}

/**
 * The worktree's administrative folder, read from its .git file right after `git worktree add`
 * (before the agent can change it); it must be inside the repository's .git/worktrees.
 */
function scopeOf(workspace: string, commonDir: string): (GitScope & { gitFile: string }) | undefined {
  let text: string;
  try {
    text = readFileSync(join(workspace, ".git"), "utf8");
  } catch {
    return undefined;
  }
  const [, gitDirText] = /^gitdir: (.+)$/m.exec(text) ?? [];
  if (gitDirText === undefined) return undefined;
  const gitDir = resolve(workspace, gitDirText.trim());
  const rel = relative(join(commonDir, "worktrees"), gitDir);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel.includes(sep)) return undefined;
  return { gitDir, commonDir, workTree: workspace, gitFile: text };
}

/**
 * Another process adding a worktree of the same repository at the same moment can leave git
 * reading its half-written administrative folder (".git/worktrees/NAME/commondir") and give up;
 * the half-made worktree is removed and the add tried again, so no stray worktree is left behind.
 */
const CONCURRENT_ADD = /failed to read .*worktrees\/|could not create leading directories of '.*worktrees/i;

async function addWorktree(
  repo: RunRepository,
  branch: string,
  workspace: string,
  o: GitOptions,
): Promise<{ ok: boolean; stderr: string }> {
  let added = await gitLocked(repo.path, ["worktree", "add", "-B", branch, workspace, repo.base], o);
  for (let i = 1; i <= 5 && !added.ok; i++) {
    await gitLocked(repo.path, ["worktree", "remove", "--force", workspace], o);
    await gitLocked(repo.path, ["worktree", "prune"], o);
    mkdirSync(workspace, { recursive: true });
    if (!CONCURRENT_ADD.test(added.stderr)) break;
    await new Promise((ok) => setTimeout(ok, 20 * 2 ** i));
    added = await gitLocked(repo.path, ["worktree", "add", "-B", branch, workspace, repo.base], o);
  }
  return added;
}

/** Runs an agent turn in a fresh git worktree of the run's repository, and records its branch and commit. */
export async function inWorktree(
  ctx: AttemptContext,
  input: InstanceInput,
  turn: (files: AttemptFiles) => Promise<Outcome>,
): Promise<Outcome> {
  const repo = ctx.env.repo;
  if (!repo)
    return failed(
      `task ${ctx.recordTask} works in a git worktree, but the run recorded no repository; start the run with --repo PATH (or from inside the repository)`,
    );
  // The engine's environment less the provider keys, and of that only git's allowlist.
  const o: GitOptions = { env: ctx.env.baseEnv };
  const workDir = ctx.dir.slice(0, ctx.dir.lastIndexOf(`${sep}work${sep}`) + `${sep}work`.length);
  await sweep(repo, ctx.env.run, workDir, o);
  const commonDir = await commonDirOf(repo, o);
  if (typeof commonDir !== "string") return failed(commonDir.error);
  const files = await prepareAttempt(ctx.dir, input);
  const attempt = /a(\d+)$/.exec(basename(ctx.dir))?.[1] ?? "1";
  const branch = ["switchyard", ctx.env.run, ctx.recordTask, ctx.key ?? "_"].map(refComponent).join("/") + `/a${attempt}`;
  const guard = turnStarts(commonDir);
  let ended = false;
  const endTurn = () => {
    if (ended) return;
    ended = true;
    putBackRepository(commonDir, files.log);
  };
  try {
    const added = await addWorktree(repo, branch, files.workspace, o);
    if (!added.ok) return failed(`git worktree add at base ${repo.base.slice(0, 12)} failed in ${repo.path}: ${firstLine(added.stderr)}`);
    return await turnInWorktree(ctx, repo, { files, branch, attempt, o, guard, commonDir, endTurn }, turn);
  } finally {
    endTurn();
  }
}

interface Worktree {
  files: AttemptFiles;
  branch: string;
  attempt: string;
  o: GitOptions;
  guard: RepositorySnapshot;
  commonDir: string;
  endTurn: () => void;
}

/** Writes the worktree's .git file back when the agent changed it (nothing when the folder is gone: capture says so). */
function restoreGitFile(dotGit: string, text: string): void {
  const st = lstatSync(dotGit, { throwIfNoEntry: false });
  if (st?.isFile() && readFileSync(dotGit, "utf8") === text) return;
  try {
    rmSync(dotGit, { recursive: true, force: true });
    writeFileSync(dotGit, text, { flag: "wx" });
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
  }
}

/** Puts the repository's config and hooks back; says so in the attempt's log when they had changed. */
function putBackRepository(commonDir: string, log: string): void {
  const changed = turnEnds(commonDir);
  if (changed.length > 0)
    appendFileSync(
      log,
      `\nswitchyard: while this turn ran, ${changed.map((c) => join(commonDir, c)).join(", ")} changed in the repository; ` +
        `they were put back as they were before it (an agent may not change the repository's git config or hooks)\n`,
    );
}

async function turnInWorktree(
  ctx: AttemptContext,
  repo: RunRepository,
  w: Worktree,
  turn: (files: AttemptFiles) => Promise<Outcome>,
): Promise<Outcome> {
  const { files, branch, attempt, o } = w;
  // `git worktree add` may have made the folder again: its identity is taken now, before the turn.
  files.root = pinWorkspace(files.workspace);
  const scope = scopeOf(files.workspace, w.commonDir);
  if (scope) w.guard.add(relative(w.commonDir, join(scope.gitDir, "config.worktree")));
  let outcome: Outcome;
  let captured: { patch: string; files: string[] } | { error: string; code?: string };
  try {
    outcome = await turn(files);
  } finally {
    w.endTurn();
    const replaced = await workspaceReplaced(files.root);
    if (replaced) {
      // Never staged, read or removed through: what is there now goes (a link, not its target).
      rmSync(files.workspace, { recursive: true, force: true });
      captured = {
        code: "workspace-replaced",
        error: `the worktree folder ${files.workspace} ${replaced} while the agent worked; nothing of it was captured. An agent must leave its workspace folder in place (work inside it)`,
      };
    } else if (!scope) {
      captured = { error: `the worktree folder ${files.workspace} has no .git file naming a worktree of ${w.commonDir}` };
    } else {
      // The worktree's .git file as git wrote it, so that `git worktree remove` knows the folder.
      restoreGitFile(join(files.workspace, ".git"), scope.gitFile);
      const inTree = { ...o, scope: { gitDir: scope.gitDir, commonDir: scope.commonDir, workTree: scope.workTree } };
      captured = await capture(files.workspace, repo.base, ctx.task.agent?.files ?? [], inTree);
      if (repo.keep_branches && "files" in captured && captured.files.length > 0) {
        const kept = await commitChange(
          files.workspace,
          ctx.task.agent?.files ?? [],
          `switchyard: ${ctx.recordTask}${ctx.key === null ? "" : ` [${ctx.key}]`}, attempt ${attempt} of run ${ctx.env.run}`,
          inTree,
        );
        if ("error" in kept) captured = kept;
      }
    }
    const removed = replaced ? { ok: false } : await gitLocked(repo.path, ["worktree", "remove", "--force", files.workspace], o);
    if (!removed.ok) await gitLocked(repo.path, ["worktree", "prune"], o);
    if (scope) w.guard.forget(relative(w.commonDir, scope.gitDir) + sep);
    if (!repo.keep_branches) await gitLocked(repo.path, ["branch", "-D", branch], o);
  }
  rmSync(files.workspace, { recursive: true, force: true });
  mkdirSync(files.workspace);
  files.root = pinWorkspace(files.workspace);
  if ("error" in captured) {
    if (captured.code === "workspace-replaced" && outcome.status !== "interrupted")
      return { ...failedOutcome("workspace-replaced", captured.error), usage: outcome.usage };
    return outcome.status === "passed" ? { ...failed(captured.error), usage: outcome.usage } : outcome;
  }
  const patchFile = join(files.workspace, "changes.patch");
  // A turn that changed nothing leaves no patch file (an empty one fails `git apply`): no `patch`.
  if (captured.patch !== "") writeFileSync(patchFile, captured.patch, { flag: "wx" });
  if (outcome.status !== "passed") {
    // What the failed turn changed is kept for a person to look at (never applied anywhere).
    if (captured.patch === "" || outcome.status !== "failed") return outcome;
    return {
      ...outcome,
      error: `${outcome.error}; what it changed is kept in ${patchFile}${repo.keep_branches ? ` and on branch ${branch}` : ""}`,
    };
  }
  const output = outcome.output;
  if (!isPlainObject(output)) throw new CodedError("internal-error", "an agent turn passed with an output that is not an object");
  output.files_changed = captured.files;
  if (captured.patch !== "") output.patch = patchFile;
  return outcome;
}

/**
 * With --keep-branches: the captured change (staged by capture(), less the agent's own output
 * files) committed on the attempt's branch, so the branch holds the change, not just the base.
 */
async function commitChange(dir: string, own: string[], message: string, o: GitOptions): Promise<{ ok: true } | { error: string }> {
  // The agent's own output files go back to what the base has (absent, usually).
  if (own.length > 0) await git(dir, ["reset", "-q", "--", ...own.map((f) => `:(literal)${f}`)], o);
  const c = await git(
    dir,
    ["-c", "user.name=switchyard", "-c", "user.email=switchyard@localhost", "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message],
    o,
  );
  return c.ok
    ? { ok: true }
    : { error: `git commit of the change on the kept branch failed in the worktree ${dir}: ${firstLine(c.stderr + c.stdout)}` };
}

/** The worktree's change against `base`, leaving out the agent's own output files. */
async function capture(
  dir: string,
  base: string,
  own: string[],
  o: GitOptions,
): Promise<{ patch: string; files: string[] } | { error: string }> {
  const add = await git(dir, ["add", "-A"], o);
  if (!add.ok) return { error: `git add -A failed in the worktree ${dir}: ${firstLine(add.stderr)}` };
  const paths = ["--", ".", ...own.map((f) => `:(exclude,literal)${f}`)];
  const patch = await git(dir, ["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", base, ...paths], o);
  if (!patch.ok) return { error: `git diff against the base failed in the worktree ${dir}: ${firstLine(patch.stderr)}` };
  const names = await git(dir, ["diff", "--cached", "--name-only", "-z", "--no-ext-diff", "--no-textconv", base, ...paths], o);
  return {
    patch: patch.stdout,
    files: names.stdout
      .split("\0")
      .filter((n) => n !== "")
      .sort(),
  };
}
