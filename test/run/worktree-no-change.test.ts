// A worktree turn that changes nothing leaves no patch: no changes.patch file and no
// `patch` in its output (`files_changed` is []), so the documented loop
// `for p in $(switchyard show RUN --json | jq -r '.tasks.fix.instances[].output.patch // empty'); do git apply "$p"; done`
// applies the turns that did change something and skips the rest (git apply fails on an empty file).
// Through the real CLI with the fake `claude` (a recording of Claude Code 2.1.197) on PATH.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { storeEnv, storeIn } from "../support/test-store.js";
import { showRun } from "../../src/run/store/show.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-worktree-nochange-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

test("a worktree turn that changes nothing has files_changed [] and no patch; one that changes a file has a patch that applies", () => {
  const repo = join(dir, "repo");
  mkdirSync(repo);
  git(repo, "init", "-q");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  const pack = join(dir, "pack");
  mkdirSync(pack);
  writeFileSync(
    join(pack, "main.star"),
    `playbook(description = "no change fixture")
prepare = command(name = "prepare", run = """printf '%s' '{"members": ["nothing", "EDIT a.txt"]}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
fix = agent(name = "fix", depends_on = [prepare], over = prepare.members, max_fanout = 5, runner = "claude",
    workspace = "worktree", prompt = "{{key}}\\n")
`,
  );
  const config = join(dir, "config.toml");
  writeFileSync(config, `[agents.claude]\npreset = "claude-code"\n`);
  const state = join(dir, "state");
  const r = spawnSync(process.execPath, [BIN, "run", pack, "--state-dir", state, "--config", config, "--repo", repo], {
    encoding: "utf8",
    env: {
      ...process.env,
      ...storeEnv(state),
      PATH: `${fakeAgentBin(dir, ["claude"])}:${process.env.PATH}`,
      XDG_CONFIG_HOME: join(dir, "no-xdg"),
      GIT_CEILING_DIRECTORIES: dirname(dir),
    },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const run = /^run (\S+):/m.exec(r.stdout)![1]!;
  const store = storeIn(state);
  try {
    const show = showRun(store, run)!;
    const same = show.tasks.fix!.instances!.nothing!.output as Record<string, unknown>;
    const edit = show.tasks.fix!.instances!["EDIT a.txt"]!.output as Record<string, unknown>;
    assert.deepEqual(same.files_changed, []);
    assert.equal("patch" in same, false, "no patch for a turn that changed nothing");
    assert.deepEqual(edit.files_changed, ["a.txt"]);
    assert.ok(typeof edit.patch === "string" && existsSync(edit.patch));
    // The attempt folder (its workspace) of "nothing" sits beside the edit's: it has no changes.patch.
    const nothing = join(dirname(dirname(edit.patch)), "nothing.a1");
    assert.ok(existsSync(nothing), nothing);
    assert.equal(existsSync(join(nothing, "changes.patch")), false);
    git(repo, "apply", "--check", edit.patch);
  } finally {
    store.close();
  }
});
