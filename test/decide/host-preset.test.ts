// D-20: the host runner gets the context an agent gets. Through the real CLI, the host
// is `[agents.claude] preset = "claude-code"` with a fake `claude` on PATH: it is started the way
// Claude Code runs non-interactively, in a folder of its own that is removed afterwards, with
// SWITCHYARD_RUN/TASK/KEY/WORKSPACE, the judgement type and the question as JSON; its reply is
// read from Claude Code's JSON result, and the tokens and cost it reports are recorded with the
// decision.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { SqliteStore } from "../../src/run/index.js";
import type { EventPayloads } from "../../src/run/index.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-host-preset-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Call {
  tool: string;
  argv: string[];
  cwd: string;
  context: Record<string, string>;
}

test("a preset host runner gets SWITCHYARD_RUN/TASK/KEY, its workspace, the judgement type and SWITCHYARD_QUESTION; its JSON reply and cost are read", () => {
  const pack = join(dir, "pack");
  mkdirSync(pack);
  writeFileSync(
    join(pack, "main.star"),
    `playbook(description = "host preset fixture")
prepare = command(name = "prepare", run = """printf '%s' '{"members": ["a", "b"]}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
gate = route(name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    questions = {"exploitable": noul(ask = "Exploitable?", drop = ["no", "uncertain"])})
fix = agent(name = "fix", depends_on = [prepare, gate], over = prepare.members, max_fanout = 10,
    when = gate.exploitable, answers = "yes", runner = "claude", prompt = "WRITE f.txt")
`,
  );
  const log = join(dir, "calls.jsonl");
  const config = join(dir, "config.toml");
  writeFileSync(
    config,
    `[agents.claude]\npreset = "claude-code"\nenv = { FAKE_AGENT_LOG = ${JSON.stringify(log)}, FAKE_AGENT_REPLY = "yes" }\n\n[decisions]\ndefault = "host"\nhost = "claude"\n`,
  );
  const state = join(dir, "state");
  const r = spawnSync(process.execPath, [BIN, "run", pack, "--state-dir", state, "--config", config], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${fakeAgentBin(dir, ["claude"])}:${process.env.PATH}`, XDG_CONFIG_HOME: join(dir, "no-xdg") },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const run = /^run (\S+):/m.exec(r.stdout)?.[1];
  assert.ok(run, r.stdout);

  const calls = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Call);
  const hostCalls = calls.filter((c) => c.context.SWITCHYARD_QUESTION !== undefined);
  assert.equal(hostCalls.length, 2, "one host call per element");
  assert.equal(calls.length, 4, "and one agent turn per element answered yes");
  for (const c of hostCalls) {
    assert.deepEqual(
      c.argv,
      ["-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--effort", "low", "--max-turns", "10"],
      "started as Claude Code runs non-interactively",
    );
    assert.equal(c.context.SWITCHYARD_RUN, run);
    assert.equal(c.context.SWITCHYARD_TASK, "gate");
    assert.ok(["a", "b"].includes(c.context.SWITCHYARD_KEY!), c.context.SWITCHYARD_KEY);
    assert.equal(c.context.SWITCHYARD_JUDGEMENT_TYPE, "main.gate.exploitable");
    assert.deepEqual(JSON.parse(c.context.SWITCHYARD_QUESTION!), {
      id: "exploitable",
      type: "main.gate.exploitable",
      kind: "noul",
      ask: "Exploitable?",
      labels: ["yes", "no"],
      descriptions: {},
    });
    assert.equal(c.context.SWITCHYARD_WORKSPACE, c.cwd, "it runs in its workspace");
    assert.ok(!c.cwd.startsWith(pack) && c.cwd !== process.cwd(), "a folder of its own, not the pack or the working directory");
    assert.ok(!existsSync(c.cwd), "removed after the answer");
  }
  const keys = new Set(hostCalls.map((c) => c.context.SWITCHYARD_KEY));
  assert.deepEqual([...keys].sort(), ["a", "b"]);

  const store = new SqliteStore(state);
  try {
    const decisions = [...store.events(run)]
      .filter((e) => e.type === "decision_recorded")
      .map((e) => (e.payload as EventPayloads["decision_recorded"]).record.exploitable!);
    assert.equal(decisions.length, 2);
    for (const d of decisions) {
      assert.equal(d.label, "yes");
      assert.equal(d.provider, "host");
      assert.equal(d.model, "claude");
      // claude-2.1.197-success (the fake's recording): total_cost_usd 0.00405; 600 + 3000 input tokens.
      assert.equal(d.usage?.cost_usd, 0.00405, "Claude Code's reported cost is recorded with the decision");
      assert.equal(d.usage?.input_tokens, 3600);
    }
  } finally {
    store.close();
  }
});
