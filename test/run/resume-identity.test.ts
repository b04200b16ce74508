// resume decides whether the log already holds an event by what the event means (its
// status, code and label), never by its wording. A log written by a version that worded the same
// outcome differently resumes without writing the outcome a second time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { harness, plan, evaluate, mapped, ref, runPlan, resumePlan } from "./helpers.js";

test("R-4: a reworded blocked or task-failed message does not make a resumed run write duplicate events", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list", twice: "list" } }),
      evaluate("step", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
      evaluate("after", { depends_on: ["step"], ...mapped(ref("prepare", "members")) }),
      evaluate("dupes", { depends_on: ["prepare"], ...mapped(ref("prepare", "twice")) }),
    ]);
    const fns = {
      prepare: () => ({ members: ["ok", "bad"], twice: ["x", "x"] }),
      step: (i: { key: string }) => {
        if (i.key === "bad") throw new Error("boom");
        return {};
      },
      after: () => ({}),
      dupes: () => ({}),
    };
    const { run, outcome } = await runPlan(h, p, { fns });
    assert.equal(outcome.status, "failed");

    const count = (type: string, task: string, status?: string) =>
      [...h.store.events(run)].filter(
        (e) => e.type === type && e.task === task && (status === undefined || (e.payload as { status?: string }).status === status),
      ).length;
    assert.equal(count("instance_finished", "after", "blocked"), 1);
    assert.equal(count("task_failed", "dupes"), 1);

    // The same outcomes as an earlier version would have worded them.
    const reworded = h.store.select(
      {
        sqlite: `UPDATE events SET payload = json_set(payload, '$.error', 'worded by an earlier version')
         WHERE run = ? AND ((type = 'instance_finished' AND json_extract(payload, '$.status') = 'blocked') OR type = 'task_failed') RETURNING seq`,
        postgres: `UPDATE events SET payload = jsonb_set(payload::jsonb, '{error}', '"worded by an earlier version"')::text
         WHERE run = $1 AND ((type = 'instance_finished' AND (payload::jsonb)->>'status' = 'blocked') OR type = 'task_failed') RETURNING seq`,
      },
      [run],
    );
    assert.equal(reworded.length, 2);

    const second = await resumePlan(h, run, { fns });
    assert.equal(second.outcome.status, "failed");
    assert.equal(count("instance_finished", "step", "failed"), 2, "the failed instance ran again in a new attempt");
    assert.equal(count("instance_finished", "after", "blocked"), 1, "the blocked instance was not recorded again");
    assert.equal(count("task_failed", "dupes"), 1, "the failed mapped task was not recorded again");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
