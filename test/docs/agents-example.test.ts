// The end-to-end example of docs/agents/ works as documented. The machine config
// block of every docs/agents/*.md page passes `config check examples/fix-in-worktree` (with fake
// agent CLIs under the real names on PATH), and `switchyard run examples/fix-in-worktree --repo R`
// with the example's own config fixes every ticket of tickets.json in a real temporary git
// repository: each turn in its own worktree, each patch applying to the base, the cost charged to
// the budget, nothing left behind.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fencedBlocks } from "./blocks.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { SqliteStore, showRun } from "../../src/run/index.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";

const BIN = resolve("bin/switchyard.js");
const EXAMPLE = "examples/fix-in-worktree";
const dir = mkdtempSync(join(tmpdir(), "sy-agents-doc-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, PATH: `${fakeAgentBin(dir)}:${process.env.PATH}`, XDG_CONFIG_HOME: join(dir, "no-xdg") };

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A real temporary git repository with the files tickets.json names, committed. */
function ticketRepo(name: string): { repo: string; base: string; tickets: Array<{ id: string; file: string }> } {
  const tickets = JSON.parse(readFileSync(join(EXAMPLE, "tickets.json"), "utf8")) as Array<{ id: string; file: string }>;
  const repo = join(dir, name);
  for (const t of tickets) {
    mkdirSync(dirname(join(repo, t.file)), { recursive: true });
    writeFileSync(join(repo, t.file), `# ${t.id}\n`);
  }
  git(repo, "init", "-q");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  return { repo, base: git(repo, "rev-parse", "HEAD").trim(), tickets };
}

test("every machine config block of docs/agents/*.md passes `config check examples/fix-in-worktree`", () => {
  const { repo } = ticketRepo("check-repo");
  const pages = readdirSync("docs/agents").filter((f) => f.endsWith(".md"));
  assert.ok(pages.length >= 6, `a page per tool: ${pages.join(", ")}`);
  let checked = 0;
  for (const page of pages) {
    const path = join("docs/agents", page);
    for (const b of fencedBlocks(path, readFileSync(path, "utf8")).filter((x) => x.lang === "toml")) {
      const file = join(dir, `${page}-${b.line}.toml`);
      writeFileSync(file, b.text);
      const r = spawnSync(process.execPath, [BIN, "config", "check", EXAMPLE, "--config", file, "--repo", repo], { env, encoding: "utf8" });
      assert.equal(r.status, 0, `${path}:${b.line}: ${r.stdout}${r.stderr}`);
      assert.doesNotMatch(r.stderr, /error\[|warning\[/, `${path}:${b.line}: ${r.stderr}`);
      checked++;
    }
  }
  assert.ok(checked >= 5, `${checked} blocks checked`);
});

test("examples/fix-in-worktree fixes every ticket in its own worktree of a real repository; patches apply to the base; the cost is charged", () => {
  const { repo, base, tickets } = ticketRepo("repo");
  const state = join(dir, "state");
  const r = spawnSync(
    process.execPath,
    [BIN, "run", EXAMPLE, "--config", join(EXAMPLE, "switchyard.toml"), "--repo", repo, "--state-dir", state],
    { env, encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const run = /^run (\S+):/m.exec(r.stdout)?.[1];
  assert.ok(run, r.stdout);
  const store = new SqliteStore(state);
  try {
    const show = showRun(store, run)!;
    assert.equal(show.status, "passed");
    for (const t of tickets) {
      const out = show.tasks.fix!.instances![t.id]!.output as { files_changed: string[]; patch: string; reply: string };
      assert.deepEqual(out.files_changed, [t.file]);
      assert.equal(out.reply, `Edited ${t.file}.`);
      git(repo, "apply", "--check", out.patch);
    }
    assert.ok(
      Math.abs(foldEvents(store, run).spentUsd - tickets.length * 0.00405) < 1e-9, // claude-2.1.197-success: total_cost_usd 0.00405
      "Claude Code's reported cost is charged to budget_usd",
    );
  } finally {
    store.close();
  }
  assert.equal(git(repo, "rev-parse", "HEAD").trim(), base);
  assert.equal(git(repo, "status", "--porcelain").trim(), "", "the repository's own checkout is untouched");
  assert.equal(
    git(repo, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree ")).length,
    1,
  );
  assert.equal(git(repo, "branch", "--list", "switchyard/*").trim(), "");
});
