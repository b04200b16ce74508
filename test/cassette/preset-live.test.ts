// Cassettes of preset runners (Claude Code, Codex, Gemini CLI) on the fix-in-worktree example:
// the shipped cassette replays offline against the example's demo repository; and a run recorded
// with a preset, then tested with one more ticket, misses exactly that ticket, which
// `--allow-live --update` runs for real with the configured preset and writes into the cassette,
// after which the changed pack replays with no call at all. The agent CLIs are the suite's fakes
// (test/support/fake-agent-cli.ts), which replay recordings of the real tools; the expected
// replies, turns, tokens and costs are read off those recordings by hand (as in
// test/run/agent-presets.test.ts), never from the cassette code.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cli } from "../e2e/support/harness.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";

const EXAMPLE = resolve("examples/fix-in-worktree");

let dir: string;
let bin: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "sy-cassette-preset-"));
  bin = fakeAgentBin(dir, ["claude", "codex", "gemini"]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The example's demo repository, made by its own script in a fresh folder. */
function demoRepo(name: string): string {
  const repo = join(dir, name);
  execFileSync(process.execPath, [join(EXAMPLE, "demo-repo.mjs"), repo], { stdio: "ignore" });
  return repo;
}

/** Runs the CLI with the fake agent CLIs first on PATH, each call logged to `log`. */
const sy = (args: string[], log: string) =>
  cli(args, {
    cwd: dir,
    env: { XDG_CONFIG_HOME: join(dir, "xdg"), SWITCHYARD_HOME: "", PATH: `${bin}:${process.env.PATH}`, FAKE_AGENT_LOG: log },
  });

const calls = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);

test("the fix-in-worktree example's cassette replays offline into fresh worktrees of its demo repository, with no agent CLI called", async () => {
  const repo = demoRepo("repo-shipped");
  const log = join(dir, "shipped.log");
  const r = await sy(["test", EXAMPLE, "--cassette", join(EXAMPLE, "cassette.jsonl"), "--repo", repo], log);
  assert.equal(
    r.code,
    0,
    `examples/fix-in-worktree/cassette.jsonl is stale: record it again (docs/testing-playbooks.md)\n${r.out}\n${r.err}`,
  );
  assert.match(r.out, /^test fix: passed: 3 agent turns and 0 decisions answered from the cassette, 0 misses; the run passed$/m);
  assert.deepEqual(calls(log), []);
});

/**
 * What each preset's recorded success reports (test/fixtures/real-agents/, read by hand):
 * preset → [tool on PATH, price table line, turns, input, cached input, output tokens, cost].
 *   claude-2.1.197-success: total_cost_usd 0.00405; input 600 fresh + 3000 cache read; 3 turns.
 *   codex-0.171.0-success-shell: tokens only (400 fresh, 2000 cached, 74 out) at the price table.
 *   gemini-0.61.0-success: prompt 2400 (2000 cached), 60 candidates + 14 thoughts; 2 requests.
 */
const CODEX_PRICE = "price = { input_per_mtok = 1.25, output_per_mtok = 10.0, cached_input_per_mtok = 0.125 }";
const GEMINI_PRICE = "price = { input_per_mtok = 1.25, output_per_mtok = 10.0 }";
const PRESETS: Record<string, [string, string, number, number, number, number, number]> = {
  "claude-code": ["claude", "", 3, 3600, 3000, 90, 0.00405],
  codex: ["codex", CODEX_PRICE, 1, 2400, 2000, 74, (400 * 1.25 + 2000 * 0.125 + 74 * 10) / 1e6],
  gemini: ["gemini", GEMINI_PRICE, 2, 2400, 2000, 74, (2400 * 1.25 + 74 * 10) / 1e6],
};

interface Entry {
  key: string;
  answer: { status: string; output: Record<string, unknown>; patch?: string; usage?: Record<string, number> };
}

const entries = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as Entry);

for (const [preset, [tool, price, turns, input_tokens, cached_input_tokens, output_tokens, cost_usd]] of Object.entries(PRESETS)) {
  const c = { preset, tool, price, turns, usage: { input_tokens, cached_input_tokens, output_tokens, cost_usd } };
  test(`--allow-live runs a missed turn with the ${c.preset} preset and --update writes it into the cassette; the changed pack then replays with no call`, async () => {
    const repo = demoRepo(`repo-${c.preset}`);
    const pack = join(dir, `pack-${c.preset}`);
    cpSync(EXAMPLE, pack, { recursive: true });
    const config = join(dir, `${c.preset}.toml`);
    writeFileSync(config, `[agents.coder]\npreset = "${c.preset}"\n${c.price}\n`);
    const cassette = join(dir, `${c.preset}.jsonl`);
    const recordLog = join(dir, `${c.preset}-record.log`);
    const state = join(dir, `${c.preset}-state`);
    const rec = await sy(["run", pack, "--config", config, "--repo", repo, "--state-dir", state, "-q"], recordLog);
    assert.equal(rec.code, 0, `the recorded run passes\n${rec.out}\n${rec.err}`);
    assert.equal(calls(recordLog).length, 3);
    const w = await sy(["cassette", "latest", "--state-dir", state, "-o", cassette], recordLog);
    assert.equal(w.code, 0, w.err);

    // One more ticket: exactly it misses, and nothing is run.
    const tickets = JSON.parse(readFileSync(join(pack, "tickets.json"), "utf8")) as unknown[];
    tickets.push({ id: "BUG-4", file: "src/slug.py", problem: "slug() keeps a leading dash for text starting with punctuation" });
    writeFileSync(join(pack, "tickets.json"), JSON.stringify(tickets));
    const offlineLog = join(dir, `${c.preset}-offline.log`);
    const miss = await sy(["test", pack, "--cassette", cassette, "--repo", repo], offlineLog);
    assert.equal(miss.code, 1, miss.out + miss.err);
    assert.deepEqual(
      miss.out.split("\n").filter((l) => l.startsWith("  agent turn")),
      ["  agent turn fix[BUG-4]: a new element: the cassette has no turn for it"],
    );
    assert.deepEqual(calls(offlineLog), []);

    // --allow-live --update: the miss is run once, by the preset's tool, and written in.
    const liveLog = join(dir, `${c.preset}-live.log`);
    const live = await sy(["test", pack, "--cassette", cassette, "--repo", repo, "--config", config, "--allow-live", "--update"], liveLog);
    assert.equal(live.code, 0, live.out + live.err);
    assert.match(live.out, /^updated .*: 4 agent turns, 0 decisions, /m);
    const liveCalls = calls(liveLog).map((l) => JSON.parse(l) as { tool: string; key: string });
    assert.deepEqual(
      liveCalls.map((l) => [l.tool, l.key]),
      [[c.tool, "BUG-4"]],
    );
    const added = entries(cassette).find((e) => e.key === "BUG-4")!;
    assert.equal(added.answer.status, "passed");
    assert.deepEqual(added.answer.output, { reply: "Edited src/slug.py.", turns: c.turns });
    assert.equal(added.answer.usage?.input_tokens, c.usage.input_tokens);
    assert.equal(added.answer.usage?.cached_input_tokens, c.usage.cached_input_tokens);
    assert.equal(added.answer.usage?.output_tokens, c.usage.output_tokens);
    assert.ok(Math.abs(added.answer.usage!.cost_usd! - c.usage.cost_usd) < 1e-12, JSON.stringify(added.answer.usage));
    assert.match(added.answer.patch ?? "", new RegExp(`^\\+\\+\\+ b/src/slug\\.py\\n[^]*^\\+fixed by ${c.tool}$`, "m"));

    // The changed pack now replays from the updated cassette: every turn a hit, no call.
    const replayLog = join(dir, `${c.preset}-replay.log`);
    const again = await sy(["test", pack, "--cassette", cassette, "--repo", repo], replayLog);
    assert.equal(again.code, 0, again.out + again.err);
    assert.match(again.out, /^test fix: passed: 4 agent turns and 0 decisions answered from the cassette, 0 misses; the run passed$/m);
    assert.deepEqual(calls(replayLog), []);
  });
}
