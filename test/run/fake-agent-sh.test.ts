// The fake agent CLIs fakeAgentBin puts on PATH are shell scripts (test/support/fake-agent-sh.ts)
// that answer `--version` and most turns themselves and hand every other call to the Node fake
// (test/support/fake-agent-cli.ts), which replays the real tools' recordings.
//
// A call the shell answers is made of both fakes, on the same argv, environment, prompt and
// working folder: the shell's stdout, stderr, exit status, files and log line are the Node fake's,
// byte for byte. Node is made unable to start for the shell (NODE_OPTIONS requires a file that does
// not exist), so an equal answer cannot have come from the Node fake.
//
// A call the shell must hand over (paths with odd characters or that might fail, odd bytes in the
// prompt or the settings, an argv the Node fake refuses, a mode it does not answer) is made of a
// shell fake whose "Node fake" is a stand-in that records how it was started: it must get the
// call's argv and the prompt's very bytes on stdin, with nothing done before (no file written, no
// log line); a call the shell has counted (FAKE_AGENT_COUNTER) hands over the mode its number gave
// instead of the counter. Such calls are then the Node fake's own; two of them are also made of
// both fakes and compared.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "./helpers.js";
import { fakeAgentBin, nodeFakeBin } from "../support/fake-agent-bin.js";
import { recording, type FakeTool } from "../support/fake-agent-output.js";
import { quoted, shellFake } from "../support/fake-agent-sh.js";
import { answerOf, files, handedOver, NO_NODE, standIn } from "../support/shell-fakes.js";

/** The argv each preset builds (src/run/agents/presets), the prompt on stdin unless said. */
const ARGV: Record<FakeTool, string[]> = {
  claude: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--effort", "medium", "--max-turns", "30"],
  codex: ["exec", "--json", "--sandbox", "workspace-write", "--skip-git-repo-check", "-c", "model_reasoning_effort=medium", "-"],
  gemini: ["--output-format", "json", "--approval-mode", "auto_edit", "--prompt", ""],
  opencode: ["run", "--format", "json"],
  qwen: ["--output-format", "json", "--approval-mode", "auto-edit"],
  aider: ["--yes-always", "--no-auto-commits", "--no-stream", "--no-pretty", "--no-check-update", "--message-file", "PROMPT.md"],
};
const TOOLS = Object.keys(ARGV) as FakeTool[];
/** The environment each preset adds. */
const PRESET_ENV: Partial<Record<FakeTool, Record<string, string>>> = { gemini: { GEMINI_CLI_TRUST_WORKSPACE: "true" } };
/** What the engine puts in an agent's environment, with a question as the host gets it. */
const CONTEXT = {
  SWITCHYARD_RUN: "run-1",
  SWITCHYARD_TASK: "fix",
  SWITCHYARD_KEY: "k001",
  SWITCHYARD_QUESTION: JSON.stringify({ id: "q1", ask: 'Is it "exploitable"? (a \\ b)', labels: ["yes", "no"] }),
  SWITCHYARD_EMPTY: "",
};

interface Case {
  name: string;
  tool: FakeTool;
  argv?: string[];
  /** stdin (aider: the message file's contents) */
  prompt: string;
  /** (undefined: not set) */
  env?: Record<string, string | undefined>;
  /** FAKE_AGENT_LOG set, and the context above in the environment */
  log?: boolean;
  /** the working folder is outside any git repository (else in one with a commit) */
  noGit?: boolean;
  /** calls FAKE_AGENT_COUNTER=.count has counted before this one */
  taken?: number;
}

/**
 * A call the shell hands over: with the mode its count gave (`pinned`), the stdin the Node fake
 * gets where it is not the prompt (`arrives`), and also compared with the Node fake (`compare`).
 */
interface HandOver extends Case {
  pinned?: string;
  arrives?: string;
  compare?: boolean;
}

const WORK = "Fix ticket k001.\nWRITE a/b/c.txt\nEDIT seed.txt\nEDIT a/b/c.txt";

/** Calls the shell answers itself. */
const ANSWERED: Case[] = [
  // Each tool's turn that works (with its log line) and --version.
  ...TOOLS.flatMap((tool): Case[] => [
    {
      name: `${tool}: a WRITE and EDITs in subfolders, a log line, in a git repository, the engine's context`,
      tool,
      prompt: WORK,
      log: true,
    },
    { name: `${tool}: --version`, tool, argv: ["--version"], prompt: "" },
  ]),
  // Every other mode a shell fake answers: each tool's recorded failures (its work done first, as
  // the Node fake does it), the 429s derived from them, the replies of refusals.
  ...(
    [
      ["claude", ["error", "api-error", "rate-limit", "refused"]],
      ["codex", ["error", "api-error", "api-error-500", "rate-limit"]],
      ["gemini", ["error", "api-error", "rate-limit"]],
      ["opencode", ["api-error", "refused"]],
      ["qwen", ["error", "api-error"]],
      ["aider", ["malformed"]],
    ] as const
  ).flatMap(([tool, modes]) =>
    modes.map((mode): Case => ({
      name: `${tool}: FAKE_AGENT_MODE=${mode}`,
      tool,
      prompt: "WRITE q\nEDIT seed.txt\n",
      env: { FAKE_AGENT_MODE: mode },
    })),
  ),
  {
    name: "a 429's delay with quotes and a backslash",
    tool: "codex",
    prompt: "",
    env: { FAKE_AGENT_MODE: "rate-limit", FAKE_AGENT_RETRY_IN: '0.5s "or" \\ so' },
  },
  {
    name: "a 429 with a log",
    tool: "gemini",
    prompt: "WRITE q",
    log: true,
    env: { FAKE_AGENT_MODE: "rate-limit", FAKE_AGENT_RETRY_IN: "5ms" },
  },
  // The counter: this call's number picks its mode.
  ...[1, 5].map((taken): Case => ({
    name: `FAKE_AGENT_MODES, call ${taken + 1}`,
    tool: "claude",
    prompt: "WRITE q\n",
    env: { FAKE_AGENT_MODES: "ok,error", FAKE_AGENT_COUNTER: ".count", FAKE_AGENT_REPLY: "billing" },
    taken,
    log: true,
  })),
  ...[2, 3].map((taken): Case => ({
    name: `FAKE_AGENT_RATE_LIMITS=3, call ${taken + 1}`,
    tool: "gemini",
    prompt: "WRITE q\n",
    env: { FAKE_AGENT_RATE_LIMITS: "03", FAKE_AGENT_COUNTER: ".count", FAKE_AGENT_RETRY_IN: "0.01s" },
    taken,
  })),
  {
    name: "FAKE_AGENT_RATE_LIMITS before FAKE_AGENT_MODES",
    tool: "codex",
    prompt: "",
    env: { FAKE_AGENT_RATE_LIMITS: "1", FAKE_AGENT_MODES: "error", FAKE_AGENT_COUNTER: ".count" },
  },
  {
    name: "FAKE_AGENT_MODES without a counter",
    tool: "qwen",
    prompt: "",
    env: { FAKE_AGENT_MODES: "error", FAKE_AGENT_MODE: "api-error" },
  },
  // Argvs, settings and prompts at the edges of what the shell answers.
  {
    name: "claude: the flags in another order, more of them; FAKE_AGENT_MODE=ok; nothing to edit, outside git",
    tool: "claude",
    argv: ["--effort", "max", "--model", "sonnet", "--permission-mode", "acceptEdits", "-p", "--output-format", "json"],
    prompt: "Just say hello.\n",
    env: { FAKE_AGENT_MODE: "ok" },
    noGit: true,
  },
  {
    name: "claude: FAKE_AGENT_REPLY with quotes and a backslash; lines that are not work — a space or tab in the path, no path, no space after the verb, an indent",
    tool: "claude",
    prompt: "WRITE two words\nWRITE  z\nEDIT a\tb\nEDIT \nEDITx y\n  WRITE w\nwrite lower\nWRITE x",
    env: { FAKE_AGENT_REPLY: 'say "yes" \\ no' },
  },
  {
    name: "codex: FAKE_AGENT_REPLY set and empty; a log with SWITCHYARD_KEY empty",
    tool: "codex",
    prompt: "WRITE q\n",
    log: true,
    env: { FAKE_AGENT_REPLY: "", SWITCHYARD_KEY: "" },
  },
  { name: "aider: FAKE_AGENT_REPLY", tool: "aider", prompt: "WRITE q\n", env: { FAKE_AGENT_REPLY: "Done, 'all' of it." } },
  {
    name: "claude: a log outside git, without SWITCHYARD_KEY",
    tool: "claude",
    prompt: "WRITE n.txt",
    log: true,
    noGit: true,
    env: { SWITCHYARD_KEY: undefined },
  },
  {
    name: "qwen: a prompt of UTF-8 text (no log); a file EDITed twice, a file WRITten over",
    tool: "qwen",
    prompt: "Corrige le café — vite.\nEDIT seed.txt\nEDIT seed.txt\nWRITE sub/keep.txt\n",
  },
  {
    name: "--version of FAKE_AGENT_VERSION, whatever the turn's settings",
    tool: "gemini",
    argv: ["--version"],
    prompt: "",
    env: { FAKE_AGENT_VERSION: "0.62.0", FAKE_AGENT_MODE: "error", FAKE_AGENT_SLEEP_MS: "5000" },
  },
  { name: "--version of an empty FAKE_AGENT_VERSION", tool: "codex", argv: ["--version"], prompt: "", env: { FAKE_AGENT_VERSION: "" } },
  {
    name: "gemini: the --prompt value follows stdin; --skip-trust instead of the environment",
    tool: "gemini",
    argv: ["--skip-trust", "--output-format", "json", "--approval-mode", "auto_edit", "--prompt", "WRITE from-arg.txt"],
    prompt: "Fix it.\n",
    env: { GEMINI_CLI_TRUST_WORKSPACE: "false" },
    log: true,
  },
  {
    name: "codex: more arguments before the prompt's -",
    tool: "codex",
    argv: [
      "exec",
      "--json",
      "--sandbox",
      "workspace-write",
      "--skip-git-repo-check",
      "-m",
      "gpt-6",
      "-c",
      "model_reasoning_effort=low",
      "-",
    ],
    prompt: "WRITE m.txt",
  },
];

/** Calls the shell hands over. */
const HANDED: HandOver[] = [
  // Settings the Node fake follows.
  { name: "FAKE_AGENT_MODE set and empty", tool: "opencode", prompt: "WRITE q\n", env: { FAKE_AGENT_MODE: "" } },
  { name: "a mode the tool does not have", tool: "opencode", prompt: "WRITE q\n", env: { FAKE_AGENT_MODE: "rate-limit" } },
  { name: "FAKE_AGENT_MODE=truncated", tool: "claude", prompt: "WRITE q\n", env: { FAKE_AGENT_MODE: "truncated" } },
  { name: "FAKE_AGENT_SLEEP_MS", tool: "aider", prompt: "WRITE q\n", env: { FAKE_AGENT_SLEEP_MS: "1" } },
  {
    name: "FAKE_AGENT_RATE_LIMITS not a number",
    tool: "claude",
    prompt: "",
    env: { FAKE_AGENT_RATE_LIMITS: "1e1", FAKE_AGENT_COUNTER: ".count" },
  },
  { name: "FAKE_AGENT_REPLY beyond ASCII", tool: "claude", prompt: "WRITE q\n", env: { FAKE_AGENT_REPLY: "Café." } },
  { name: "FAKE_AGENT_REPLY of two lines", tool: "codex", prompt: "", env: { FAKE_AGENT_REPLY: "one\ntwo" } },
  { name: "a 429's delay with a $", tool: "gemini", prompt: "", env: { FAKE_AGENT_MODE: "rate-limit", FAKE_AGENT_RETRY_IN: "$&s" } },
  {
    name: "--version of a FAKE_AGENT_VERSION beyond ASCII",
    tool: "claude",
    argv: ["--version"],
    prompt: "",
    env: { FAKE_AGENT_VERSION: "2.2.0-β" },
  },
  // An argv the Node fake refuses.
  { name: "claude: --version and more", tool: "claude", argv: ["--version", "-p"], prompt: "" },
  { name: "claude: an unknown effort", tool: "claude", argv: [...ARGV.claude.slice(0, 6), "extreme"], prompt: "WRITE q" },
  { name: "claude: --effort last", tool: "claude", argv: [...ARGV.claude.slice(0, 6)], prompt: "" },
  { name: "claude: no -p", tool: "claude", argv: ARGV.claude.slice(1), prompt: "WRITE q" },
  {
    name: "claude: --output-format apart from json",
    tool: "claude",
    argv: ["-p", "--output-format", "-p", "json", ...ARGV.claude.slice(3)],
    prompt: "",
  },
  { name: "codex: --full-auto", tool: "codex", argv: [...ARGV.codex.slice(0, -1), "--full-auto", "-"], prompt: "WRITE q" },
  { name: "codex: exec not first", tool: "codex", argv: ["--json", ...ARGV.codex.filter((a) => a !== "--json")], prompt: "" },
  { name: "codex: the prompt not on stdin", tool: "codex", argv: [...ARGV.codex.slice(0, -1), "WRITE q"], prompt: "" },
  { name: "codex: no effort", tool: "codex", argv: [...ARGV.codex.slice(0, 5), "-"], prompt: "" },
  { name: "gemini: an untrusted folder", tool: "gemini", prompt: "WRITE q", env: { GEMINI_CLI_TRUST_WORKSPACE: "yes" } },
  { name: "gemini: no --prompt value", tool: "gemini", argv: ARGV.gemini.slice(0, -1), prompt: "WRITE q" },
  { name: "opencode: run --format json apart", tool: "opencode", argv: ["run", "--format", "text", "json"], prompt: "" },
  { name: "qwen: another approval mode", tool: "qwen", argv: ["--output-format", "json", "--approval-mode", "yolo"], prompt: "" },
  { name: "aider: no message file", tool: "aider", argv: ARGV.aider.slice(0, -2), prompt: "WRITE q" },
  { name: "aider: a message file that is not there", tool: "aider", argv: [...ARGV.aider.slice(0, -1), "MISSING.md"], prompt: "" },
  // A prompt the shell reads and then hands over with its very bytes.
  { name: "a path with a quote", tool: "claude", prompt: "WRITE it's.txt\n" },
  { name: "a path beyond ASCII", tool: "aider", prompt: "WRITE café.txt\n" },
  { name: "a path with ..", tool: "codex", prompt: "WRITE sub/../up.txt\n" },
  { name: "a path with a dot folder", tool: "claude", prompt: "WRITE ./dot.txt\n" },
  { name: "an absolute path", tool: "gemini", prompt: "WRITE /dev/null\n" },
  { name: "a path through a link", tool: "claude", prompt: "WRITE link/x.txt\n" },
  { name: "a path that is a folder (the Node fake fails)", tool: "qwen", prompt: "WRITE sub\n" },
  { name: "a path under a file (the Node fake fails)", tool: "claude", prompt: "WRITE seed.txt/x\n" },
  { name: "a file and a folder of the same name (the Node fake fails)", tool: "opencode", prompt: "WRITE n\nWRITE n/m\n" },
  { name: "a long path", tool: "claude", prompt: `WRITE ${"d/".repeat(100)}x\n` },
  { name: "a NUL byte", tool: "claude", prompt: "Hello\u0000 world\nWRITE n.txt\n", compare: true },
  // A \001 byte, read as a NUL would be, reaches the Node fake as a NUL (test/support/fake-lib.sh).
  { name: "a \\001 byte", tool: "codex", prompt: "Hello\u0001 world\n", arrives: "Hello\u0000 world\n" },
  { name: "a carriage return ends a line for the Node fake", tool: "codex", prompt: "WRITE cr.txt\r\n" },
  { name: "a line separator ends a line for the Node fake", tool: "claude", prompt: "say\u2028WRITE ls.txt\n" },
  { name: "with a log: a prompt beyond ASCII", tool: "claude", prompt: "Corrige le café.\nWRITE n.txt\n", log: true },
  {
    name: "with a log: a context value of two lines",
    tool: "codex",
    prompt: "WRITE n.txt\n",
    log: true,
    env: { SWITCHYARD_QUESTION: "two\nSWITCHYARD_FORGED=1" },
  },
  {
    name: "with a log: a context value beyond ASCII",
    tool: "claude",
    prompt: "WRITE n.txt\n",
    log: true,
    env: { SWITCHYARD_TASK: "répare" },
  },
  { name: "with a log: an argument beyond ASCII", tool: "claude", argv: [...ARGV.claude, "--model", "sönnet"], prompt: "", log: true },
  {
    name: "with a log in a folder that is not there (the Node fake fails)",
    tool: "claude",
    prompt: "WRITE n.txt\n",
    log: true,
    env: { FAKE_AGENT_LOG: "/nonexistent/agent.log" },
  },
  // Handed over once counted: the Node fake gets the call's mode, and counts no second time.
  {
    name: "a counted mode the shell does not answer",
    tool: "codex",
    prompt: "WRITE q\n",
    env: { FAKE_AGENT_MODES: "ok,malformed", FAKE_AGENT_COUNTER: ".count" },
    taken: 1,
    pinned: "malformed",
    compare: true,
  },
  {
    name: "a counted 429 whose delay the shell does not write",
    tool: "claude",
    prompt: "",
    env: { FAKE_AGENT_MODES: "rate-limit", FAKE_AGENT_COUNTER: ".count", FAKE_AGENT_RETRY_IN: "$&s" },
    pinned: "rate-limit",
  },
  {
    name: "a counted call whose prompt the shell does not take",
    tool: "gemini",
    prompt: "WRITE it's\n",
    env: { FAKE_AGENT_RATE_LIMITS: "1", FAKE_AGENT_COUNTER: ".count" },
    taken: 1,
    log: true,
    pinned: "ok",
  },
];

test("the shell fake agents answer as the Node fake does, and hand it every other call as it came", () => {
  const dir = new TempDir("sy-fake-sh-");
  try {
    const node = nodeFakeBin(join(dir.path, "node"));
    const sh = fakeAgentBin(join(dir.path, "sh"));
    // The shell fakes with a stand-in for the Node fake: it records its argv, its stdin, its mode and counter.
    const stand = standIn(join(dir.path, "stand-in.sh"));
    const recorded = join(dir.path, "stand-in-bin");
    mkdirSync(recorded);
    for (const t of TOOLS) {
      writeFileSync(join(recorded, t), shellFake(t, `${quoted(stand)} ${t}`));
      chmodSync(join(recorded, t), 0o755);
    }
    // The working folder: in a git repository with a commit, or outside any (git stops at the ceiling).
    mkdirSync(join(dir.path, "repo"));
    const git = (...args: string[]) =>
      spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: join(dir.path, "repo") });
    git("init", "-q");
    git("commit", "-q", "--allow-empty", "-m", "base");
    mkdirSync(join(dir.path, "plain"));
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(FAKE_AGENT_|SWITCHYARD_|GEMINI_CLI_TRUST_WORKSPACE$|NODE_OPTIONS$)/.test(k)),
    );
    const log = join(dir.path, "agent.log");
    const handed = join(dir.path, "handed");

    const call = (bin: string, c: Case, env: Record<string, string | undefined> = {}) => {
      const ws = join(dir.path, c.noGit ? "plain" : "repo", "ws");
      for (const p of [ws, log, `${handed}.argv`, `${handed}.stdin`, `${handed}.env`]) rmSync(p, { recursive: true, force: true });
      mkdirSync(join(ws, "sub"), { recursive: true });
      writeFileSync(join(ws, "seed.txt"), "seed\n");
      writeFileSync(join(ws, "sub", "keep.txt"), "keep\n");
      symlinkSync("sub", join(ws, "link"));
      if (c.tool === "aider") writeFileSync(join(ws, "PROMPT.md"), c.prompt);
      for (let n = 1; n <= (c.taken ?? 0); n++) writeFileSync(join(ws, `.count.${n}`), "");
      const before = files(ws);
      const r = spawnSync(join(bin, c.tool), c.argv ?? ARGV[c.tool], {
        cwd: ws,
        env: {
          ...clean,
          ...PRESET_ENV[c.tool],
          ...(c.log ? { ...CONTEXT, FAKE_AGENT_LOG: log } : {}),
          ...(c.noGit ? { GIT_CEILING_DIRECTORIES: join(dir.path, "plain") } : {}),
          ...c.env,
          ...env,
        },
        input: Buffer.from(c.tool === "aider" ? "" : c.prompt),
        encoding: "latin1",
      });
      return { answer: answerOf(r, ws, log), before };
    };

    for (const c of ANSWERED) {
      const byNode = call(node, c).answer;
      const bySh = call(sh, c, NO_NODE).answer;
      assert.deepEqual(bySh, byNode, `${c.name}: the shell fake answers as the Node fake`);
      assert.ok(byNode.stdout.length + byNode.stderr.length > 0, `${c.name}: an answer`);
      if (c.log && c.argv?.[0] !== "--version") assert.match(byNode.log ?? "", /^\{"tool":.*\}\n$/, `${c.name}: a log line`);
    }

    for (const c of HANDED) {
      const { answer, before } = call(recorded, c, { HANDED: handed });
      assert.equal(answer.status, 0, `${c.name}: handed over\n${answer.stderr}`);
      const got = handedOver(handed);
      assert.deepEqual(got.argv, [c.tool, ...(c.argv ?? ARGV[c.tool])], `${c.name}: the argv`);
      assert.deepEqual(got.stdin, Buffer.from(c.tool === "aider" ? "" : (c.arrives ?? c.prompt)), `${c.name}: the prompt's bytes`);
      const counter = c.env?.FAKE_AGENT_COUNTER ?? "(unset)";
      const mode = c.env && "FAKE_AGENT_MODE" in c.env ? c.env.FAKE_AGENT_MODE : "(unset)";
      assert.equal(got.env, c.pinned ? `${c.pinned} (unset)` : `${mode} ${counter}`, `${c.name}: the mode`);
      // Nothing done before: the files as they were (but the number the shell counted), no log line.
      const counted = c.pinned ? { [`.count.${(c.taken ?? 0) + 1}`]: "" } : {};
      assert.deepEqual(answer.files, { ...before, ...counted }, `${c.name}: no work done`);
      assert.ok(!answer.log, `${c.name}: no log line`);
      if (c.compare) assert.deepEqual(call(sh, c).answer, call(node, c).answer, `${c.name}: the Node fake's answer`);
    }

    // The shell's answer is the recording's, its reply replaced.
    const out = call(sh, ANSWERED[0]!, NO_NODE).answer;
    const success = JSON.parse(recording("claude-2.1.197-success").stdout) as Record<string, unknown>;
    assert.deepEqual(JSON.parse(out.stdout), { ...success, result: "Edited a/b/c.txt, seed.txt, a/b/c.txt." });
    assert.equal(out.files["a/b/c.txt"], "written by claude\nfixed by claude\n");
    assert.equal(out.files["seed.txt"], "seed\nfixed by claude\n");
    // A log line holds what the tests read off it.
    const line = JSON.parse(out.log!) as {
      tool: string;
      argv: string[];
      context: Record<string, string>;
      key: string;
      head: string;
      prompt_length: number;
      trust: null;
    };
    assert.equal(line.tool, "claude");
    assert.deepEqual(line.argv, ARGV.claude);
    assert.equal(line.key, "k001");
    assert.deepEqual(JSON.parse(line.context.SWITCHYARD_QUESTION!), JSON.parse(CONTEXT.SWITCHYARD_QUESTION));
    assert.equal(line.context.SWITCHYARD_EMPTY, "");
    assert.match(line.head, /^[0-9a-f]{40}$/);
    assert.equal(line.prompt_length, Buffer.byteLength(WORK));
    assert.equal(line.trust, null);
  } finally {
    dir.cleanup();
  }
});
