// Events are a union narrowed by `type`; each consumer of the log (fold, projection,
// display) is a table with one handler per type, and what an event charges to the run's spend is
// decided in one function (chargedUsd) that the engine, the fold and the projection all use.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { admitRun, RunEngine, type EventHandlers } from "../../src/run/index.js";
import { chargedUsd } from "../../src/run/store/events.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import { agent, harness, plan, runner } from "./helpers.js";
import { loadLog, readLog } from "../support/golden-logs.js";

test("a handler table that leaves out an event type does not compile", () => {
  // @ts-expect-error every event type needs a handler (this line stops compiling if one is optional)
  const incomplete: EventHandlers<[], string> = { plan_admitted: () => "" };
  assert.equal(typeof incomplete, "object");
});

test("R-6: the spend the fold and the runs row count is chargedUsd summed over the log", () => {
  const h = harness();
  try {
    const log = readLog("agents-budget-retry");
    loadLog(h.store, log);
    const total = [...h.store.events(log.run)].reduce((sum, e) => sum + chargedUsd(e), 0);
    assert.equal(Math.round(total * 1e6), 30000, "three agent turns at $0.01");
    assert.equal(foldEvents(h.store, log.run).spentUsd, total);
    assert.equal(h.store.run(log.run)!.spent_usd, total);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test(
  "R-6: an agent's cost reported before a cancel is recorded with the interruption and counted like any other",
  { timeout: 120_000 },
  async () => {
    const h = harness();
    try {
      const started = join(h.dir.path, "started");
      const script = h.dir.file(
        "agent.sh",
        `#!/bin/sh\ncat > /dev/null\nprintf '{"cost_usd": 0.25}' > "$SWITCHYARD_USAGE"\ntouch '${started}'\nsleep 30\n`,
        0o755,
      );
      const run = admitRun(h.store, { plan: plan([agent("turn", "think")]), packDir: h.pack, sourcePath: h.pack });
      const engine = new RunEngine({ store: h.store, run, resume: false, agentRunners: runner("default", [script]) });
      const done = engine.execute();
      // Wait for the agent to have started (the test's timeout bounds it).
      while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
      engine.cancel();
      assert.equal((await done).status, "cancelled");
      const interrupted = [...h.store.events(run)].filter((e) => e.type === "instance_interrupted");
      assert.equal(interrupted.length, 1);
      assert.deepEqual(interrupted[0]!.payload, { attempt: 1, usage: { cost_usd: 0.25 } });
      assert.equal(engine.spentUsd(), 0.25);
      assert.equal(foldEvents(h.store, run).spentUsd, 0.25);
      assert.equal(h.store.run(run)!.spent_usd, 0.25);
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  },
);
