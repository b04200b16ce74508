// Fake agent CLIs for unit tests: installed on PATH by fakeAgentBin() as
// `claude`, `codex`, `gemini`, `opencode`, `qwen` and `aider`, each a shell script that answers the
// common calls itself (fake-agent-sh.ts: a successful turn, `--version`) and runs this file, with
// the tool's name first, for every other call. What a fake prints for a successful turn and for
// `--version` is built in fake-agent-output.ts, for both. Every reply is a RECORDING of the real
// tool — stdout, stderr and exit status from
// test/fixtures/real-agents/TOOL-VERSION-CASE.*.txt (captured by scripts/record-agent-samples.mjs
// from the real CLIs; see test/fixtures/real-agents/README.md) — replayed with only what must
// vary substituted:
//   - the reply text (Claude Code's `result`, Codex's `agent_message` text, Gemini CLI's
//     `response`) becomes FAKE_AGENT_REPLY, or "Edited PATHS." for the work the prompt asked for;
//   - the work itself is done in the working folder: prompt lines `EDIT path` (append "fixed by
//     TOOL") and `WRITE path` (create it), as the real tool's write tool would.
// The tokens, turns, cost, event shapes, stderr and exit statuses are the recorded ones.
//
// Each fake also rejects what its real tool rejects, with the tool's recorded refusal: Codex
// 0.147+ `--full-auto` (exit 2), Gemini CLI 0.61 in an untrusted folder (exit 55), and exits 2
// on an argv the preset must not build. `TOOL --version` prints the version of the recordings
// (FAKE_AGENT_VERSION overrides it), in the format each tool prints it.
//
// FAKE_AGENT_MODE picks the recorded case: "ok" (default), "error" (the tool's turn limit),
// "api-error" (an HTTP 400 from the API), "api-error-500" (Codex: an HTTP 500), "refused" (Claude Code: a tool refused by permissions),
// "rate-limit" (an HTTP 429: DERIVED from the recorded API-error case of the same tool, the
// status and message replaced by the vendor's 429 body, since no 429 was recorded), and two
// corruptions of the recorded success that no tool prints but a killed or full disk can leave:
// "malformed" (not the format) and "truncated" (cut halfway). FAKE_AGENT_RATE_LIMITS=N with
// FAKE_AGENT_COUNTER=FILE makes the first N calls (across processes) replay the 429 and the rest
// succeed; FAKE_AGENT_RETRY_IN sets the delay the 429 message asks for ("2s" by default).
// FAKE_AGENT_MODES=A,B,… with FAKE_AGENT_COUNTER=FILE gives call N the Nth mode (the last one
// from then on), e.g. "ok,error": an answer, then the turn-limit report.
// FAKE_AGENT_LOG, when set, gets one line per call: the tool, its argv, its working folder and the
// commit checked out there (if any), the SWITCHYARD_* context, the prompt's length, as JSON.
// FAKE_AGENT_SLEEP_MS makes each call take that long first (for kill tests).

import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, openSync, closeSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  aiderStdout,
  fakeVersion,
  rateLimited,
  recording,
  replyFor as reply,
  versionLine,
  withReply,
  type Recording,
} from "./fake-agent-output.js";

function replay(r: Recording): never {
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exit(r.exit);
}

const [tool, ...argv] = process.argv.slice(2) as [string, ...string[]];
let mode = process.env.FAKE_AGENT_MODE ?? "ok";

if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(versionLine(tool, fakeVersion(tool, process.env.FAKE_AGENT_VERSION)));
  process.exit(0);
}

const sleep = Number(process.env.FAKE_AGENT_SLEEP_MS ?? 0);
if (sleep > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, sleep);

/** This call's number (1, 2, …) across concurrent processes: the first free COUNTER.N file. */
function callNumber(counter: string): number {
  for (let n = 1; ; n++) {
    try {
      closeSync(openSync(`${counter}.${n}`, "wx"));
      return n;
    } catch {
      // taken by an earlier call
    }
  }
}
if (process.env.FAKE_AGENT_RATE_LIMITS && process.env.FAKE_AGENT_COUNTER) {
  mode = callNumber(process.env.FAKE_AGENT_COUNTER) <= Number(process.env.FAKE_AGENT_RATE_LIMITS) ? "rate-limit" : "ok";
} else if (process.env.FAKE_AGENT_MODES && process.env.FAKE_AGENT_COUNTER) {
  const modes = process.env.FAKE_AGENT_MODES.split(",");
  mode = modes[Math.min(callNumber(process.env.FAKE_AGENT_COUNTER), modes.length) - 1]!;
}
const retryIn = process.env.FAKE_AGENT_RETRY_IN ?? "2s";

function refuse(why: string): never {
  process.stderr.write(`${tool}: ${why}\n`);
  process.exit(2);
}

/** Checks that `flags` appear in order as a contiguous run somewhere in argv. */
function expectRun(flags: string[]): void {
  for (let i = 0; i + flags.length <= argv.length; i++) if (flags.every((f, j) => argv[i + j] === f)) return;
  refuse(`expected ${flags.join(" ")} in ${JSON.stringify(argv)}`);
}

function valueOf(flag: string): string {
  const i = argv.indexOf(flag);
  if (i < 0 || i + 1 >= argv.length) refuse(`expected ${flag} VALUE in ${JSON.stringify(argv)}`);
  return argv[i + 1]!;
}

function log(prompt: string): void {
  if (!process.env.FAKE_AGENT_LOG) return;
  const head = spawnSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" });
  const context = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("SWITCHYARD_")));
  appendFileSync(
    process.env.FAKE_AGENT_LOG,
    JSON.stringify({
      tool,
      argv,
      cwd: process.cwd(),
      head: head.status === 0 ? head.stdout.trim() : null,
      key: process.env.SWITCHYARD_KEY,
      context,
      prompt_length: Buffer.byteLength(prompt),
      trust: process.env.GEMINI_CLI_TRUST_WORKSPACE ?? null,
    }) + "\n",
  );
}

function doWork(prompt: string): string[] {
  const done: string[] = [];
  for (const m of prompt.matchAll(/^(EDIT|WRITE) (\S+)$/gm)) {
    const path = m[2]!;
    mkdirSync(dirname(path), { recursive: true });
    if (m[1] === "EDIT") appendFileSync(path, `fixed by ${tool}\n`);
    else writeFileSync(path, `written by ${tool}\n`);
    done.push(path);
  }
  return done;
}

const replyFor = (done: string[]) => reply(done, process.env.FAKE_AGENT_REPLY);

/** A recorded success, its reply substituted, possibly corrupted (malformed, truncated). */
function succeed(r: Recording, stdout: string): never {
  if (mode === "truncated") stdout = stdout.slice(0, Math.floor(stdout.length / 2));
  else if (mode === "malformed") stdout = `Here is what I did: ${stdout.slice(0, 10)}`;
  replay({ ...r, stdout });
}

switch (tool) {
  case "claude": {
    expectRun(["-p"]);
    expectRun(["--output-format", "json"]);
    expectRun(["--permission-mode", "acceptEdits"]);
    if (!["low", "medium", "high", "xhigh", "max"].includes(valueOf("--effort"))) refuse("--effort takes low|medium|high|xhigh|max");
    const prompt = readFileSync(0, "utf8");
    log(prompt);
    const done = doWork(prompt);
    if (mode === "error") replay(recording("claude-2.1.197-error-max-turns"));
    if (mode === "api-error") replay(recording("claude-2.1.197-api-error-400"));
    if (mode === "rate-limit") replay(rateLimited("claude", retryIn));
    const r = withReply("claude", replyFor(done), mode === "refused" ? "claude-2.1.197-permission-denied" : undefined);
    succeed(r, r.stdout);
    break;
  }
  case "codex": {
    if (argv[0] !== "exec") refuse(`expected the exec subcommand first, got ${JSON.stringify(argv)}`);
    // Codex 0.147 and later reject --full-auto (recorded with 0.171.0).
    if (argv.includes("--full-auto")) replay(recording("codex-0.171.0-preset-argv-rejected"));
    expectRun(["--json"]);
    expectRun(["--sandbox", "workspace-write"]);
    expectRun(["--skip-git-repo-check"]);
    if (!argv.some((a) => a.startsWith("model_reasoning_effort="))) refuse("expected -c model_reasoning_effort=…");
    if (argv[argv.length - 1] !== "-") refuse("expected - (prompt on stdin) last");
    const prompt = readFileSync(0, "utf8");
    log(prompt);
    const done = doWork(prompt);
    if (mode === "error" || mode === "api-error") replay(recording("codex-0.171.0-api-error-400"));
    if (mode === "api-error-500") replay(recording("codex-0.171.0-api-error-500"));
    if (mode === "rate-limit") replay(rateLimited("codex", retryIn));
    const r = withReply("codex", replyFor(done));
    succeed(r, r.stdout);
    break;
  }
  case "gemini": {
    expectRun(["--output-format", "json"]);
    expectRun(["--approval-mode", "auto_edit"]);
    // Gemini CLI 0.61 refuses to run headless in a folder it was not told to trust.
    if (process.env.GEMINI_CLI_TRUST_WORKSPACE !== "true" && !argv.includes("--skip-trust"))
      replay(recording("gemini-0.61.0-untrusted-folder"));
    // `--prompt ""` reads the prompt from stdin; a non-empty value is appended to it.
    const prompt = readFileSync(0, "utf8") + valueOf("--prompt");
    log(prompt);
    const done = doWork(prompt);
    if (mode === "error") replay(recording("gemini-0.61.0-turn-limit"));
    if (mode === "api-error") replay(recording("gemini-0.61.0-api-error-400"));
    if (mode === "rate-limit") replay(rateLimited("gemini", retryIn));
    const r = withReply("gemini", replyFor(done));
    succeed(r, r.stdout);
    break;
  }
  case "opencode": {
    expectRun(["run", "--format", "json"]);
    const prompt = readFileSync(0, "utf8");
    log(prompt);
    const done = doWork(prompt);
    if (mode === "api-error") replay(recording("opencode-1.18.33-api-error-400"));
    const r = withReply("opencode", replyFor(done), mode === "refused" ? "opencode-1.18.33-permission-rejected" : undefined);
    succeed(r, r.stdout);
    break;
  }
  case "qwen": {
    expectRun(["--output-format", "json"]);
    expectRun(["--approval-mode", "auto-edit"]);
    const prompt = readFileSync(0, "utf8");
    log(prompt);
    const done = doWork(prompt);
    if (mode === "error") replay(recording("qwen-code-0.24.4-turn-limit"));
    if (mode === "api-error") replay(recording("qwen-code-0.24.4-api-error-400"));
    const r = withReply("qwen", replyFor(done));
    succeed(r, r.stdout);
    break;
  }
  case "aider": {
    // aider cannot be installed on these machines (a Python package): NOT a recording — its
    // documented report line (https://aider.chat/docs/scripting.html), see docs/agents/aider.md.
    expectRun(["--yes-always"]);
    expectRun(["--no-auto-commits"]);
    const prompt = readFileSync(valueOf("--message-file"), "utf8");
    log(prompt);
    const done = doWork(prompt);
    process.stdout.write(aiderStdout(replyFor(done), mode === "malformed"));
    break;
  }
  default:
    refuse(`unknown fake tool ${tool}`);
}
