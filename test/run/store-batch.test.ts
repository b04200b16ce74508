// the store writes each instance row once per committed batch (the batch's final state);
// the rows must be exactly those that applying every event on its own gives, and a rebuild of a
// long log (more events than one rebuild transaction holds) must give them too.

import { TABLE, testStore } from "../support/test-store.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventPayloads, EventType, Store } from "../../src/run/index.js";
import type { Plan } from "../../src/plan/plan.js";

type Step = { [T in EventType]: [T, string | null, string | null, EventPayloads[T]] }[EventType];

const PLAN = {
  playbook: "batches",
  tasks: [
    { name: "each", kind: "evaluate", over: { task: "prepare", field: "members" } },
    { name: "pick", kind: "route", over: { task: "prepare", field: "members" } },
  ],
} as unknown as Plan;

/** A log that exercises every instance transition, several times per key and per batch. */
function steps(elements: number): Step[] {
  const out: Step[] = [
    [
      "plan_admitted",
      null,
      null,
      {
        plan: PLAN,
        snapshot: { dir: "/x", source: "/y", files: 0, bytes: 0 },
        source_path: "/y",
        settings: { concurrency: 1, decision_concurrency: 1, max_duration_seconds: 60 },
        pid: 1,
      },
    ],
    ["task_expanded", "each", null, { count: elements }],
  ];
  for (let i = 0; i < elements; i++) {
    const key = `k-${i}`;
    switch (i % 6) {
      case 0: // started, retried, started, finished with output
        out.push(["instance_started", "each", key, { attempt: 1 }]);
        out.push(["instance_retried", "each", key, { attempt: 1, error: "flaky", delay_ms: 1, usage: { cost_usd: 0.5 } }]);
        out.push(["instance_started", "each", key, { attempt: 2 }]);
        out.push(["instance_finished", "each", key, { attempt: 2, status: "passed", output: { n: i, text: 'a "quoted" \u0000 value' } }]);
        break;
      case 1: // started then interrupted (resume runs it again)
        out.push(["instance_started", "each", key, { attempt: 1 }]);
        out.push(["instance_interrupted", "each", key, { attempt: 1 }]);
        break;
      case 2: // a closed gate: attempts stay those recorded before (MAX)
        out.push(["instance_started", "each", key, { attempt: 3 }]);
        out.push(["gate_closed", "each", key, { label: "no", reason: "gate" }]);
        break;
      case 3: // a failure with no output
        out.push(["instance_started", "each", key, { attempt: 1 }]);
        out.push(["instance_finished", "each", key, { attempt: 1, status: "failed", error: "boom", code: "x" }]);
        break;
      case 4: // a decision, then an interruption of a row written earlier
        out.push(["instance_started", "pick", key, { attempt: 1 }]);
        out.push([
          "decision_recorded",
          "pick",
          key,
          {
            attempt: 1,
            record: {
              q: {
                label: "a",
                probabilities: { a: 1 },
                confidence: 1,
                refused: false,
                judgement_type: "t",
                mode: "model",
                provider: "p",
                model: "m",
                latency_ms: 1,
                usage: null,
              },
            },
          },
        ]);
        break;
      case 5: // interrupted, then started again
        out.push(["instance_interrupted", "each", `k-${i - 4}`, { attempt: 1 }]);
        out.push(["instance_started", "each", `k-${i - 4}`, { attempt: 2 }]);
        out.push(["instance_interrupted", "pick", `k-${i - 1}`, { attempt: 1 }]);
        break;
    }
  }
  out.push([
    "fold_settled",
    "each",
    null,
    { status: "failed", summary: { total: elements, passed: 1, failed: 1, not_taken: 1, blocked: 0 } },
  ]);
  out.push(["instance_started", "pick", "late", { attempt: 1 }]);
  out.push(["task_settled", "pick", null, { status: "passed" }]);
  out.push(["run_finished", null, null, { status: "failed" }]);
  return out;
}

function rows(store: Store) {
  return {
    runs: store.select({ sqlite: "SELECT run, playbook, status, spent_usd FROM runs" }),
    tasks: store.select(TABLE.tasks),
    instances: store.select(TABLE.instances),
  };
}

test("R-3: batched projections equal event-by-event ones, and a rebuild of over 4000 events equals both", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-store-batch-"));
  try {
    const log = steps(1800); // ~4,500 events: the rebuild commits them in two transactions
    const single = testStore(join(dir, "single"));
    const batched = testStore(join(dir, "batched"));
    for (const [type, task, key, payload] of log) {
      single.append("r", type, task, key, payload as never);
      single.flush(); // each event in its own transaction
      batched.append("r", type, task, key, payload as never);
    }
    batched.flush(); // everything in one transaction
    const expected = rows(single);
    assert.ok(log.length > 4000);
    assert.deepEqual(rows(batched), expected);
    // The events themselves are all there, in order, whatever the batching.
    assert.deepEqual(
      [...batched.events("r")].map((e) => [e.seq, e.type, e.task, e.key, e.payload]),
      log.map(([type, task, key, payload], i) => [i + 1, type, task, key, JSON.parse(JSON.stringify(payload))]),
    );
    assert.equal(batched.rebuild("r"), log.length);
    assert.deepEqual(rows(batched), expected);
    // Spot checks that the comparison is not vacuous.
    const row = (task: string, k: string) =>
      (expected.instances as Array<Record<string, unknown>>).find((r) => r.task === task && r.key === k)!;
    assert.deepEqual(
      [row("each", "k-0").status, row("each", "k-0").attempts, JSON.parse(row("each", "k-0").output as string)],
      ["passed", 2, { n: 0, text: 'a "quoted" \u0000 value' }],
    );
    assert.deepEqual([row("each", "k-1").status, row("each", "k-1").attempts], ["running", 2]);
    assert.deepEqual([row("each", "k-2").status, row("each", "k-2").attempts, row("each", "k-2").label], ["not_taken", 3, "no"]);
    assert.deepEqual([row("pick", "k-4").status, JSON.parse(row("pick", "k-4").output as string).q.label], ["pending", "a"]);
    assert.equal((expected.runs[0] as { spent_usd: number }).spent_usd, 0.5 * 300);
    single.close();
    batched.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
