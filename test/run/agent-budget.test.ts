// D-40 presets and R-6 budgets, through the real CLI with a fake `codex` on PATH (Codex reports tokens but no
// cost): without a price table, `run` says plainly that budget_usd cannot be enforced for that
// runner and records the tokens without a cost; with `price = {…}`, the tokens become cost_usd
// and a budget smaller than one turn stops the run.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { storeEnv, storeIn } from "../support/test-store.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import type { Usage } from "../../src/run/kinds/judge.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-agent-budget-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const PATH = `${fakeAgentBin(dir, ["codex"])}:${process.env.PATH}`;

const pack = join(dir, "pack");
mkdirSync(pack);
writeFileSync(
  join(pack, "main.star"),
  `playbook(description = "budget fixture", concurrency = 1)
prepare = command(name = "prepare", run = """printf '%s' '{"members": ["a", "b", "c"]}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
fix = agent(name = "fix", depends_on = [prepare], over = prepare.members, max_fanout = 10, runner = "cx", prompt = "Fix {{key}}.\\nWRITE {{key}}.txt\\n")
`,
);

function run(
  name: string,
  config: string,
  budget: string,
): { code: number | null; stderr: string; usages: Usage[]; spent: number; run: string } {
  const configFile = join(dir, `${name}.toml`);
  writeFileSync(configFile, config);
  const state = join(dir, `state-${name}`);
  const r = spawnSync(process.execPath, [BIN, "run", pack, "--state-dir", state, "--config", configFile, "--budget-usd", budget], {
    encoding: "utf8",
    env: { ...process.env, ...storeEnv(state), PATH, XDG_CONFIG_HOME: join(dir, "no-xdg") },
  });
  const id = /^run (\S+):/m.exec(r.stdout)?.[1];
  assert.ok(id, r.stdout + r.stderr);
  const store = storeIn(state);
  try {
    const usages = [...store.events(id)]
      .filter((e) => e.type === "instance_finished" && e.task === "fix")
      .map((e) => (e.payload as { usage?: Usage }).usage ?? {});
    return { code: r.status, stderr: r.stderr, usages, spent: foldEvents(store, id).spentUsd, run: id };
  } finally {
    store.close();
  }
}

test("budget_usd with a runner that reports no cost and has no price table: a plain warning, tokens recorded without cost", () => {
  const r = run("unpriced", `[agents.cx]\npreset = "codex"\n`, "0.01");
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning: budget_usd cannot be enforced for agent runner "cx": Codex CLI reports tokens but no cost; add price = \{ input_per_mtok = …, output_per_mtok = … \} to \[agents\.cx\]/,
  );
  assert.equal(r.usages.length, 3, "every turn ran: nothing was charged");
  for (const u of r.usages) {
    // codex-0.171.0-success-shell (the fake's recording): input 2400, output 74.
    assert.equal(u.input_tokens, 2400);
    assert.equal(u.output_tokens, 74);
    assert.equal(u.cost_usd, undefined);
  }
  assert.equal(r.spent, 0);
});

test("a price table turns Codex's tokens into cost_usd, charged to budget_usd, which then stops the run", () => {
  const price = `price = { input_per_mtok = 1.25, output_per_mtok = 10.0, cached_input_per_mtok = 0.125 }`;
  const perTurn = (400 * 1.25 + 2000 * 0.125 + 74 * 10) / 1e6; // 2400 in, 2000 cached, 74 out (recorded)
  const ok = run("priced", `[agents.cx]\npreset = "codex"\n${price}\n`, "1");
  assert.equal(ok.code, 0, ok.stderr);
  assert.doesNotMatch(ok.stderr, /cannot be enforced/);
  assert.equal(ok.usages.length, 3);
  for (const u of ok.usages) assert.ok(Math.abs(u.cost_usd! - perTurn) < 1e-12, String(u.cost_usd));
  assert.ok(Math.abs(ok.spent - 3 * perTurn) < 1e-12);
  // A budget below one turn's cost: the first turn is paid for, then the run stops.
  const stopped = run("stopped", `[agents.cx]\npreset = "codex"\n${price}\n`, String(perTurn / 2));
  assert.notEqual(stopped.code, 0, "the run stops on its budget");
  assert.equal(stopped.usages.length, 1, "no turn after the budget was spent");
  assert.ok(Math.abs(stopped.spent - perTurn) < 1e-12);
});
