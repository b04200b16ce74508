// An agent runs in its workspace with PWD naming that folder, as a shell's `cd` would set it.
// Tools that take PWD for their working folder (opencode does, found by the real-agent suite)
// would otherwise work in the folder switchyard was started from. (A command task goes through
// sh, which corrects a stale PWD itself; a runner is started directly.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { agent, harness, plan, runPlan } from "./helpers.js";
import { parseMachineConfig } from "../../src/decide/config.js";

test("an agent runner is started with PWD naming its workspace, not switchyard's own folder", async () => {
  const h = harness();
  const saved = process.env.PWD;
  try {
    // switchyard's own PWD, inherited by its children unless it is set for them.
    process.env.PWD = process.cwd();
    const script = `require("fs").writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ pwd: process.env.PWD, cwd: process.cwd() }))`;
    const agentRunners = parseMachineConfig(
      `[agents.default]\ncommand = ${JSON.stringify([process.execPath, "-e", script])}\n`,
      "/tmp/config.toml",
    ).agents;
    const { outcome, show } = await runPlan(h, plan([agent("where", "Say where you are.")]), { agentRunners });
    assert.equal(outcome.status, "passed", JSON.stringify(show.tasks.where));
    const out = show.tasks.where!.output as { pwd: string; cwd: string };
    assert.notEqual(out.cwd, process.cwd());
    assert.equal(out.pwd, out.cwd);
  } finally {
    process.env.PWD = saved;
    h.store.close();
    h.dir.cleanup();
  }
});
