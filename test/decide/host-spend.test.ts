// What a host runner spends is paid for, and its rate limits are waited out (D-20, R-6, D-40).
// The host is `preset = "claude-code"` with the fake `claude` on PATH, which replays Claude Code
// 2.1.197's recorded reports (test/fixtures/real-agents/): the figures below are read off those
// files by hand —
//   claude-2.1.197-success:         usage input 600 + cache read 3000, output 90, total_cost_usd 0.00405
//   claude-2.1.197-error-max-turns: usage input 2000 + cache read 10000, output 300, total_cost_usd 0.0135
// and the preset counts input_tokens as input + cache creation + cache reads (docs/agents/claude-code.md).
// The 429 is the fake's derivation of the recorded API error (its usage all zeros).

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHostProvider } from "../../src/decide/providers/index.js";
import { parseMachineConfig } from "../../src/decide/config.js";
import { DecisionFailure, type Usage } from "../../src/run/kinds/judge.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import { choiceQ, providerRequest } from "../support/decide-fixtures.js";
import { failure } from "../support/assertions.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { storeEnv, storeIn } from "../support/test-store.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-host-spend-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const PATH = `${fakeAgentBin(dir, ["claude"])}:${process.env.PATH}`;

const ANSWERED: Usage = { input_tokens: 3600, cached_input_tokens: 3000, output_tokens: 90, cost_usd: 0.00405 };
const TURN_LIMIT: Usage = { input_tokens: 12000, cached_input_tokens: 10000, output_tokens: 300, cost_usd: 0.0135 };

const team = choiceQ("team", { billing: "Payments", technical: "Bugs" });
const severity = choiceQ("severity", { low: "", high: "" });

let n = 0;
/** A fresh call counter and call log for the fake. */
function fresh(): { counter: string; log: string } {
  n += 1;
  return { counter: join(dir, `counter-${n}`), log: join(dir, `calls-${n}.jsonl`) };
}

/** The questions the fake was asked, call by call (from its log). */
function asked(log: string): string[] {
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(JSON.parse(l).context.SWITCHYARD_QUESTION) as { id: string }).id);
}

function hostWith(env: Record<string, string>) {
  const table = Object.entries(env)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(", ");
  const runner = parseMachineConfig(`[agents.h]\npreset = "claude-code"\nenv = { ${table} }\n`, "/tmp/c.toml").agents.h!;
  return createHostProvider({ runner });
}

async function withPath<T>(f: () => Promise<T>): Promise<T> {
  const before = process.env.PATH;
  process.env.PATH = PATH;
  try {
    return await f();
  } finally {
    process.env.PATH = before;
  }
}

const close = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) < 1e-12;

function assertUsage(u: Usage | null | undefined, want: Usage, why: string): void {
  assert.ok(u, `${why}: no usage`);
  assert.deepEqual(
    { input: u.input_tokens, cached: u.cached_input_tokens, output: u.output_tokens },
    { input: want.input_tokens, cached: want.cached_input_tokens, output: want.output_tokens },
    why,
  );
  assert.ok(close(u.cost_usd, want.cost_usd!), `${why}: cost ${u.cost_usd}, expected ${want.cost_usd}`);
}

test("D-20 host: a call that fails after spending carries the tokens and cost the tool reported", async () => {
  const e = await withPath(() => failure(hostWith({ FAKE_AGENT_MODE: "error" }).ask(providerRequest([team]))));
  assert.ok(e instanceof DecisionFailure, String(e));
  assert.equal(e.code, "host-failed");
  assertUsage(e.usage, TURN_LIMIT, "the turn-limit report's usage");
});

test("D-20 host: the failure of a later question carries what the questions answered before it spent", async () => {
  const { counter, log } = fresh();
  const e = await withPath(() =>
    failure(
      hostWith({ FAKE_AGENT_MODES: "ok,error", FAKE_AGENT_COUNTER: counter, FAKE_AGENT_LOG: log, FAKE_AGENT_REPLY: "billing" }).ask(
        providerRequest([team, severity]),
      ),
    ),
  );
  assert.ok(e instanceof DecisionFailure, String(e));
  assert.deepEqual(asked(log), ["team", "severity"]);
  assertUsage(e.usage, { input_tokens: 15600, cached_input_tokens: 13000, output_tokens: 390, cost_usd: 0.01755 }, "both calls");
});

test("D-20 host: a rate limit is waited out and the same question asked again; an answered question is never asked twice", async () => {
  const { counter, log } = fresh();
  const r = await withPath(() =>
    hostWith({
      FAKE_AGENT_MODES: "ok,rate-limit,ok",
      FAKE_AGENT_COUNTER: counter,
      FAKE_AGENT_LOG: log,
      FAKE_AGENT_REPLY: "billing",
      FAKE_AGENT_RETRY_IN: "5ms",
    }).ask(providerRequest([team, choiceQ("other", { billing: "", refund: "" })])),
  );
  assert.deepEqual(asked(log), ["team", "other", "other"], "only the rate-limited question is asked again");
  assert.equal(r.answers.team?.probabilities?.billing, 1);
  assert.equal(r.answers.other?.probabilities?.billing, 1);
  // Two answers and a 429 that reported zeros.
  assertUsage(r.usage, { input_tokens: 7200, cached_input_tokens: 6000, output_tokens: 180, cost_usd: 0.0081 }, "two answers");
});

test("D-20 host: 20 rate limits in a row are waited out; the 21st fails the decision as host-failed", async () => {
  const modes = (limits: number) => [...Array<string>(limits).fill("rate-limit"), "ok"].join(",");
  const twenty = fresh();
  const ok = await withPath(() =>
    hostWith({
      FAKE_AGENT_MODES: modes(20),
      FAKE_AGENT_COUNTER: twenty.counter,
      FAKE_AGENT_LOG: twenty.log,
      FAKE_AGENT_REPLY: "billing",
      FAKE_AGENT_RETRY_IN: "1ms",
    }).ask(providerRequest([team])),
  );
  assert.equal(asked(twenty.log).length, 21);
  assert.equal(ok.answers.team?.probabilities?.billing, 1);
  assertUsage(ok.usage, ANSWERED, "one answer; the 429s reported zeros");

  const more = fresh();
  const e = await withPath(() =>
    failure(
      hostWith({ FAKE_AGENT_MODES: modes(21), FAKE_AGENT_COUNTER: more.counter, FAKE_AGENT_LOG: more.log, FAKE_AGENT_RETRY_IN: "1ms" }).ask(
        providerRequest([team]),
      ),
    ),
  );
  assert.equal(asked(more.log).length, 21, "no 22nd call");
  assert.ok(e instanceof DecisionFailure, String(e));
  assert.equal(e.code, "host-failed");
  assert.match(e.message, /429.*rate limited 21 times in a row/s);
});

// Through a real run: the route's host is the fake Claude Code; decisions one at a time.
const PLAYBOOK = `playbook(description = "host spend fixture", decision_concurrency = 1)
prepare = command(name = "prepare", run = """printf '%s' '{"members": ["a", "b", "c"]}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
gate = route(name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    questions = {"exploitable": noul(ask = "Exploitable?", drop = ["no", "uncertain"])})
after = command(name = "after", depends_on = [prepare, gate], over = prepare.members, max_fanout = 10,
    when = gate.exploitable, answers = "yes", run = "true")
`;
const pack = join(dir, "pack");
mkdirSync(pack);
writeFileSync(join(pack, "main.star"), PLAYBOOK);

interface Ran {
  status: string;
  calls: number;
  spent: number;
  failed: Array<{ code?: string; usage?: Usage }>;
  shown: Array<{ usage?: Usage }>;
}

async function runPack(name: string, env: Record<string, string>, budget?: string): Promise<Ran> {
  const { log } = fresh();
  const table = Object.entries({ ...env, FAKE_AGENT_LOG: log })
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(", ");
  const config = join(dir, `${name}.toml`);
  writeFileSync(config, `[agents.claude]\npreset = "claude-code"\nenv = { ${table} }\n\n[decisions]\ndefault = "host"\nhost = "claude"\n`);
  const state = join(dir, `state-${name}`);
  const runEnv = { ...process.env, ...storeEnv(state), PATH, XDG_CONFIG_HOME: join(dir, "no-xdg") };
  const r = spawnSync(
    process.execPath,
    [BIN, "run", pack, "--state-dir", state, "--config", config, ...(budget ? ["--budget-usd", budget] : [])],
    { encoding: "utf8", env: runEnv },
  );
  const id = /^run (\S+):/m.exec(r.stdout)?.[1];
  assert.ok(id, r.stdout + r.stderr);
  // The run in a child process (it starts the host's agent CLI); `show` in this one.
  const show = await spawnCliInProcess(["show", id, "--state-dir", state, "--json"], { env: runEnv });
  assert.equal(show.status, 0, show.stderr);
  const shown = JSON.parse(show.stdout) as { status: string; tasks: Record<string, { instances?: Record<string, { usage?: Usage }> }> };
  const store = storeIn(state);
  try {
    const failed = [...store.events(id)]
      .filter((e) => e.type === "instance_finished" && e.task === "gate")
      .map((e) => e.payload as { code?: string; usage?: Usage });
    const folded = foldEvents(store, id);
    return {
      status: shown.status,
      calls: readFileSync(log, "utf8").trim().split("\n").length,
      spent: folded.spentUsd,
      failed,
      shown: Object.values(shown.tasks.gate?.instances ?? {}),
    };
  } finally {
    store.close();
  }
}

test("R-6, D-40: a failed host call is charged — recorded with the failed instance, shown by show --json, counted against budget_usd", async () => {
  const all = await runPack("fail-all", { FAKE_AGENT_MODE: "error" });
  assert.equal(all.calls, 3);
  assert.equal(all.status, "failed");
  assert.equal(all.failed.length, 3);
  for (const f of all.failed) {
    assert.equal(f.code, "host-failed");
    assertUsage(f.usage, TURN_LIMIT, "the failed instance's usage");
  }
  assert.equal(all.shown.length, 3);
  for (const s of all.shown) assertUsage(s.usage, TURN_LIMIT, "show --json");
  assert.ok(close(all.spent, 3 * 0.0135), `spent ${all.spent}`);

  // 0.0135 after one failed call is under 0.02; 0.027 after two is not: the third is never asked.
  const capped = await runPack("fail-budget", { FAKE_AGENT_MODE: "error" }, "0.02");
  assert.equal(capped.calls, 2, "the budget stopped the run before the third host call");
  assert.equal(capped.status, "stopped");
  assert.ok(close(capped.spent, 2 * 0.0135), `spent ${capped.spent}`);
});

test("R-6, D-40: an answering host is charged too: a budget of 0.008 stops the run after two answers of 0.00405", async () => {
  const capped = await runPack("answer-budget", { FAKE_AGENT_REPLY: "yes" }, "0.008");
  assert.equal(capped.calls, 2);
  assert.equal(capped.status, "stopped");
  assert.ok(close(capped.spent, 2 * 0.00405), `spent ${capped.spent}`);
  // 0.0081 after two answers is under 0.0082: the third is asked.
  const room = await runPack("answer-room", { FAKE_AGENT_REPLY: "yes" }, "0.0082");
  assert.equal(room.calls, 3);
  assert.ok(close(room.spent, 3 * 0.00405), `spent ${room.spent}`);
});

test("D-20 host in a run: a rate limit is waited out, the decision recorded once, and the route's retries are not used", async () => {
  const { counter } = fresh();
  const r = await runPack("rate-limited", {
    FAKE_AGENT_RATE_LIMITS: "1",
    FAKE_AGENT_COUNTER: counter,
    FAKE_AGENT_RETRY_IN: "5ms",
    FAKE_AGENT_REPLY: "yes",
  });
  assert.equal(r.calls, 4, "three elements, one of them asked again after the 429");
  assert.equal(r.failed.length, 0, "no instance failed");
  assert.ok(close(r.spent, 3 * 0.00405), `spent ${r.spent}`);
});
