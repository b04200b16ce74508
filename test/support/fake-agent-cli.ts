// Fake agent CLIs for tests (issue 12): installed on PATH by fakeAgentBin() as `claude`, `codex`,
// `gemini` and `aider`, each a shell wrapper running this file with the tool's name first. Each
// checks the argv it is given the way the preset must build it (a wrong argv exits 2 naming the
// problem, as the real tools reject unknown usage), does the work the prompt asks for in its
// working directory, and replies in the tool's documented format. The fixtures are written from
// the sources cited in src/run/agent-presets/presets.ts:
//   claude  https://docs.anthropic.com/en/docs/claude-code/cli-reference and the result object
//           described at https://dev.to/aobaworks/claude-code-output-format-json-fields-jq-python-parsing-3edj
//   codex   `codex exec --json` events: https://github.com/openai/codex/pull/4309 (exec_events.rs)
//   gemini  https://geminicli.com/docs/cli/headless/ (response, stats.models.NAME.tokens)
//   aider   https://aider.chat/docs/scripting.html and its "Tokens: … sent, … received. Cost: …" line
//
// The prompt may hold lines `EDIT path` (append "fixed by TOOL" to that file) and `WRITE path`
// (create it). FAKE_AGENT_MODE selects a misbehaviour: "malformed" (not the format), "truncated"
// (cut halfway), "error" (the tool's own error report). FAKE_AGENT_LOG, when set, gets one line
// per call: the tool, its argv, its working folder and the commit checked out there (if any), and
// the SWITCHYARD_* context it was given, as JSON. FAKE_AGENT_SLEEP_MS makes each call take that
// long first (for kill tests). FAKE_AGENT_REPLY, when set, is the reply text (to answer as host).

import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const [tool, ...argv] = process.argv.slice(2) as [string, ...string[]];
const mode = process.env.FAKE_AGENT_MODE ?? "ok";
const sleep = Number(process.env.FAKE_AGENT_SLEEP_MS ?? 0);
if (sleep > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, sleep);
if (process.env.FAKE_AGENT_LOG) {
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
    }) + "\n",
  );
}

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

function emit(text: string): void {
  if (mode === "truncated") process.stdout.write(text.slice(0, Math.floor(text.length / 2)));
  else if (mode === "malformed") process.stdout.write(`Here is what I did: ${text.slice(0, 10)}`);
  else process.stdout.write(text);
}

const replyFor = (done: string[]) => process.env.FAKE_AGENT_REPLY ?? (done.length ? `Edited ${done.join(", ")}.` : "Nothing to edit.");

switch (tool) {
  case "claude": {
    expectRun(["-p"]);
    expectRun(["--output-format", "json"]);
    expectRun(["--permission-mode", "acceptEdits"]);
    valueOf("--max-turns");
    const done = doWork(readFileSync(0, "utf8"));
    const result =
      mode === "error"
        ? {
            type: "result",
            subtype: "error_max_turns",
            is_error: true,
            num_turns: 30,
            result: "",
            session_id: "s-1",
            total_cost_usd: 0.5,
            usage: { input_tokens: 10, output_tokens: 5 },
          }
        : {
            type: "result",
            subtype: "success",
            is_error: false,
            duration_ms: 5120,
            duration_api_ms: 4870,
            num_turns: 3,
            result: replyFor(done),
            session_id: "5b1f6a1e-0c0e-4b53-9d0a-1b2c3d4e5f60",
            total_cost_usd: 0.0421,
            usage: { input_tokens: 120, cache_creation_input_tokens: 300, cache_read_input_tokens: 2000, output_tokens: 450 },
          };
    emit(JSON.stringify(result));
    break;
  }
  case "codex": {
    if (argv[0] !== "exec") refuse(`expected the exec subcommand first, got ${JSON.stringify(argv)}`);
    expectRun(["--json"]);
    expectRun(["--full-auto"]);
    expectRun(["--skip-git-repo-check"]);
    if (!argv.some((a) => a.startsWith("model_reasoning_effort="))) refuse("expected -c model_reasoning_effort=…");
    if (argv[argv.length - 1] !== "-") refuse("expected - (prompt on stdin) last");
    const done = doWork(readFileSync(0, "utf8"));
    const events =
      mode === "error"
        ? [
            { type: "thread.started", thread_id: "th_1" },
            { type: "turn.started" },
            { type: "turn.failed", error: { message: "stream disconnected before completion" } },
          ]
        : [
            { type: "thread.started", thread_id: "0199a213-81c0-7800-8aa1-bbab2a035a53" },
            { type: "turn.started" },
            { type: "item.completed", item: { id: "item_0", type: "reasoning", text: "**Looking at the files**" } },
            {
              type: "item.completed",
              item: {
                id: "item_1",
                type: "command_execution",
                command: "bash -lc ls",
                aggregated_output: "",
                exit_code: 0,
                status: "completed",
              },
            },
            { type: "item.completed", item: { id: "item_2", type: "agent_message", text: replyFor(done) } },
            { type: "turn.completed", usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122 } },
          ];
    emit(events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    break;
  }
  case "gemini": {
    expectRun(["--output-format", "json"]);
    expectRun(["--approval-mode", "auto_edit"]);
    const done = doWork(valueOf("--prompt"));
    const out =
      mode === "error"
        ? { error: { type: "ApiError", message: "quota exceeded", code: 429 } }
        : {
            response: replyFor(done),
            stats: {
              models: {
                "gemini-2.5-pro": {
                  api: { totalRequests: 2, totalErrors: 0, totalLatencyMs: 5053 },
                  tokens: { prompt: 24939, candidates: 20, total: 25113, cached: 21263, thoughts: 154, tool: 0 },
                },
              },
              tools: { totalCalls: 1, totalSuccess: 1, totalFail: 0 },
            },
          };
    emit(JSON.stringify(out, null, 2));
    break;
  }
  case "aider": {
    expectRun(["--yes-always"]);
    expectRun(["--no-auto-commits"]);
    const done = doWork(readFileSync(valueOf("--message-file"), "utf8"));
    const report =
      mode === "malformed"
        ? "Tokens: lots sent, some received."
        : "Tokens: 12k sent, 2.1k cache hit, 133 received. Cost: $0.04 message, $0.04 session.";
    process.stdout.write(`Aider v0.86.1\nMain model: sonnet with diff edit format\n\n${replyFor(done)}\n\n${report}\n`);
    break;
  }
  default:
    refuse(`unknown fake tool ${tool}`);
}
