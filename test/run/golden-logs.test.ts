// the golden event logs under test/fixtures/logs/ were recorded once by an
// earlier version. Every later version must read each one to the same records — what resume
// folds from it and the runs/tasks/instances rows it projects — and resume it without recording
// anything about a task or an instance: the run is over, so the only new events are the
// invocation's own `run_resumed` and `run_finished`.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RunEngine } from "../../src/run/index.js";
import { harness } from "./helpers.js";
import { LOGS_DIR, foldedRecords, loadLog, projection, readLog, refusingJudge } from "../support/golden-logs.js";

const names = readdirSync(LOGS_DIR)
  .filter((f) => f.endsWith(".events.jsonl"))
  .map((f) => f.slice(0, -".events.jsonl".length))
  .sort();

test("the golden logs are present (a missing fixture cannot pass silently)", () => {
  assert.deepEqual(names, ["agents-budget-retry", "gated-fanout", "rerun-element"]);
});

for (const name of names) {
  test(`golden log ${name}: folds and projects to the recorded records; resume records nothing about any task`, async () => {
    const h = harness();
    // The log names the pack snapshot of the machine it was recorded on; resume refuses a run
    // whose snapshot is gone, so the folders it names exist (empty) while it resumes.
    const log = readLog(name);
    const made = log.events
      .filter((e) => e.type === "plan_admitted" || e.type === "pack_refreshed")
      .map((e) => (JSON.parse(e.payload) as { snapshot: { dir: string } }).snapshot.dir)
      .filter((d) => !existsSync(d))
      // mkdirSync returns the first folder it had to make: the one to remove afterwards.
      .map((d) => mkdirSync(d, { recursive: true }))
      .filter((d): d is string => d !== undefined);
    try {
      const expected = JSON.parse(readFileSync(join(LOGS_DIR, `${name}.expected.json`), "utf8")) as {
        folded: unknown;
        projection: unknown;
      };
      loadLog(h.store, log);
      assert.deepEqual(foldedRecords(h.store, log.run), expected.folded, "what resume folds from the log");
      assert.deepEqual(projection(h.store, log.run), expected.projection, "the projected rows");

      const judge = refusingJudge();
      const engine = new RunEngine({
        store: h.store,
        run: log.run,
        resume: true,
        judge,
        agentRunners: {},
        evaluators: () => () => {
          throw new Error("a golden log's resume ran an evaluator");
        },
      });
      const outcome = await engine.execute();
      assert.equal(outcome.status, "passed");
      assert.equal(judge.calls.length, 0, "no decision was asked again");
      const added = [...h.store.events(log.run)].slice(log.events.length);
      assert.deepEqual(
        added.map((e) => [e.type, e.task, e.key]),
        [
          ["run_resumed", null, null],
          ["run_finished", null, null],
        ],
      );
      const after = foldedRecords(h.store, log.run) as { instances: unknown; tasks: unknown };
      const before = expected.folded as { instances: unknown; tasks: unknown };
      assert.deepEqual([after.instances, after.tasks], [before.instances, before.tasks], "the resumed log still folds to the same records");
    } finally {
      h.store.close();
      h.dir.cleanup();
      for (const d of made) rmSync(d, { recursive: true, force: true });
    }
  });
}
