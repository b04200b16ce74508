// Rate limits do not wipe a fan-out: a turn that ends in the tool's rate-limit report
// is tried again after the delay the tool asks for, without counting as a failed attempt, and the
// runner's concurrency is halved while limits arrive and raised again after a quiet period. The
// fakes replay a 429 DERIVED from each tool's recorded API error (test/support/fake-agent-cli.ts).
// Asserted from the recorded events and a fake clock, never from wall time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { agent, evaluate, harness, mapped, plan, ref, runPlan, statuses } from "./helpers.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { parseMachineConfig } from "../../src/decide/config.js";
import { RunnerLimiter, BACKOFF_BASE_MS, BACKOFF_MAX_MS, rateLimitState } from "../../src/run/agents/agent-rate-limits.js";
import type { EventPayloads } from "../../src/run/store/events.js";

test("AIMD: each limit halves the runner's concurrency (at least 1); after a quiet period each passed turn adds one, up to the playbook's", async () => {
  let now = 0;
  const l = new RunnerLimiter(8, 60_000, () => now);
  const never = new AbortController().signal;
  for (let i = 0; i < 8; i++) await l.acquire(never);
  assert.deepEqual(l.limited(undefined), { delay_ms: BACKOFF_BASE_MS, limit: 4 }); // 8 running → 4
  assert.deepEqual(l.limited(undefined), { delay_ms: 2 * BACKOFF_BASE_MS, limit: 2 }); // min(4, 8) / 2
  assert.deepEqual(l.limited(1500), { delay_ms: 1500, limit: 1 }); // the tool's own delay wins
  assert.equal(l.limited(undefined).limit, 1, "never below one");
  for (let i = 0; i < 10; i++) l.limited(undefined);
  assert.equal(l.limited(undefined).delay_ms, BACKOFF_MAX_MS, "the backoff is capped");
  for (let i = 0; i < 8; i++) l.release();
  now += 59_999;
  assert.deepEqual(l.passed(), { changed: false, limit: 1 }, "not quiet yet");
  now += 1;
  assert.deepEqual(l.passed(), { changed: true, limit: 2 });
  for (const want of [3, 4, 5, 6, 7]) assert.deepEqual(l.passed(), { changed: true, limit: want });
  assert.deepEqual(l.passed(), { changed: true, limit: null }, "back at the playbook's concurrency: no limit of its own");
});

test("AIMD: a turn waits for a slot under the runner's limit, and starts when one is released", async () => {
  const l = new RunnerLimiter(4, 0, () => 0);
  const never = new AbortController().signal;
  await l.acquire(never);
  await l.acquire(never);
  l.limited(undefined); // 2 running → limit 1
  let started = false;
  const third = l.acquire(never).then(() => (started = true));
  l.release();
  await Promise.resolve();
  assert.equal(started, false, "one still runs: the limit is 1");
  l.release();
  await third;
  assert.equal(started, true);
  assert.equal(l.running, 1);
});

for (const preset of ["codex", "claude-code", "gemini"]) {
  test(`${preset}: 429s across a fan-out are retried after the tool's delay, not counted as failed attempts (retries = 0), and lower the runner's concurrency`, async () => {
    const h = harness();
    try {
      process.env.PATH = `${fakeAgentBin(h.dir.path)}:${process.env.PATH}`;
      const counter = join(h.dir.path, "calls");
      const agentRunners = parseMachineConfig(
        `[agents.default]\npreset = "${preset}"\nrate_limit_quiet_seconds = 0\n` +
          `env = { FAKE_AGENT_RATE_LIMITS = "3", FAKE_AGENT_COUNTER = ${JSON.stringify(counter)}, FAKE_AGENT_RETRY_IN = "0.01s" }\n`,
        "/tmp/config.toml",
      ).agents;
      const p = plan([evaluate("list"), agent("fix", "WRITE {{key}}.txt", { ...mapped(ref("list", "keys")), depends_on: ["list"] })], {
        concurrency: 4,
      });
      p.tasks[1]!.retries = 0;
      const { run, show } = await runPlan(h, p, { agentRunners, fns: { list: () => ({ keys: ["k1", "k2", "k3", "k4"] }) } });
      assert.deepEqual(statuses(show, "fix"), { k1: "passed", k2: "passed", k3: "passed", k4: "passed" });
      const events = [...h.store.events(run)];
      const retried = events.filter((e) => e.type === "instance_retried").map((e) => e.payload as EventPayloads["instance_retried"]);
      assert.equal(retried.length, 3, "the three 429s, each retried");
      for (const r of retried) {
        assert.equal(r.delay_ms, 10, "the delay the tool asked for (0.01s)");
        assert.equal(r.code, "agent-output-invalid");
        assert.ok(r.rate_limited, JSON.stringify(r));
        assert.equal(r.rate_limited.runner, "default");
      }
      // At most 4 ran when the first limit came: halved to at most 2; never raised by a limit.
      assert.ok(retried[0]!.rate_limited!.concurrency <= 2, JSON.stringify(retried));
      for (let i = 1; i < retried.length; i++)
        assert.ok(retried[i]!.rate_limited!.concurrency <= retried[i - 1]!.rate_limited!.concurrency);
      // Quiet period 0: the passed turns raise it again, recorded with them.
      const raised = events
        .filter((e) => e.type === "instance_finished")
        .map((e) => (e.payload as EventPayloads["instance_finished"]).runner_concurrency)
        .filter((c) => c !== undefined);
      assert.ok(raised.length >= 1, "a passed turn after the limits raised the concurrency");
      // What `status` shows: the turns retried per runner, and its concurrency after the last change.
      const last = events
        .filter(
          (e) =>
            (e.type === "instance_retried" && (e.payload as EventPayloads["instance_retried"]).rate_limited) ||
            (e.type === "instance_finished" && (e.payload as EventPayloads["instance_finished"]).runner_concurrency),
        )
        .pop()!;
      const now =
        last.type === "instance_retried"
          ? (last.payload as EventPayloads["instance_retried"]).rate_limited!.concurrency
          : (last.payload as EventPayloads["instance_finished"]).runner_concurrency!.limit;
      assert.deepEqual(rateLimitState(h.store, run), { default: { retried: 3, concurrency: now } });
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  });
}

for (const mode of ["api-error", "api-error-500"])
  test(`a rate limit is told apart from other API errors: Codex's recorded ${mode} fails the attempt (no rate_limited)`, async () => {
    const h = harness();
    try {
      process.env.PATH = `${fakeAgentBin(h.dir.path)}:${process.env.PATH}`;
      const agentRunners = parseMachineConfig(
        `[agents.default]\npreset = "codex"\nenv = { FAKE_AGENT_MODE = "${mode}" }\n`,
        "/tmp/c.toml",
      ).agents;
      const p = plan([agent("fix", "hi")]);
      p.tasks[0]!.retries = 1;
      const { run } = await runPlan(h, p, { agentRunners, retryBaseMs: 1 });
      const retried = [...h.store.events(run)]
        .filter((e) => e.type === "instance_retried")
        .map((e) => e.payload as EventPayloads["instance_retried"]);
      assert.equal(retried.length, 1, "an ordinary retry, counted");
      assert.equal(retried[0]!.rate_limited, undefined);
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  });
