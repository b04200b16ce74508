// the runs/tasks/instances rows the projection writes for a small log of two runs whose
// events interleave, committed in two batches, checked against rows written out by hand from the
// rules of R-3: a later write of an instance wins but its attempts keep their maximum; an
// interruption turns a row pending, whether this batch wrote it or an earlier one did; a task
// turns running at its first instance (and only from pending); spend is summed over the events
// that carry it. The run's active time (R-6) is checked against the recorded events' own times:
// each invocation lasts from its first event to its last, and a resume in the same batch as the
// events before it still counts them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore, type EventType } from "../../src/run/index.js";
import type { Plan } from "../../src/plan/plan.js";

const PLAN = {
  playbook: "rows",
  tasks: [
    { name: "prep", kind: "evaluate" },
    { name: "each", kind: "evaluate", over: { task: "prep", field: "members" } },
    { name: "pick", kind: "route", over: { task: "prep", field: "members" } },
  ],
} as unknown as Plan;

const admitted = (pid: number) => ({
  plan: PLAN,
  snapshot: { dir: "/x", source: "/y", files: 0, bytes: 0 },
  source_path: "/src/rows.star",
  settings: { concurrency: 1, decision_concurrency: 1, max_duration_seconds: 60 },
  pid,
});

/** Waits until the clock has moved on, so that consecutive events have different times. */
function tick(): void {
  const now = Date.now();
  while (Date.now() <= now) {
    // the next millisecond; no event to wait for here: the store stamps events with the clock
  }
}

test("R-3, R-6: two runs in two batches project to the rows worked out by hand", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-projection-"));
  const store = new SqliteStore(join(dir, "state"));
  try {
    const add = (run: string, type: EventType, task: string | null, key: string | null, payload: unknown) => {
      tick();
      store.append(run, type, task, key, payload as never);
    };
    // Batch 1: run r, with run s admitted and finished in between (so r is not the batch's last run).
    add("r", "plan_admitted", null, null, admitted(7));
    add("r", "task_expanded", "each", null, { count: 3 });
    add("r", "instance_started", "prep", null, { attempt: 1 });
    add("r", "instance_finished", "prep", null, { attempt: 1, status: "passed", output: { x: 1 }, usage: { cost_usd: 0.25 } });
    add("r", "task_settled", "prep", null, { status: "passed" });
    add("r", "instance_started", "each", "a", { attempt: 1 });
    add("r", "instance_retried", "each", "a", { attempt: 1, error: "flaky", delay_ms: 1, usage: { cost_usd: 0.5 } });
    add("r", "instance_started", "each", "a", { attempt: 2 });
    add("r", "instance_started", "each", "b", { attempt: 3 });
    add("r", "gate_closed", "each", "b", { label: "no", reason: "gate" });
    add("r", "instance_started", "each", "c", { attempt: 1 });
    add("r", "instance_started", "pick", "a", { attempt: 1 });
    add("s", "plan_admitted", null, null, admitted(8));
    add("s", "run_finished", null, null, { status: "passed" });
    add("r", "instance_interrupted", "each", "a", { attempt: 2, usage: { cost_usd: 0.125 } });
    add("r", "instance_finished", "pick", "a", { attempt: 1, status: "failed", error: "boom" });
    add("s", "run_cancelled", null, null, { reason: "ctrl-c" });
    store.flush();
    const batch1 = [...store.events("r")].map((e) => Date.parse(e.time));
    const sTimes = [...store.events("s")].map((e) => Date.parse(e.time));
    // After batch 1 each run's invocation has lasted until its own last event, though run s's came last.
    assert.deepEqual(store.select({ sqlite: "SELECT run, inv_start, inv_last FROM runs ORDER BY run" }), [
      { run: "r", inv_start: batch1[0]!, inv_last: batch1.at(-1)! },
      { run: "s", inv_start: sTimes[0]!, inv_last: sTimes.at(-1)! },
    ]);
    // Batch 2: r resumed after one more event of the earlier invocation, then an interruption of a
    // row batch 1 wrote, a reset, a rerun, a failed task.
    add("r", "instance_interrupted", "each", "c", { attempt: 1 });
    add("r", "run_resumed", null, null, { settings: admitted(0).settings, pid: 9 });
    add("r", "instance_reset", "each", "b", { reason: "rerun", previous: {} });
    add("r", "task_failed", "pick", null, { error: "bad list", code: "list-invalid" });
    add("r", "fold_settled", "each", null, { status: "failed", summary: { total: 3, passed: 0, failed: 1, not_taken: 1, blocked: 0 } });
    add("r", "task_reset", "prep", null, { reason: "rerun" });
    add("r", "run_stopped", null, null, { ceiling: "budget_usd", reason: "spent $1" });
    add("r", "rerun_requested", null, null, { tasks: [], keys: [], reset: 1, pid: 11 });
    store.flush();
    const all = [...store.events("r")].map((e) => Date.parse(e.time));
    const [t0, last1, interrupted, resumed, lastR] = [all[0]!, batch1.at(-1)!, all[batch1.length]!, all[batch1.length + 1]!, all.at(-1)!];

    assert.deepEqual(store.select({ sqlite: "SELECT * FROM runs ORDER BY run" }), [
      {
        run: "r",
        playbook: "rows",
        source: "/src/rows.star",
        status: "running",
        started_at: new Date(t0).toISOString(),
        finished_at: null,
        stop_reason: null,
        pid: 11,
        // The first invocation ran from its first event to the interruption just before the resume.
        prior_ms: interrupted - t0,
        inv_start: resumed,
        inv_last: lastR,
        spent_usd: 0.875,
      },
      {
        run: "s",
        playbook: "rows",
        source: "/src/rows.star",
        status: "cancelled",
        started_at: new Date(sTimes[0]!).toISOString(),
        finished_at: null,
        stop_reason: "ctrl-c",
        pid: null, // an ended run has no process
        prior_ms: 0,
        inv_start: sTimes[0]!,
        inv_last: sTimes.at(-1)!,
        spent_usd: 0,
      },
    ]);
    assert.ok(last1 < interrupted && interrupted < resumed, "the clock moved between the events");
    assert.deepEqual(store.select({ sqlite: "SELECT * FROM tasks ORDER BY run, task" }), [
      {
        run: "r",
        task: "each",
        ord: 1,
        kind: "evaluate",
        mapped: 1,
        status: "failed",
        count: 3,
        summary: '{"total":3,"passed":0,"failed":1,"not_taken":1,"blocked":0}',
        error: null,
      },
      { run: "r", task: "pick", ord: 2, kind: "route", mapped: 1, status: "failed", count: null, summary: null, error: "bad list" },
      { run: "r", task: "prep", ord: 0, kind: "evaluate", mapped: 0, status: "pending", count: null, summary: null, error: null },
      { run: "s", task: "each", ord: 1, kind: "evaluate", mapped: 1, status: "pending", count: null, summary: null, error: null },
      { run: "s", task: "pick", ord: 2, kind: "route", mapped: 1, status: "pending", count: null, summary: null, error: null },
      { run: "s", task: "prep", ord: 0, kind: "evaluate", mapped: 0, status: "pending", count: null, summary: null, error: null },
    ]);
    assert.deepEqual(store.select({ sqlite: "SELECT * FROM instances ORDER BY run, task, key" }), [
      { run: "r", task: "each", key: "a", status: "pending", attempts: 2, output: null, error: null, label: null },
      // reset after a closed gate at attempt 3: pending, the attempts kept (they only grow)
      { run: "r", task: "each", key: "b", status: "pending", attempts: 3, output: null, error: null, label: null },
      { run: "r", task: "each", key: "c", status: "pending", attempts: 1, output: null, error: null, label: null },
      { run: "r", task: "pick", key: "a", status: "failed", attempts: 1, output: null, error: "boom", label: null },
      { run: "r", task: "prep", key: "", status: "passed", attempts: 1, output: '{"x":1}', error: null, label: null },
    ]);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("R-3: within one batch a closed gate keeps the attempts before it and its label; a later, lower attempt does not lower them", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-projection-"));
  const store = new SqliteStore(join(dir, "state"));
  try {
    store.append("r", "plan_admitted", null, null, admitted(7) as never);
    store.append("r", "instance_started", "each", "a", { attempt: 3 });
    store.append("r", "gate_closed", "each", "a", { label: "no", reason: "gate" });
    store.append("r", "instance_started", "each", "b", { attempt: 2 });
    store.append("r", "instance_started", "each", "b", { attempt: 1 });
    store.append("r", "instance_started", "each", "c", { attempt: 4 });
    store.append("r", "instance_finished", "each", "c", { attempt: 5, status: "blocked", error: "upstream" });
    store.append("r", "instance_interrupted", "each", "d", { attempt: 1 });
    store.append("r", "gate_closed", "pick", "a", { reason: "join" });
    store.flush();
    assert.deepEqual(store.select({ sqlite: "SELECT * FROM instances ORDER BY run, task, key" }), [
      { run: "r", task: "each", key: "a", status: "not_taken", attempts: 3, output: null, error: null, label: "no" },
      { run: "r", task: "each", key: "b", status: "running", attempts: 2, output: null, error: null, label: null },
      { run: "r", task: "each", key: "c", status: "blocked", attempts: 5, output: null, error: "upstream", label: null },
      // an interruption of an instance never written leaves no row
      { run: "r", task: "pick", key: "a", status: "not_taken", attempts: 0, output: null, error: null, label: null },
    ]);
    // The first instance started turned its task running; a closed gate alone does not.
    assert.deepEqual(store.select({ sqlite: "SELECT task, status FROM tasks ORDER BY task" }), [
      { task: "each", status: "running" },
      { task: "pick", status: "pending" },
      { task: "prep", status: "pending" },
    ]);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("R-3: the last event of a batch decides a row: retried is pending with its error, review requested is waiting, a stop and a wait end the run", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-projection-"));
  const store = new SqliteStore(join(dir, "state"));
  try {
    store.append("r", "plan_admitted", null, null, admitted(7) as never);
    store.append("q", "plan_admitted", null, null, admitted(8) as never);
    store.append("r", "instance_started", "each", "a", { attempt: 1 });
    store.append("r", "instance_retried", "each", "a", { attempt: 1, error: "flaky", delay_ms: 1 } as never);
    store.append("r", "instance_started", "pick", "b", { attempt: 2 });
    store.append("r", "review_requested", "pick", "b", { attempt: 2, questions: [], decided: {}, state: null } as never);
    // Two tasks started in one batch both turn running; a task reset in the batch turns running again at its next start.
    store.append("r", "instance_started", "prep", null, { attempt: 1 });
    store.append("r", "task_reset", "prep", null, { reason: "rerun" });
    store.append("r", "instance_started", "prep", null, { attempt: 1 });
    store.append("r", "run_stopped", null, null, { ceiling: "budget_usd", reason: "spent $1" });
    store.append("q", "run_waiting", null, null, { waiting: 1, reason: "review" });
    store.flush();
    assert.deepEqual(store.select({ sqlite: "SELECT run, status, stop_reason, pid FROM runs ORDER BY run" }), [
      { run: "q", status: "waiting", stop_reason: "review", pid: null },
      { run: "r", status: "stopped", stop_reason: "spent $1", pid: null },
    ]);
    assert.deepEqual(store.select({ sqlite: "SELECT task, status FROM tasks WHERE run = 'r' ORDER BY task" }), [
      { task: "each", status: "running" },
      { task: "pick", status: "running" },
      { task: "prep", status: "running" },
    ]);
    assert.deepEqual(store.select({ sqlite: "SELECT task, key, status, attempts, error FROM instances ORDER BY task, key" }), [
      { task: "each", key: "a", status: "pending", attempts: 1, error: "flaky" },
      { task: "pick", key: "b", status: "waiting", attempts: 2, error: null },
      { task: "prep", key: "", status: "running", attempts: 1, error: null },
    ]);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
