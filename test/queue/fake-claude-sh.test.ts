// The shell fake `claude` (test/support/fake-claude-sh.ts) the workers-mode campaigns put on PATH
// answers exactly as the Node fake (test/support/fake-agent-cli.ts), which replays Claude Code's
// recorded output: the same stdout, stderr, exit status and files, call by call. Where it answers
// by itself, Node is made unable to start (NODE_OPTIONS requires a file that does not exist), so an
// equal answer cannot have come from the Node fake.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { fakeClaudeShBin } from "../support/fake-claude-sh.js";

const ARGV = ["-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--effort", "medium"];
const NO_NODE = { NODE_OPTIONS: "--require=/nonexistent/node-must-not-start.cjs" };

interface Case {
  name: string;
  argv: string[];
  prompt: string;
  env?: Record<string, string>;
  /** The shell answers by itself (else it hands the call to the Node fake). */
  byItself: boolean;
}

const CASES: Case[] = [
  { name: "one WRITE", argv: ARGV, prompt: "Fix ticket k001.\nWRITE NOTE.txt\n", byItself: true },
  { name: "WRITE and EDIT in subfolders", argv: ARGV, prompt: "WRITE a/b/c.txt\nEDIT seed.txt\nEDIT a/b/c.txt", byItself: true },
  { name: "nothing to edit", argv: ARGV, prompt: "Just say hello.\n", byItself: true },
  {
    name: "the flags in another order",
    argv: ["--effort", "max", "--permission-mode", "acceptEdits", "-p", "--output-format", "json"],
    prompt: "WRITE x",
    byItself: true,
  },
  { name: "FAKE_AGENT_MODE=ok", argv: ARGV, prompt: "WRITE y\n", env: { FAKE_AGENT_MODE: "ok" }, byItself: true },
  { name: "a path the shell leaves to Node", argv: ARGV, prompt: "WRITE it's.txt\n", byItself: false },
  { name: "a line Node does not read as work", argv: ARGV, prompt: "WRITE two words\nWRITE  z\n", byItself: false },
  { name: "--version", argv: ["--version"], prompt: "", byItself: false },
  { name: "an unknown effort", argv: [...ARGV.slice(0, -1), "extreme"], prompt: "WRITE q", byItself: false },
  {
    name: "--effort last",
    argv: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--effort"],
    prompt: "",
    byItself: false,
  },
  { name: "no -p", argv: ARGV.slice(1), prompt: "WRITE q", byItself: false },
  { name: "FAKE_AGENT_MODE=error", argv: ARGV, prompt: "WRITE q\n", env: { FAKE_AGENT_MODE: "error" }, byItself: false },
  { name: "FAKE_AGENT_REPLY", argv: ARGV, prompt: "WRITE q\n", env: { FAKE_AGENT_REPLY: "Done." }, byItself: false },
];

/** Every file under `dir` with its contents. */
function files(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) Object.assign(out, files(p, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(p, "utf8");
  }
  return out;
}

test("the shell fake claude answers every call as the Node fake does: stdout, stderr, exit status, files", () => {
  const dir = new TempDir("sy-fake-sh-");
  try {
    const node = join(fakeAgentBin(join(dir.path, "node"), ["claude"]), "claude");
    const sh = join(fakeClaudeShBin(join(dir.path, "sh")), "claude");
    for (const [i, c] of CASES.entries()) {
      const answers = [node, sh].map((bin, j) => {
        const cwd = join(dir.path, `ws-${i}-${j}`);
        mkdirSync(cwd);
        dir.file(`ws-${i}-${j}/seed.txt`, "seed\n");
        const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("FAKE_AGENT_")));
        const env = { ...clean, ...c.env, ...(bin === sh && c.byItself ? NO_NODE : {}) };
        const r = spawnSync(bin, c.argv, { cwd, env, input: c.prompt, encoding: "utf8" });
        return { stdout: r.stdout, stderr: r.stderr, status: r.status, files: files(cwd) };
      });
      assert.deepEqual(answers[1], answers[0], `${c.name}: the shell fake answers as the Node fake`);
      assert.ok(answers[0]!.stdout.length + answers[0]!.stderr.length > 0, `${c.name}: an answer`);
    }
    // The fast path's answer is the recording's, its result replaced.
    const r = spawnSync(sh, ARGV, {
      cwd: join(dir.path, "ws-0-1"),
      env: { ...process.env, ...NO_NODE },
      input: "WRITE NOTE.txt\n",
      encoding: "utf8",
    });
    const recorded = JSON.parse(readFileSync("test/fixtures/real-agents/claude-2.1.197-success.stdout.txt", "utf8")) as Record<
      string,
      unknown
    >;
    assert.deepEqual(JSON.parse(r.stdout), { ...recorded, result: "Edited NOTE.txt." });
  } finally {
    dir.cleanup();
  }
});
