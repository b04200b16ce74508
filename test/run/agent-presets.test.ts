// Runner presets. Each preset drives a fake executable on PATH with the real tool's name
// (test/support/fake-agent-cli.ts), which checks the argv and replays a RECORDING of the real tool
// (test/fixtures/real-agents/); the reply text, turns, tokens and cost land in the instance output
// and the run's budget. The expected figures below are read off the recordings by hand. A
// malformed or truncated reply, or the tool's own error report, fails only that instance, naming
// the tool.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agent, harness, mapped, plan, ref, runPlan, statuses, evaluate } from "./helpers.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import type { AgentRunnerConfig } from "../../src/run/agents/agent-runner-config.js";
import type { Usage } from "../../src/run/kinds/judge.js";
import type { Harness } from "./helpers.js";
import { parseMachineConfig } from "../../src/decide/config.js";

function withFakes(h: Harness): void {
  const bin = fakeAgentBin(h.dir.path);
  process.env.PATH = `${bin}:${process.env.PATH}`;
}

function usages(h: Harness, run: string): Record<string, Usage> {
  const out: Record<string, Usage> = {};
  for (const e of h.store.events(run)) {
    if (e.type === "instance_finished") out[e.key ?? ""] = (e.payload as { usage?: Usage }).usage ?? {};
  }
  return out;
}

function runners(toml: string): Record<string, AgentRunnerConfig> {
  return parseMachineConfig(toml, "/tmp/config.toml").agents;
}

const cases: Array<{ preset: string; price?: string; reply: string; turns: number; usage: Usage }> = [
  // claude-2.1.197-success: usage {input 600, cache_creation 0, cache_read 3000, output 90},
  // total_cost_usd 0.00405, num_turns 3. input_tokens counts fresh + cache-created + cache-read.
  {
    preset: "claude-code",
    reply: "Edited a.txt.",
    turns: 3,
    usage: { input_tokens: 3600, cached_input_tokens: 3000, output_tokens: 90, cost_usd: 0.00405 },
  },
  // codex-0.171.0-success-shell: one turn.completed {input 2400, cached 2000, output 74 (14 of
  // them reasoning, already included)}. Codex reports tokens only: the price table gives the cost.
  {
    preset: "codex",
    price: "price = { input_per_mtok = 1.25, output_per_mtok = 10.0, cached_input_per_mtok = 0.125 }",
    reply: "Edited a.txt.",
    turns: 1,
    usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 74, cost_usd: (400 * 1.25 + 2000 * 0.125 + 74 * 10) / 1e6 },
  },
  // gemini-0.61.0-success: tokens {prompt 2400, cached 2000, candidates 60, thoughts 14},
  // api.totalRequests 2. Thoughts are billed as output: 60 + 14 = 74.
  {
    preset: "gemini",
    price: "price = { input_per_mtok = 1.25, output_per_mtok = 10.0 }",
    reply: "Edited a.txt.",
    turns: 2,
    usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 74, cost_usd: (2400 * 1.25 + 74 * 10) / 1e6 },
  },
  // aider prints no JSON: its "Tokens: … Cost: $…" line is read (from its docs: not a recording).
  {
    preset: "aider",
    reply: "Edited a.txt.",
    turns: 1,
    usage: { input_tokens: 12000, cached_input_tokens: 2100, output_tokens: 133, cost_usd: 0.04 },
  },
];

for (const c of cases) {
  test(`preset ${c.preset} — argv checked by a fake ${c.preset} on PATH; reply, turns, tokens and cost reach the output and the budget`, async () => {
    const h = harness();
    try {
      withFakes(h);
      const agentRunners = runners(`[agents.default]\npreset = "${c.preset}"\n${c.price ?? ""}\n`);
      const p = plan([agent("fix", "Fix the bug.\nWRITE a.txt\n")], { budget_usd: 100 });
      const { run, outcome, show } = await runPlan(h, p, { agentRunners });
      assert.equal(outcome.status, "passed", JSON.stringify(show.tasks.fix));
      const out = show.tasks.fix!.output as Record<string, unknown>;
      // aider has no structured reply: its whole stdout, less the token report lines.
      if (c.preset === "aider") assert.ok(String(out.reply).includes(c.reply) && !String(out.reply).includes("Tokens:"), String(out.reply));
      else assert.equal(out.reply, c.reply);
      assert.equal(out.turns, c.turns);
      const u = usages(h, run)[""]!;
      assert.equal(u.input_tokens, c.usage.input_tokens);
      assert.equal(u.cached_input_tokens, c.usage.cached_input_tokens);
      assert.equal(u.output_tokens, c.usage.output_tokens);
      assert.ok(Math.abs(u.cost_usd! - c.usage.cost_usd!) < 1e-12, `cost ${u.cost_usd} vs ${c.usage.cost_usd}`);
      assert.ok(Math.abs(foldEvents(h.store, run).spentUsd - c.usage.cost_usd!) < 1e-12, "the cost is charged to the budget");
      assert.deepEqual(show.tasks.fix!.usage, u, "show RUN --json has the instance's tokens and cost_usd");
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  });
}

for (const preset of ["claude-code", "codex", "gemini"]) {
  for (const mode of ["malformed", "truncated", "error"]) {
    test(`preset ${preset} — a ${mode} reply fails only that instance, naming the tool`, async () => {
      const h = harness();
      try {
        withFakes(h);
        const agentRunners = {
          ...runners(`[agents.bad]\npreset = "${preset}"\nenv = { FAKE_AGENT_MODE = "${mode}" }\n[agents.good]\npreset = "${preset}"\n`),
        };
        const p = plan([
          evaluate("list"),
          agent("fix", "Fix {{key}}.", { ...mapped(ref("list", "keys")), depends_on: ["list"], runner: "bad" }),
          agent("other", "Fix {{key}}.", { ...mapped(ref("list", "keys")), depends_on: ["list"], runner: "good" }),
        ]);
        p.tasks[1]!.retries = 0;
        const { run, outcome, show } = await runPlan(h, p, { agentRunners, fns: { list: () => ({ keys: ["k1", "k2"] }) } });
        assert.equal(outcome.status, "failed");
        assert.deepEqual(statuses(show, "fix"), { k1: "failed", k2: "failed" });
        assert.deepEqual(statuses(show, "other"), { k1: "passed", k2: "passed" });
        const err = show.tasks.fix!.instances!.k1!.error!;
        const tool = { "claude-code": "Claude Code", codex: "Codex CLI", gemini: "Gemini CLI" }[preset]!;
        assert.match(err, /agent-output-invalid/);
        assert.ok(err.includes(tool), err);
        if (mode === "truncated") assert.match(err, /cut short/);
        // A turn that reported an error still cost what the tool says: it is charged
        // (claude-2.1.197-error-max-turns: 0.0135; success: 0.00405).
        if (preset === "claude-code" && mode === "error")
          assert.ok(
            Math.abs(foldEvents(h.store, run).spentUsd - (2 * 0.013500000000000003 + 2 * 0.00405)) < 1e-12,
            String(foldEvents(h.store, run).spentUsd),
          );
      } finally {
        h.store.close();
        h.dir.cleanup();
      }
    });
  }
}

test("preset aider — an unreadable token report fails the instance naming aider", async () => {
  const h = harness();
  try {
    withFakes(h);
    const agentRunners = runners(`[agents.default]\npreset = "aider"\nenv = { FAKE_AGENT_MODE = "malformed" }\n`);
    const p = plan([agent("fix", "WRITE a.txt")]);
    p.tasks[0]!.retries = 0;
    const { show } = await runPlan(h, p, { agentRunners });
    assert.match(show.tasks.fix!.error ?? JSON.stringify(show.tasks.fix), /aider.*token report/);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("extra args and env are merged in; effort maps onto the tool's knobs", async () => {
  const h = harness();
  try {
    withFakes(h);
    const log = join(h.dir.path, "calls.jsonl");
    const agentRunners = runners(
      `[agents.default]\npreset = "codex"\nargs = ["-m", "gpt-6-luna"]\nenv = { FAKE_AGENT_LOG = ${JSON.stringify(log)} }\n` +
        `[agents.claude]\npreset = "claude-code"\nargs = ["--model", "sonnet"]\nenv = { FAKE_AGENT_LOG = ${JSON.stringify(log)} }\n`,
    );
    const p = plan([agent("a", "hi"), agent("b", "hi", { runner: "claude" })]);
    p.tasks[0]!.agent!.effort = "high";
    p.tasks[1]!.agent!.effort = "low";
    const { outcome } = await runPlan(h, p, { agentRunners });
    assert.equal(outcome.status, "passed");
    const calls = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool: string; argv: string[] });
    const codex = calls.find((c) => c.tool === "codex")!;
    assert.deepEqual(codex.argv, [
      "exec",
      "--json",
      "--sandbox",
      "workspace-write",
      "--skip-git-repo-check",
      "-c",
      "model_reasoning_effort=high",
      "-m",
      "gpt-6-luna",
      "-",
    ]);
    const claude = calls.find((c) => c.tool === "claude")!;
    assert.deepEqual(claude.argv, [
      "-p",
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
      "--effort",
      "low",
      "--max-turns",
      "10",
      "--model",
      "sonnet",
    ]);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("a generic runner's tokens without a cost are priced by its price table", async () => {
  const h = harness();
  try {
    const agentRunners = runners(
      `[agents.default]\ncommand = ["sh", "-c", "printf '{\\"input_tokens\\": 2000000, \\"cached_input_tokens\\": 1000000, \\"output_tokens\\": 1000000}' > \\"$SWITCHYARD_USAGE\\""]\n` +
        `price = { input_per_mtok = 1.0, output_per_mtok = 2.0, cached_input_per_mtok = 0.5 }\n`,
    );
    const { run, outcome } = await runPlan(h, plan([agent("fix", "hi")], { budget_usd: 100 }), { agentRunners });
    assert.equal(outcome.status, "passed");
    assert.deepEqual(usages(h, run)[""], {
      input_tokens: 2000000,
      cached_input_tokens: 1000000,
      output_tokens: 1000000,
      cost_usd: 1.0 + 0.5 + 2.0,
    });
    assert.equal(foldEvents(h.store, run).spentUsd, 3.5);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
