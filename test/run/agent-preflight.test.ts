// D-40: `run` refuses, before the first decision or turn, a pack whose agent work
// cannot happen — each refusal naming the fix, with the decision server counting zero requests
// and no run admitted. Through the real CLI in a child process (detached: no controlling
// terminal, as under CI).
// One store is enough: the refusals before anything is admitted are the subject; the one resume
// reads its run as every resume does (test/run/resume and test/run/crash, on both stores).

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { stateDirArg, storeEnv, storeIn } from "../support/test-store.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-preflight-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const fakes = fakeAgentBin(dir, ["claude"]);
/** PATH with git and the fake claude, without any codex. */
const PATH = `${fakes}:${dirname(process.execPath)}:/usr/bin:/bin`;

function pack(name: string, agentArgs: string): string {
  const p = join(dir, name);
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "main.star"),
    `playbook(description = "preflight fixture")
prepare = command(name = "prepare", run = "printf '{\\"members\\": [\\"a\\", \\"b\\"]}' > \\"$SWITCHYARD_OUTPUT\\"", emits = {"members": "list"})
gate = route(name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    questions = {"exploitable": noul(ask = "Exploitable?", drop = ["no", "uncertain"])})
fix = agent(name = "fix", depends_on = [prepare, gate], over = prepare.members, max_fanout = 10,
    when = gate.exploitable, answers = "yes", prompt = "EDIT f.txt", ${agentArgs})
`,
  );
  return p;
}

function sy(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
      // The temporary folder may sit inside a checkout: git must not look above it.
      env: {
        ...process.env,
        ...(args.includes("--state-dir") ? storeEnv(stateDirArg(args)) : {}),
        PATH,
        XDG_CONFIG_HOME: join(dir, "no-xdg"),
        S1_KEY: "k",
        GIT_CEILING_DIRECTORIES: dirname(dir),
      },
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => done({ code, stderr }));
  });
}

function gitRepo(name: string): string {
  const r = join(dir, name);
  mkdirSync(r, { recursive: true });
  const g = (...a: string[]) => assert.equal(spawnSync("git", a, { cwd: r }).status, 0, a.join(" "));
  g("init", "-q");
  writeFileSync(join(r, "f.txt"), "base\n");
  g("add", "f.txt");
  g("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base");
  return r;
}

const cases: Array<{ name: string; agent: string; config: string; extra?: string[]; cwd?: () => string; expect: RegExp[] }> = [
  {
    name: "an agent task naming a runner the config does not define",
    agent: `runner = "claud"`,
    config: `[agents.claude]\npreset = "claude-code"\n`,
    expect: [
      /agent task fix uses runner "claud", which the machine config does not define \(did you mean "claude"\?\)/,
      /add \[agents\.claud\]/,
    ],
  },
  {
    name: "a preset whose executable is not on PATH",
    agent: `runner = "cx"`,
    config: `[agents.cx]\npreset = "codex"\n`,
    expect: [
      /agent runner "cx" \(Codex CLI\) cannot be started: "codex" is not on PATH; install Codex CLI, or set command = \["\/path\/to\/codex"\] in \[agents\.cx\]/,
    ],
  },
  {
    name: 'a host of "tty" with no terminal while a type is in host mode',
    agent: `runner = "claude"`,
    config: `[agents.claude]\npreset = "claude-code"\n[decisions]\ndefault = "host"\n`,
    expect: [
      /the host answers judgement type main\.gate\.exploitable .* the host is "tty", but switchyard has no terminal to ask at; set \[decisions\] host = "NAME"/,
    ],
  },
  {
    name: "a worktree task outside any git repository",
    agent: `runner = "claude", workspace = "worktree"`,
    config: `[agents.claude]\npreset = "claude-code"\n`,
    cwd: () => {
      const d = join(dir, "not-a-repo");
      mkdirSync(d, { recursive: true });
      return d;
    },
    expect: [
      /agent task fix works in a git worktree .* is not inside a git repository; run from inside the repository or pass --repo PATH/,
    ],
  },
  {
    name: "a worktree task on a dirty repository",
    agent: `runner = "claude", workspace = "worktree"`,
    config: `[agents.claude]\npreset = "claude-code"\n`,
    cwd: () => {
      const r = gitRepo("dirty");
      writeFileSync(join(r, "f.txt"), "changed\n");
      return r;
    },
    expect: [/has uncommitted changes \(f\.txt\); commit or stash them/],
  },
  {
    name: "a worktree task whose --repo is missing",
    agent: `runner = "claude", workspace = "worktree"`,
    config: `[agents.claude]\npreset = "claude-code"\n`,
    extra: ["--repo", join(dir, "nowhere")],
    expect: [/nowhere does not exist; fix --repo/],
  },
];

for (const [i, c] of cases.entries()) {
  test(`preflight: ${c.name} is refused before any decision (the server counts zero)`, async () => {
    const server = await startSystemOneServer();
    try {
      const p = pack(`pack${i}`, c.agent);
      const state = join(dir, `state${i}`);
      const configFile = join(dir, `config${i}.toml`);
      const turnedOn = /default = "host"/.test(c.config) ? "" : `[decisions.types]\n"main.gate.exploitable" = "s1/decider-2b"\n`;
      writeFileSync(configFile, `${systemOneProviderToml(server.url, "S1_KEY", 'models = ["decider-2b"]')}\n${c.config}\n${turnedOn}`);
      const r = await sy(["run", p, "--state-dir", state, "--config", configFile, ...(c.extra ?? [])], c.cwd?.() ?? dir);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /error\[agent-preflight\]: preflight: this run cannot do its agent work/);
      for (const e of c.expect) assert.match(r.stderr, e);
      assert.equal(server.count(), 0, "no decision request was made");
      const runs = join(state, "runs");
      assert.ok(!existsSync(runs) || readdirSync(runs).length === 0, "no run was admitted");
    } finally {
      await server.close();
    }
  });
}

test("preflight on resume: a runner the config no longer defines, or a recorded repository that is gone, is refused before anything resumes", async () => {
  const repo = gitRepo("resume-repo");
  const p = join(dir, "resume-pack");
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "main.star"),
    `playbook(description = "resume preflight fixture")
fix = agent(name = "fix", runner = "claude", workspace = "worktree", prompt = "EDIT f.txt")
`,
  );
  const state = join(dir, "resume-state");
  const failing = join(dir, "resume-failing.toml");
  writeFileSync(failing, `[agents.claude]\npreset = "claude-code"\nenv = { FAKE_AGENT_MODE = "error" }\n`);
  const first = await sy(["run", p, "--state-dir", state, "--config", failing, "--repo", repo], dir);
  assert.equal(first.code, 1, first.stderr);
  const eventsNow = (): number => {
    const store = storeIn(state);
    try {
      return store.eventCount(store.latestRun()!);
    } finally {
      store.close();
    }
  };
  const before = eventsNow();

  const other = join(dir, "resume-other.toml");
  writeFileSync(other, `[agents.claud]\npreset = "claude-code"\n`);
  const r1 = await sy(["resume", "latest", "--state-dir", state, "--config", other], dir);
  assert.equal(r1.code, 2, r1.stderr);
  assert.match(r1.stderr, /error\[agent-preflight\]: preflight: this run cannot resume its agent work/);
  assert.match(r1.stderr, /agent task fix uses runner "claude", which the machine config does not define \(did you mean "claud"\?\)/);

  rmSync(repo, { recursive: true, force: true });
  const r2 = await sy(["resume", "latest", "--state-dir", state, "--config", failing], dir);
  assert.equal(r2.code, 2, r2.stderr);
  assert.match(
    r2.stderr,
    /works in a git worktree at the run's recorded base, but the run's repository .*resume-repo no longer exists; restore the repository, or start a new run/,
  );
  assert.equal(eventsNow(), before, "nothing was run or recorded");
});
