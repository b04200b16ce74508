// The agent CLIs' own reports, as the real tools print them (recordings replayed by the fakes in
// test/support/fake-agent-cli.ts): a tool that reports its error is recorded as
// agent-output-invalid naming the tool, its message and its exit status, with the usage it
// reported still charged — read before the exit status, never "exited with status 1" pointing
// at an empty log. The expected messages and figures are read off test/fixtures/real-agents/ by
// hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agent, harness, plan, runPlan } from "./helpers.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import type { AgentRunnerConfig } from "../../src/run/agents/agent-runner-config.js";
import type { Usage } from "../../src/run/kinds/judge.js";
import type { Harness } from "./helpers.js";
import { parseMachineConfig } from "../../src/decide/config.js";
import { DiagnosticError } from "../../src/lang/diagnostic.js";

function withFakes(h: Harness): void {
  process.env.PATH = `${fakeAgentBin(h.dir.path)}:${process.env.PATH}`;
}

function runners(toml: string): Record<string, AgentRunnerConfig> {
  return parseMachineConfig(toml, "/tmp/config.toml").agents;
}

interface Finished {
  status: string;
  code?: string;
  error?: string;
  usage?: Usage;
}

function finished(h: Harness, run: string): Finished[] {
  return [...h.store.events(run)].filter((e) => e.type === "instance_finished").map((e) => e.payload as Finished);
}

async function oneTurn(h: Harness, toml: string, prompt = "WRITE a.txt") {
  const p = plan([agent("fix", prompt)]);
  p.tasks[0]!.retries = 0;
  const r = await runPlan(h, p, { agentRunners: runners(toml) });
  return { ...r, finished: finished(h, r.run) };
}

const errorCases: Array<{ name: string; preset: string; mode: string; message: string; usage?: Usage }> = [
  {
    name: "Claude Code's turn limit (error_max_turns, no result, errors[], exit 1)",
    preset: "claude-code",
    mode: "error",
    message:
      'agent runner "default" (Claude Code) reported an error and exited with status 1: error_max_turns: Reached maximum number of turns (10)',
    // usage {input 2000, cache_read 10000, output 300}, total_cost_usd 0.0135…
    usage: { input_tokens: 12000, cached_input_tokens: 10000, output_tokens: 300, cost_usd: 0.013500000000000003 },
  },
  {
    name: 'Claude Code\'s API error (subtype "success", is_error, api_error_status 400, exit 1)',
    preset: "claude-code",
    mode: "api-error",
    message:
      'agent runner "default" (Claude Code) reported an error and exited with status 1: API error 400: API Error: 400 mock failure 400',
    usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, cost_usd: 0 },
  },
  {
    name: "Codex's API error (an error event, then turn.failed, exit 1)",
    preset: "codex",
    mode: "api-error",
    message: 'agent runner "default" (Codex CLI) reported an error and exited with status 1: mock failure 400',
  },
  {
    name: "Gemini CLI's turn limit (nothing on stdout, the error JSON on stderr, exit 53)",
    preset: "gemini",
    mode: "error",
    message:
      'agent runner "default" (Gemini CLI) reported an error and exited with status 53: FatalTurnLimitedError: Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.',
  },
  {
    name: "Gemini CLI's API error (exit 144 = 400 & 0xff)",
    preset: "gemini",
    mode: "api-error",
    message: 'agent runner "default" (Gemini CLI) reported an error and exited with status 144: Error: mock failure 400',
  },
];

for (const c of errorCases) {
  test(`a tool's own error report is agent-output-invalid with its message and exit status: ${c.name}`, async () => {
    const h = harness();
    try {
      withFakes(h);
      const { finished: f } = await oneTurn(h, `[agents.default]\npreset = "${c.preset}"\nenv = { FAKE_AGENT_MODE = "${c.mode}" }\n`);
      assert.equal(f.length, 1);
      assert.equal(f[0]!.status, "failed");
      assert.equal(f[0]!.code, "agent-output-invalid");
      assert.ok(f[0]!.error!.startsWith(`agent-output-invalid: ${c.message} (stdout: `), f[0]!.error);
      assert.doesNotMatch(f[0]!.error!, /command-failed/);
      // Gemini CLI and Codex report no usage on an error: nothing is charged, and nothing invented.
      assert.deepEqual(f[0]!.usage, c.usage);
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  });
}

test("a failed turn's reported cost is charged to the budget (Claude Code's turn limit: $0.0135)", async () => {
  const h = harness();
  try {
    withFakes(h);
    const { run, show } = await oneTurn(h, `[agents.default]\npreset = "claude-code"\nenv = { FAKE_AGENT_MODE = "error" }\n`);
    assert.equal(foldEvents(h.store, run).spentUsd, 0.013500000000000003);
    assert.equal(show.tasks.fix!.usage?.cost_usd, 0.013500000000000003, "and shown with the failed instance");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("Codex 0.171 rejecting a --full-auto the config adds: agent-runner-failed with the tool's own usage error, exit 2", async () => {
  const h = harness();
  try {
    withFakes(h);
    const { finished: f } = await oneTurn(h, `[agents.default]\npreset = "codex"\nargs = ["--full-auto"]\n`);
    assert.equal(f[0]!.code, "agent-runner-failed");
    assert.match(
      f[0]!.error!,
      /^agent-runner-failed: agent runner "default" \(Codex CLI\) exited with status 2 without a turn report \(it printed no JSON events on stdout\); its stderr ends: error: unexpected argument '--full-auto' found \(stdout: .*, log: .*\)$/,
    );
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test('Gemini CLI gets GEMINI_CLI_TRUST_WORKSPACE=true and a 200 KB prompt on stdin with --prompt "" (no 128 KiB argv limit)', async () => {
  const h = harness();
  try {
    withFakes(h);
    const log = join(h.dir.path, "calls.jsonl");
    const prompt = `WRITE a.txt\n${"x".repeat(200 * 1024)}\n`;
    const { outcome, show } = await oneTurn(
      h,
      `[agents.default]\npreset = "gemini"\nenv = { FAKE_AGENT_LOG = ${JSON.stringify(log)} }\n`,
      prompt,
    );
    assert.equal(outcome.status, "passed", JSON.stringify(show.tasks.fix));
    const call = JSON.parse(readFileSync(log, "utf8").trim()) as { argv: string[]; prompt_length: number; trust: string };
    assert.equal(call.prompt_length, Buffer.byteLength(prompt));
    assert.deepEqual(call.argv, ["--output-format", "json", "--approval-mode", "auto_edit", "--prompt", ""]);
    assert.equal(call.trust, "true");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("a runner's env can still override the preset's (GEMINI_CLI_TRUST_WORKSPACE=false: the tool's recorded refusal, exit 55)", async () => {
  const h = harness();
  try {
    withFakes(h);
    const { finished: f } = await oneTurn(h, `[agents.default]\npreset = "gemini"\nenv = { GEMINI_CLI_TRUST_WORKSPACE = "false" }\n`);
    assert.equal(f[0]!.code, "agent-runner-failed");
    assert.match(
      f[0]!.error!,
      /exited with status 55 without a turn report .*its stderr ends: .*Gemini CLI is not running in a trusted directory/,
    );
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("Claude Code's refused tool (permission_denials) passes the turn and is recorded as refused_tools", async () => {
  const h = harness();
  try {
    withFakes(h);
    const { outcome, show } = await oneTurn(h, `[agents.default]\npreset = "claude-code"\nenv = { FAKE_AGENT_MODE = "refused" }\n`);
    assert.equal(outcome.status, "passed");
    const out = show.tasks.fix!.output as Record<string, unknown>;
    assert.deepEqual(out.refused_tools, [{ tool: "Bash", input: { command: 'python3 -c "print(1)"', description: "run a command" } }]);
    assert.equal(out.turns, 4);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("remove_args takes a preset flag out with its value; base_args replaces the preset's own arguments", async () => {
  const h = harness();
  try {
    withFakes(h);
    const log = join(h.dir.path, "calls.jsonl");
    const env = `env = { FAKE_AGENT_LOG = ${JSON.stringify(log)} }`;
    const agentRunners = runners(
      `[agents.default]\npreset = "claude-code"\nremove_args = ["--max-turns"]\n${env}\n` +
        `[agents.cx]\npreset = "codex"\nbase_args = ["exec", "--json", "--sandbox", "workspace-write", "--skip-git-repo-check", "--ephemeral"]\n${env}\n`,
    );
    const p = plan([agent("a", "hi"), agent("b", "hi", { runner: "cx" })]);
    p.tasks[0]!.agent!.effort = "medium";
    await runPlan(h, p, { agentRunners });
    const calls = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool: string; argv: string[] });
    assert.deepEqual(calls.find((c) => c.tool === "claude")!.argv, [
      "-p",
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
      "--effort",
      "medium",
    ]);
    assert.deepEqual(calls.find((c) => c.tool === "codex")!.argv, [
      "exec",
      "--json",
      "--sandbox",
      "workspace-write",
      "--skip-git-repo-check",
      "--ephemeral",
      "-c",
      "model_reasoning_effort=medium",
      "-",
    ]);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("remove_args naming a flag the preset does not pass, or base_args without a preset, is a config error", () => {
  assert.throws(
    () => runners(`[agents.cx]\npreset = "codex"\nremove_args = ["--full-auto"]\n`),
    (e: unknown) =>
      e instanceof DiagnosticError &&
      /agents\.cx\.remove_args has "--full-auto", which the codex preset does not pass/.test(e.message) &&
      /it passes: exec --json --sandbox workspace-write --skip-git-repo-check -c/.test(JSON.stringify(e.diagnostics)),
  );
  assert.throws(
    () => runners(`[agents.g]\ncommand = ["my-agent"]\nbase_args = ["-x"]\n`),
    (e: unknown) => e instanceof DiagnosticError && /base_args changes a preset's arguments, but this runner has no preset/.test(e.message),
  );
});
