// A worktree agent cannot make switchyard's own git run a program, nor leave config in the
// person's repository: a real agent script plants, one element each, core.fsmonitor, hooks in
// the repository's hooks folder, core.hooksPath, an external diff, a textconv and a pager, a
// clean/smudge filter with a .gitattributes, worktree-scoped config, and a .git file pointing at
// a repository of its own. Every planted program writes a marker (and its environment) when it
// runs: after the run no marker exists, no environment holds the provider key, and the
// repository's config and hooks are byte for byte what they were before the run.
// One store is enough: what git may run and what an agent leaves in the repository are the subject;
// the store records only the failures, as on any run.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agent, evaluate, harness, mapped, plan, ref, runner, type Harness } from "./helpers.js";
import { admitRun, RunEngine, showRun } from "../../src/run/index.js";

const KEY_ENV = "SY_WORKTREE_TEST_PROVIDER_KEY";
const KEY = "sk-worktree-test-0c7d2e91";
process.env[KEY_ENV] = KEY;

const h: Harness = harness();
after(() => {
  h.store.close();
  h.dir.cleanup();
});

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

const marks = join(h.dir.path, "marks");
mkdirSync(marks);
/** The planted program: leaves a marker holding its environment (a filter also passes its input through). */
const evil = h.dir.file("evil.sh", `#!/bin/sh\nenv > "${marks}/ran-$$"\n`, 0o755);
const evilFilter = h.dir.file("evil-filter.sh", `#!/bin/sh\nenv > "${marks}/ran-$$"\ncat\n`, 0o755);

/** What each element plants, from inside its worktree (`$g` is the repository's .git folder). */
const PLANTS: Record<string, string> = {
  fsmonitor: `git config core.fsmonitor "$evil"`,
  hooks: `for hk in post-checkout post-commit pre-commit commit-msg post-index-change reference-transaction pre-auto-gc; do
  printf '#!/bin/sh\\n"%s" </dev/null\\n' "$evil" > "$g/hooks/$hk"; chmod +x "$g/hooks/$hk"; done`,
  hookspath: `mkdir -p "$HOOKS"; for hk in post-checkout post-commit post-index-change reference-transaction; do
  printf '#!/bin/sh\\n"%s" </dev/null\\n' "$evil" > "$HOOKS/$hk"; chmod +x "$HOOKS/$hk"; done; git config core.hooksPath "$HOOKS"`,
  diff: `git config diff.external "$evil"; git config diff.evil.textconv "$evil"; git config core.pager "$evil"; echo '* diff=evil' > .gitattributes`,
  filter: `git config filter.evil.clean "$filter"; git config filter.evil.smudge "$filter"; git config filter.evil.required true; echo '* filter=evil' > .gitattributes`,
  worktreeconfig: `git config extensions.worktreeConfig true; git config --worktree core.fsmonitor "$evil"`,
  gitfile: `git init -q "$FAKE"; git -C "$FAKE" config core.fsmonitor "$evil"; echo "gitdir: $FAKE/.git" > .git`,
};
const KEYS = Object.keys(PLANTS);

const agentScript = h.dir.file(
  "agent.sh",
  `#!/bin/sh
cat > /dev/null
evil='${evil}'
filter='${evilFilter}'
g=$(cd "$(git rev-parse --git-common-dir)" && pwd)
HOOKS='${h.dir.path}/hooks-'"$SWITCHYARD_KEY"
FAKE='${h.dir.path}/fake-'"$SWITCHYARD_KEY"
echo "changed by $SWITCHYARD_KEY" >> f.txt
case "$SWITCHYARD_KEY" in
${KEYS.map((k) => `  ${k}) ${PLANTS[k]} ;;`).join("\n")}
esac
`,
  0o755,
);

/** The repository's config files and hooks, as bytes, by path under .git. */
function guarded(repo: string): Record<string, string> {
  const out: Record<string, string> = {};
  const gitDir = join(repo, ".git");
  for (const f of ["config", "config.worktree", "info/attributes"])
    out[f] = existsSync(join(gitDir, f)) ? readFileSync(join(gitDir, f), "latin1") : "(absent)";
  for (const n of readdirSync(join(gitDir, "hooks")).sort()) out[`hooks/${n}`] = readFileSync(join(gitDir, "hooks", n), "latin1");
  return out;
}

for (const keep of [false, true])
  test(
    `a worktree agent's planted config, hooks, filters and .git file never run a program from switchyard's git, and the repository's config is put back (keep branches: ${keep})`,
    { timeout: 120000 },
    async () => {
      const { repo, base } = baseRepo(`repo-${keep}`);
      const before = guarded(repo);
      assert.ok(
        Object.keys(before).some((k) => k.startsWith("hooks/")),
        "git made its sample hooks",
      );

      const look = agent("fix", "fix {{key}}", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) });
      look.agent!.workspace = "worktree";
      const p = plan([evaluate("prepare", { emits: { members: "list" } }), look], { concurrency: 1 });
      const run = admitRun(h.store, { plan: p, packDir: h.pack, sourcePath: h.pack, repo: { path: repo, base, keep_branches: keep } });
      const engine = new RunEngine({
        store: h.store,
        run,
        resume: false,
        evaluators: () => () => ({ members: KEYS }),
        agentRunners: runner("default", [agentScript]),
        secretEnv: [KEY_ENV],
      });
      await engine.execute();
      const show = showRun(h.store, run)!;

      const ran = readdirSync(marks).map((m) => readFileSync(join(marks, m), "utf8"));
      assert.equal(
        ran.length,
        0,
        `planted programs ran ${ran.length} times${ran.some((e) => e.includes(KEY)) ? ", with the provider key in their environment" : ""}, in ${[...new Set(ran.map((e) => /^PWD=(.*)$/m.exec(e)?.[1]))].join(", ")}`,
      );
      for (const k of KEYS) {
        const inst = show.tasks.fix!.instances![k]!;
        assert.equal(inst.status, "passed", `${k}: ${inst.error}`);
        const out = inst.output as { files_changed: string[]; patch: string };
        assert.ok(out.files_changed.includes("f.txt"), `${k}: ${JSON.stringify(out.files_changed)}`);
        assert.match(readFileSync(out.patch, "utf8"), new RegExp(`\\+changed by ${k}\\n`), k);
        if (k !== "gitfile") {
          const log = readFileSync(out.patch.replace(/[/\\]changes\.patch$/, ".log"), "utf8");
          assert.match(log, /switchyard: while this turn ran, .* changed in the repository; they were put back/, `${k}: ${log}`);
        }
      }
      assert.deepEqual(guarded(repo), before, "the repository's config and hooks are as they were");
      assert.equal(git(repo, "status", "--porcelain"), "", "the person's checkout is untouched");
      const branches = git(repo, "branch", "--list", "switchyard/*").trim().split("\n").filter(Boolean);
      assert.equal(branches.length, keep ? KEYS.length : 0);
    },
  );

/** A repository with one commit (f.txt), and its base commit. */
function baseRepo(name: string): { repo: string; base: string } {
  const repo = join(h.dir.path, name);
  mkdirSync(repo);
  git(repo, "init", "-q");
  h.dir.file(`${name}/f.txt`, "base\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  return { repo, base: git(repo, "rev-parse", "HEAD").trim() };
}

/** Runs one worktree agent turn of `script` (leaving `files`); returns the run and the task's state. */
async function oneTurn(name: string, script: string, files: string[] = []) {
  const { repo, base } = baseRepo(name);
  const fix = agent("fix", "fix it", { files });
  fix.agent!.workspace = "worktree";
  const run = admitRun(h.store, {
    plan: plan([fix]),
    packDir: h.pack,
    sourcePath: h.pack,
    repo: { path: repo, base, keep_branches: false },
  });
  await new RunEngine({
    store: h.store,
    run,
    resume: false,
    evaluators: () => () => ({}),
    agentRunners: runner("default", [script]),
  }).execute();
  return { repo, run, inst: showRun(h.store, run)!.tasks.fix! };
}

/** The repository has only its own checkout and no switchyard branch left. */
function noWorktreeLeft(repo: string): void {
  assert.equal(git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length, 1, "the worktree is gone");
  assert.equal(git(repo, "branch", "--list", "switchyard/*").trim(), "", "its branch is deleted");
}

test(
  "a worktree agent that replaces its worktree folder by a link fails with workspace-replaced; the link's target is neither staged nor removed",
  { timeout: 120000 },
  async () => {
    const outside = join(h.dir.path, "outside-swap");
    mkdirSync(outside);
    h.dir.file("outside-swap/secret.txt", "secret-of-the-test\n");
    const script = h.dir.file(
      "swap.sh",
      `#!/bin/sh\ncat > /dev/null\necho changed >> f.txt\ncd /; rm -rf "$SWITCHYARD_WORKSPACE"; ln -s '${outside}' "$SWITCHYARD_WORKSPACE"\n`,
      0o755,
    );
    const { repo, run, inst } = await oneTurn("repo-swap", script, ["secret.txt"]);
    assert.equal(inst.status, "failed");
    assert.match(
      inst.error ?? "",
      /^workspace-replaced: the worktree folder .* was replaced by a symbolic link to .*outside-swap while the agent worked; nothing of it was captured/,
    );
    for (const e of h.store.events(run)) assert.ok(!JSON.stringify(e.payload).includes("secret-of-the-test"), e.type);
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret-of-the-test\n", "the link's target is untouched");
    assert.deepEqual(readdirSync(outside), ["secret.txt"], "nothing was written through the link");
    noWorktreeLeft(repo);
  },
);

test(
  "a worktree agent that removes its worktree folder fails with worktree-failed, not a crash, and leaves no worktree or branch",
  { timeout: 120000 },
  async () => {
    const script = h.dir.file("remove.sh", `#!/bin/sh\ncat > /dev/null\ncd /; rm -rf "$SWITCHYARD_WORKSPACE"\n`, 0o755);
    const { repo, inst } = await oneTurn("repo-removed", script);
    assert.match(inst.error ?? "", /^worktree-failed: git add -A failed in the worktree /);
    noWorktreeLeft(repo);
  },
);
