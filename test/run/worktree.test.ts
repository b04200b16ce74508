// Agents in git worktrees of a real temporary repository, through the real CLI
// with a fake `claude` on PATH. 12 elements at concurrency 4 (three rounds of four worktrees made
// and removed at once) each edit a different file; every patch applies cleanly to the base;
// killed (kill -9) mid-run and resumed after the repository's HEAD moved, every turn still starts
// from the recorded base; no worktree or branch is left.
// One store is enough: git's worktrees, branches and patches are the subject; the recorded base is an event
// field like any other, and resume on PostgreSQL is test/run/crash's and test/run/resume's.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { showRun } from "../../src/run/index.js";
import { stateDirArg, storeEnv, storeIn } from "../support/test-store.js";
import type { EventPayloads } from "../../src/run/index.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-worktree-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const PATH = `${fakeAgentBin(dir, ["claude"])}:${process.env.PATH}`;
const KEYS = Array.from({ length: 12 }, (_, i) => `k${String(i).padStart(2, "0")}`);

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function setup(
  name: string,
  agentEnv: string,
  keys: string[] = KEYS,
): { repo: string; base: string; pack: string; config: string; state: string; log: string } {
  const root = join(dir, name);
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q");
  for (const k of keys) writeFileSync(join(repo, `f${k}.txt`), `line 1 of ${k}\nline 2 of ${k}\n`);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  const base = git(repo, "rev-parse", "HEAD").trim();
  const pack = join(root, "pack");
  mkdirSync(pack);
  writeFileSync(
    join(pack, "main.star"),
    `playbook(description = "worktree fixture", concurrency = 4)
prepare = command(name = "prepare", run = """printf '%s' '{"members": ${JSON.stringify(keys).replace(/"/g, '\\"')}}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
fix = agent(name = "fix", depends_on = [prepare], over = prepare.members, max_fanout = 50, runner = "claude",
    workspace = "worktree", prompt = "Fix the file.\\nEDIT f{{key}}.txt\\nWRITE RESULT.txt\\n", files = ["RESULT.txt"])
`,
  );
  const log = join(root, "calls.jsonl");
  const config = join(root, "config.toml");
  writeFileSync(config, `[agents.claude]\npreset = "claude-code"\nenv = { FAKE_AGENT_LOG = ${JSON.stringify(log)}${agentEnv} }\n`);
  return { repo, base, pack, config, state: join(root, "state"), log };
}

function sy(args: string[]): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...storeEnv(stateDirArg(args)), PATH, XDG_CONFIG_HOME: join(dir, "no-xdg") },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return { child, done: new Promise((ok) => child.on("close", (code) => ok({ code, stdout, stderr }))) };
}

function checkFinished(s: ReturnType<typeof setup>, run: string): void {
  const store = storeIn(s.state);
  try {
    const show = showRun(store, run)!;
    assert.equal(show.status, "passed");
    const admitted = [...store.events(run)].find((e) => e.type === "plan_admitted")!.payload as EventPayloads["plan_admitted"];
    assert.equal(admitted.repo?.base, s.base, "the base commit is recorded in plan_admitted");
    // Every patch applies cleanly, one after the other, to a checkout of the base.
    const check = join(dir, `check-${run}`);
    git(dir, "clone", "-q", s.repo, check);
    git(check, "checkout", "-q", s.base);
    for (const k of KEYS) {
      const out = show.tasks.fix!.instances![k]!.output as { files_changed: string[]; patch: string; files: Record<string, unknown> };
      assert.deepEqual(
        out.files_changed,
        [`f${k}.txt`],
        `${k} changed only its own file (RESULT.txt is the agent's output, not the patch)`,
      );
      assert.ok(existsSync(out.patch), out.patch);
      git(check, "apply", "--check", out.patch);
      git(check, "apply", out.patch);
      assert.equal(readFileSync(join(check, `f${k}.txt`), "utf8"), `line 1 of ${k}\nline 2 of ${k}\nfixed by claude\n`);
      assert.equal(out.files["RESULT.txt"], "written by claude\n");
    }
  } finally {
    store.close();
  }
  const worktrees = git(s.repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "));
  assert.equal(worktrees.length, 1, `no stray worktree: ${worktrees.join(", ")}`);
  assert.equal(git(s.repo, "branch", "--list", "switchyard/*").trim(), "", "attempt branches were deleted");
  // Every turn ran on the base commit.
  const calls = readFileSync(s.log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { head: string | null });
  assert.ok(calls.length >= KEYS.length);
  for (const c of calls) assert.equal(c.head, s.base);
}

test("12 worktree agents at concurrency 4 each edit their own file; every patch applies to the base; nothing is left behind", async () => {
  const s = setup("plain", "");
  const r = await sy(["run", s.pack, "--state-dir", s.state, "--config", s.config, "--repo", s.repo, "--json"]).done;
  assert.equal(r.code, 0, r.stderr + r.stdout.slice(-3000));
  const run = /"run":\s*"([^"]+)"/.exec(r.stdout)?.[1];
  assert.ok(run, r.stdout.slice(0, 400));
  checkFinished(s, run);
});

/** Whether a process with FAKE_AGENT_LOG=log in its environment (a fake agent of that setup) still runs. */
function agentsLoggingTo(log: string): boolean {
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`FAKE_AGENT_LOG=${log}`)) return true;
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return false;
}

test("killed mid-run with kill -9 and resumed after HEAD moved, the turns use the recorded base; no stray worktree", async () => {
  const s = setup("killed", `, FAKE_AGENT_SLEEP_MS = "300"`);
  const first = sy(["run", s.pack, "--state-dir", s.state, "--config", s.config, "--repo", s.repo]);
  let run: string | undefined;
  for (let i = 0; i < 600; i++) {
    await new Promise((ok) => setTimeout(ok, 50));
    const lines = existsSync(s.log) ? readFileSync(s.log, "utf8").trim().split("\n").length : 0;
    if (lines >= KEYS.length / 2) break;
  }
  first.child.kill("SIGKILL");
  const killed = await first.done;
  run = /^run (\S+):/m.exec(killed.stdout)?.[1];
  assert.ok(run, killed.stdout);
  // The orphaned turns (their agents outlive the killed engine) finish before the repository moves.
  while (agentsLoggingTo(s.log)) await new Promise((ok) => setTimeout(ok, 20));
  // The repository moves on: every file changes and HEAD is a new commit.
  for (const k of KEYS) writeFileSync(join(s.repo, `f${k}.txt`), `moved ${k}\n`);
  git(s.repo, "commit", "-q", "-am", "moved");
  assert.notEqual(git(s.repo, "rev-parse", "HEAD").trim(), s.base);
  const callsBefore = readFileSync(s.log, "utf8").trim().split("\n").length;
  const resumed = await sy(["resume", run, "--state-dir", s.state, "--config", s.config]).done;
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.ok(
    readFileSync(s.log, "utf8").trim().split("\n").length > callsBefore,
    "the resume took the turns the killed run had not finished",
  );
  checkFinished(s, run);
});

test("a failed worktree turn — the worktree is removed; its change is kept as changes.patch and, with --keep-branches, committed on its branch", async () => {
  const keys = ["ka", "kb"];
  const s = setup("failed", `, FAKE_AGENT_MODE = "error"`, keys);
  const r = await sy(["run", s.pack, "--state-dir", s.state, "--config", s.config, "--repo", s.repo, "--keep-branches", "--json"]).done;
  assert.notEqual(r.code, 0, "the run fails");
  const run = /"run":\s*"([^"]+)"/.exec(r.stdout)?.[1];
  assert.ok(run, r.stdout.slice(0, 400));
  const store = storeIn(s.state);
  let errors: Record<string, string>;
  try {
    const show = showRun(store, run)!;
    errors = Object.fromEntries(keys.map((k) => [k, show.tasks.fix!.instances![k]!.error ?? ""]));
  } finally {
    store.close();
  }
  for (const k of keys) {
    const err = errors[k]!;
    assert.match(err, /Claude Code/);
    const kept = /what it changed is kept in (\S+changes\.patch) and on branch (switchyard\/\S+\/a1)$/.exec(err);
    assert.ok(kept, err);
    const [, patch, branch] = kept;
    assert.match(readFileSync(patch!, "utf8"), new RegExp(`\\+fixed by claude`));
    assert.equal(
      git(s.repo, "diff", "--name-only", s.base, branch!).trim(),
      `f${k}.txt`,
      "the kept branch holds the change, without the agent's own RESULT.txt",
    );
    assert.equal(git(s.repo, "rev-parse", `${branch}~1`).trim(), s.base, "one commit on top of the base");
  }
  const worktrees = git(s.repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "));
  assert.equal(worktrees.length, 1, `no stray worktree: ${worktrees.join(", ")}`);
  assert.equal(git(s.repo, "status", "--porcelain").trim(), "", "the repository's own checkout is untouched");
});

test("two runs at once on the same repository, 6 worktree agents each at concurrency 4: no lock failure, nothing left behind", async () => {
  const keys = KEYS.slice(0, 6);
  const s = setup("two-runs", "", keys);
  const runs = await Promise.all(
    ["a", "b"].map((n) => sy(["run", s.pack, "--state-dir", `${s.state}-${n}`, "--config", s.config, "--repo", s.repo, "--json"]).done),
  );
  for (const [i, r] of runs.entries()) {
    assert.equal(r.code, 0, r.stderr + r.stdout.slice(-2000));
    const run = /"run":\s*"([^"]+)"/.exec(r.stdout)?.[1];
    assert.ok(run);
    const store = storeIn(`${s.state}-${["a", "b"][i]}`);
    try {
      const show = showRun(store, run)!;
      for (const k of keys) {
        const out = show.tasks.fix!.instances![k]!.output as { files_changed: string[]; patch: string };
        assert.deepEqual(out.files_changed, [`f${k}.txt`]);
        git(s.repo, "apply", "--check", out.patch);
      }
    } finally {
      store.close();
    }
  }
  const worktrees = git(s.repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "));
  assert.equal(worktrees.length, 1, `no stray worktree: ${worktrees.join(", ")}`);
  assert.equal(git(s.repo, "branch", "--list", "switchyard/*").trim(), "");
});
