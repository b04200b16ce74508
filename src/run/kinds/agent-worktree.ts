// `agent(..., workspace = "worktree")` (issue 12): the attempt's workspace is its own git worktree
// of the run's repository at the recorded base commit, on a branch switchyard/RUN/TASK/KEY/aN.
// After the turn, whatever it passed or failed, the change is captured — `git add -A` in the
// worktree, then the diff of its index against the base — into changes.patch in the attempt
// folder, the worktree is removed, and the branch deleted unless the run keeps branches. A passed
// turn's output gets `files_changed` (paths, sorted) and `patch` (the patch file). The files the
// agent was asked to leave (`files`) are read as for any agent and are not part of the patch.

import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join, sep } from "node:path";
import { failedOutcome, type AttemptContext, type InstanceInput, type Outcome } from "./context.js";
import { prepareAttempt, type AttemptFiles } from "./command.js";
import { git, gitLocked, refComponent } from "../worktree.js";
import type { RunRepository } from "../events.js";

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
function sweep(repo: RunRepository, run: string, workDir: string): Promise<void> {
  const id = `${repo.path}\0${run}`;
  let done = sweeps.get(id);
  if (!done) sweeps.set(id, (done = sweepNow(repo, run, workDir)));
  return done;
}

async function sweepNow(repo: RunRepository, run: string, workDir: string): Promise<void> {
  const list = await git(repo.path, ["worktree", "list", "--porcelain"]);
  for (const line of list.stdout.split("\n")) {
    if (!line.startsWith("worktree ")) continue;
    const path = line.slice("worktree ".length);
    if (path.startsWith(workDir + sep)) await gitLocked(repo.path, ["worktree", "remove", "--force", path]);
  }
  await gitLocked(repo.path, ["worktree", "prune"]);
  if (!repo.keep_branches) {
    const refs = await git(repo.path, ["for-each-ref", "--format=%(refname:short)", `refs/heads/switchyard/${refComponent(run)}/`]);
    const names = refs.stdout.split("\n").filter((n) => n !== "");
    if (names.length) await gitLocked(repo.path, ["branch", "-D", ...names]);
  }
}

/**
 * Another process adding a worktree of the same repository at the same moment can leave git
 * reading its half-written administrative folder (".git/worktrees/NAME/commondir") and give up;
 * the half-made worktree is removed and the add tried again, so no stray worktree is left behind.
 */
const CONCURRENT_ADD = /failed to read .*worktrees\/|could not create leading directories of '.*worktrees/i;

async function addWorktree(repo: RunRepository, branch: string, workspace: string): Promise<{ ok: boolean; stderr: string }> {
  let added = await gitLocked(repo.path, ["worktree", "add", "-B", branch, workspace, repo.base]);
  for (let i = 1; i <= 5 && !added.ok; i++) {
    await gitLocked(repo.path, ["worktree", "remove", "--force", workspace]);
    await gitLocked(repo.path, ["worktree", "prune"]);
    mkdirSync(workspace, { recursive: true });
    if (!CONCURRENT_ADD.test(added.stderr)) break;
    await new Promise((ok) => setTimeout(ok, 20 * 2 ** i));
    added = await gitLocked(repo.path, ["worktree", "add", "-B", branch, workspace, repo.base]);
  }
  return added;
}

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
  const workDir = ctx.dir.slice(0, ctx.dir.lastIndexOf(`${sep}work${sep}`) + `${sep}work`.length);
  await sweep(repo, ctx.env.run, workDir);
  const files = await prepareAttempt(ctx.dir, input);
  const attempt = /a(\d+)$/.exec(basename(ctx.dir))?.[1] ?? "1";
  const branch = ["switchyard", ctx.env.run, ctx.recordTask, ctx.key ?? "_"].map(refComponent).join("/") + `/a${attempt}`;
  const added = await addWorktree(repo, branch, files.workspace);
  if (!added.ok) return failed(`git worktree add at base ${repo.base.slice(0, 12)} failed in ${repo.path}: ${firstLine(added.stderr)}`);
  let outcome: Outcome;
  let captured: { patch: string; files: string[] } | { error: string };
  try {
    outcome = await turn(files);
  } finally {
    captured = await capture(files.workspace, repo.base, ctx.task.agent?.files ?? []);
    if (repo.keep_branches && "files" in captured && captured.files.length > 0) {
      const kept = await commitChange(
        files.workspace,
        ctx.task.agent?.files ?? [],
        `switchyard: ${ctx.recordTask}${ctx.key === null ? "" : ` [${ctx.key}]`}, attempt ${attempt} of run ${ctx.env.run}`,
      );
      if ("error" in kept) captured = kept;
    }
    const removed = await gitLocked(repo.path, ["worktree", "remove", "--force", files.workspace]);
    if (!removed.ok) await gitLocked(repo.path, ["worktree", "prune"]);
    if (!repo.keep_branches) await gitLocked(repo.path, ["branch", "-D", branch]);
  }
  mkdirSync(files.workspace, { recursive: true });
  if ("error" in captured) return outcome.status === "passed" ? { ...failed(captured.error), usage: outcome.usage } : outcome;
  const patchFile = join(files.workspace, "changes.patch");
  // A turn that changed nothing leaves no patch file (an empty one fails `git apply`): no `patch`.
  if (captured.patch !== "") writeFileSync(patchFile, captured.patch);
  if (outcome.status !== "passed") {
    // What the failed turn changed is kept for a person to look at (never applied anywhere).
    if (captured.patch === "" || outcome.status !== "failed") return outcome;
    return {
      ...outcome,
      error: `${outcome.error}; what it changed is kept in ${patchFile}${repo.keep_branches ? ` and on branch ${branch}` : ""}`,
    };
  }
  const output = outcome.output as Record<string, unknown>;
  output.files_changed = captured.files;
  if (captured.patch !== "") output.patch = patchFile;
  return outcome;
}

/**
 * With --keep-branches: the captured change (staged by capture(), less the agent's own output
 * files) committed on the attempt's branch, so the branch holds the change, not just the base.
 */
async function commitChange(dir: string, own: string[], message: string): Promise<{ ok: true } | { error: string }> {
  // The agent's own output files go back to what the base has (absent, usually).
  if (own.length > 0) await git(dir, ["reset", "-q", "--", ...own.map((f) => `:(literal)${f}`)]);
  const c = await git(dir, [
    "-c",
    "user.name=switchyard",
    "-c",
    "user.email=switchyard@localhost",
    "commit",
    "-q",
    "--no-verify",
    "--no-gpg-sign",
    "-m",
    message,
  ]);
  return c.ok
    ? { ok: true }
    : { error: `git commit of the change on the kept branch failed in the worktree ${dir}: ${firstLine(c.stderr + c.stdout)}` };
}

/** The worktree's change against `base`, leaving out the agent's own output files. */
async function capture(dir: string, base: string, own: string[]): Promise<{ patch: string; files: string[] } | { error: string }> {
  const add = await git(dir, ["add", "-A"]);
  if (!add.ok) return { error: `git add -A failed in the worktree ${dir}: ${firstLine(add.stderr)}` };
  const paths = ["--", ".", ...own.map((f) => `:(exclude,literal)${f}`)];
  const patch = await git(dir, ["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", base, ...paths]);
  if (!patch.ok) return { error: `git diff against the base failed in the worktree ${dir}: ${firstLine(patch.stderr)}` };
  const names = await git(dir, ["diff", "--cached", "--name-only", "-z", base, ...paths]);
  return {
    patch: patch.stdout,
    files: names.stdout
      .split("\0")
      .filter((n) => n !== "")
      .sort(),
  };
}
