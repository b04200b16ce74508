// G-1 … G-6 as known answers on hand-built task states: which dependency or gate decides an
// instance, the label it carries, the reason word for word, and what closing an instance writes
// to the log (nothing the log already holds, R-4).

import { test } from "node:test";
import assert from "node:assert/strict";
import { closeInstance, disposition, sharedDisposition, type Disposition } from "../../src/run/engine/gating.js";
import { TaskState, UNMAPPED, type Inst, type Recorded } from "../../src/run/engine/task-state.js";
import type { InstanceStatus } from "../../src/run/store/events.js";
import type { TaskPlan, WhenPlan } from "../../src/plan/plan.js";

interface Spec {
  mapped?: boolean;
  join?: "all" | "any";
  when?: Partial<WhenPlan> & { route: string };
  status?: InstanceStatus;
  label?: string;
  /** key → [status, label?, output?] */
  inst?: Record<string, [InstanceStatus, string?, unknown?]>;
}

function task(name: string, s: Spec = {}): TaskState {
  const plan = {
    name,
    join: s.join ?? "all",
    ...(s.mapped ? { over: { task: "src", field: "members" } } : {}),
    ...(s.when ? { when: { question: "q", otherwise: false, labels: ["go"], any_option: false, ...s.when } } : {}),
  } as unknown as TaskPlan;
  const ts = new TaskState(plan);
  ts.status = s.status ?? "pending";
  if (s.label !== undefined) ts.label = s.label;
  for (const [key, [status, label, output]] of Object.entries(s.inst ?? {})) {
    ts.inst.set(key, { key: key === UNMAPPED ? null : key, status, label, output, attempts: 1, tries: 0, rounds: [] });
  }
  return ts;
}
const tasksOf = (...list: TaskState[]) => new Map(list.map((t) => [t.name, t]));

test("G-5: with join all, a dependency not taken makes the instance not taken, even after a failed one", () => {
  const failed = task("a", { status: "failed" });
  const untaken = task("b", { status: "not_taken", inst: { [UNMAPPED]: ["not_taken", "spam"] } });
  const t = task("t");
  t.deps = [failed, untaken];
  assert.deepEqual(disposition(t, null, tasksOf(failed, untaken, t)), {
    status: "not_taken",
    label: "spam",
    reason: "dependency b was not taken (G-5)",
  });
  // A mapped dependency not taken as a whole carries its task-level label.
  const mappedUntaken = task("m", { mapped: true, status: "not_taken", label: "none", inst: { x: ["not_taken", "other"] } });
  t.deps = [mappedUntaken];
  assert.deepEqual(disposition(t, "x", tasksOf(mappedUntaken, t)), {
    status: "not_taken",
    label: "none",
    reason: "dependency m was not taken (G-5)",
  });
  // An unmapped dependency with no instance yet: its task label.
  const bare = task("u", { status: "not_taken", label: "closed" });
  t.deps = [bare];
  assert.deepEqual(disposition(t, null, tasksOf(bare, t)), {
    status: "not_taken",
    label: "closed",
    reason: "dependency u was not taken (G-5)",
  });
});

test("G-5: with join all, the first failed or blocked dependency blocks the instance; all passed runs it", () => {
  const a = task("a", { status: "passed" });
  const b = task("b", { status: "failed" });
  const c = task("c", { status: "blocked" });
  const t = task("t");
  t.deps = [a, b, c];
  assert.deepEqual(disposition(t, null, tasksOf(a, b, c, t)), {
    status: "blocked",
    code: "dependency-failed",
    reason: "dependency b failed (G-5)",
  });
  t.deps = [a, c, b];
  assert.deepEqual(disposition(t, null, tasksOf(a, b, c, t)), {
    status: "blocked",
    code: "dependency-failed",
    reason: "dependency c blocked (G-5)",
  });
  t.deps = [a];
  assert.equal(disposition(t, null, tasksOf(a, t)), null);
  t.deps = [];
  assert.equal(disposition(t, null, tasksOf(t)), null);
});

test("G-5: an aligned dependency is read per key, by its instance for that key", () => {
  const m = task("m", { mapped: true, status: "passed", inst: { x: ["not_taken", "lo"], y: ["failed"], z: ["passed"] } });
  const t = task("t", { mapped: true });
  t.deps = [m];
  t.aligned = [m];
  const tasks = tasksOf(m, t);
  assert.deepEqual(disposition(t, "x", tasks), { status: "not_taken", label: "lo", reason: "dependency m[x] was not taken (G-5)" });
  assert.deepEqual(disposition(t, "y", tasks), { status: "blocked", code: "dependency-failed", reason: "dependency m[y] failed (G-5)" });
  assert.equal(disposition(t, "z", tasks), null);
  // No instance for the key yet: the task's own status stands in.
  assert.equal(disposition(t, "w", tasks), null);
  m.status = "failed";
  assert.deepEqual(disposition(t, "w", tasks), { status: "blocked", code: "dependency-failed", reason: "dependency m[w] failed (G-5)" });
});

test("G-6: with another join, an element untaken on every aligned dependency stays untaken, with the first label", () => {
  const a = task("a", { mapped: true, status: "passed", inst: { x: ["not_taken", "la"], y: ["not_taken", "ly"], z: ["passed"] } });
  const b = task("b", { mapped: true, status: "not_taken", label: "lb", inst: { x: ["not_taken", "lbx"], y: ["failed"] } });
  const t = task("t", { mapped: true, join: "any" });
  t.deps = [a, b];
  t.aligned = [a, b];
  const tasks = tasksOf(a, b, t);
  const g6 = "every aligned dependency was not taken for this key (G-6)";
  assert.deepEqual(disposition(t, "x", tasks), { status: "not_taken", label: "la", reason: g6 });
  assert.equal(disposition(t, "y", tasks), null, "b[y] failed: not every aligned dependency was untaken");
  assert.equal(disposition(t, "z", tasks), null);
  // No instance for the key on a, whose task ran: not untaken everywhere.
  assert.equal(disposition(t, "v", tasks), null);
  // Neither has an instance for the key, both not taken as tasks: the task label of the first.
  a.status = "not_taken";
  a.label = "ta";
  assert.deepEqual(disposition(t, "v", tasks), { status: "not_taken", label: "ta", reason: g6 });
  // Unmapped (key null) does not apply G-6.
  assert.equal(disposition(t, null, tasks), null);
  // A mapped task with no aligned dependency is not G-6's: its element runs.
  const lone = task("l", { mapped: true, join: "any" });
  assert.equal(disposition(lone, "x", tasksOf(lone)), null);
  // Failed dependencies do not block under another join.
  const f = task("f", { status: "failed" });
  const u = task("u", { join: "any" });
  u.deps = [f];
  assert.equal(disposition(u, null, tasksOf(f, u)), null);
});

test("G-1, G-2: a gate opens on one of its labels, closes on another, and is blocked without an answer", () => {
  const answer = (label: unknown) => ({ q: { label } });
  const r = task("r", { inst: { [UNMAPPED]: ["passed", undefined, answer("go")] } });
  const t = task("t", { when: { route: "r", labels: ["go", "maybe"] } });
  const tasks = tasksOf(r, t);
  assert.equal(disposition(t, null, tasks), null);
  assert.equal(disposition(t, "k1", tasks), null, "an unmapped route answers for every key");
  r.inst.get(UNMAPPED)!.output = answer("stop");
  assert.deepEqual(disposition(t, null, tasks), { status: "not_taken", label: "stop", reason: "gate closed: r.q answered stop (G-1)" });
  r.inst.get(UNMAPPED)!.output = answer("uncertain");
  assert.deepEqual(disposition(t, null, tasks), {
    status: "not_taken",
    label: "uncertain",
    reason: "gate closed: r.q answered uncertain (G-1)",
  });
  for (const output of [answer(3), {}, undefined]) {
    r.inst.get(UNMAPPED)!.output = output;
    assert.deepEqual(disposition(t, null, tasks), {
      status: "blocked",
      code: "gate-unanswered",
      reason: "route r recorded no answer to q (G-1)",
    });
  }
  r.inst.get(UNMAPPED)!.status = "failed";
  assert.deepEqual(disposition(t, null, tasks), {
    status: "blocked",
    code: "gate-unanswered",
    reason: "gate route r failed; its answer is unknown (G-1)",
  });
  r.inst.get(UNMAPPED)!.status = "not_taken";
  r.inst.get(UNMAPPED)!.label = "off";
  assert.deepEqual(disposition(t, null, tasks), { status: "not_taken", label: "off", reason: "gate route r was not taken (G-5)" });
  r.inst.clear();
  assert.deepEqual(disposition(t, null, tasks), {
    status: "blocked",
    code: "gate-unanswered",
    reason: "route r has no instance for key  (G-2)",
  });
});

test("Q-33: any_option opens the gate on every label but uncertain", () => {
  const r = task("r", { inst: { [UNMAPPED]: ["passed", undefined, { q: { label: "whatever" } }] } });
  const t = task("t", { when: { route: "r", labels: [], any_option: true } });
  const tasks = tasksOf(r, t);
  assert.equal(disposition(t, null, tasks), null);
  r.inst.get(UNMAPPED)!.output = { q: { label: "uncertain" } };
  assert.deepEqual(disposition(t, null, tasks), {
    status: "not_taken",
    label: "uncertain",
    reason: "gate closed: r.q answered uncertain (G-1)",
  });
});

test("G-2: a gate on a mapped route is read per key, and is blocked from an unmapped task", () => {
  const r = task("r", { mapped: true, inst: { x: ["passed", undefined, { q: { label: "go" } }], y: ["running"] } });
  const t = task("t", { mapped: true, when: { route: "r" } });
  const tasks = tasksOf(r, t);
  assert.equal(disposition(t, "x", tasks), null);
  assert.deepEqual(disposition(t, "y", tasks), {
    status: "blocked",
    code: "gate-unanswered",
    reason: "gate route r[y] running; its answer is unknown (G-1)",
  });
  assert.deepEqual(disposition(t, "z", tasks), {
    status: "blocked",
    code: "gate-unanswered",
    reason: "route r has no instance for key z (G-2)",
  });
  const u = task("u", { when: { route: "r" } });
  assert.deepEqual(disposition(u, null, tasksOf(r, u)), {
    status: "blocked",
    code: "gate-unanswered",
    reason: "gate on mapped route r from an unmapped task (G-2)",
  });
});

test("sharedDisposition: one answer for all keys only without aligned dependencies and without a gate on a mapped route", () => {
  const m = task("m", { mapped: true, inst: {} });
  const r = task("r", { inst: { [UNMAPPED]: ["passed", undefined, { q: { label: "stop" } }] } });
  const aligned = task("t1", { mapped: true });
  aligned.deps = [m];
  aligned.aligned = [m];
  assert.equal(sharedDisposition(aligned, tasksOf(m, r, aligned)), undefined);
  const onMapped = task("t2", { mapped: true, when: { route: "m" } });
  assert.equal(sharedDisposition(onMapped, tasksOf(m, r, onMapped)), undefined);
  const onUnmapped = task("t3", { mapped: true, when: { route: "r" } });
  assert.deepEqual(sharedDisposition(onUnmapped, tasksOf(m, r, onUnmapped)), {
    status: "not_taken",
    label: "stop",
    reason: "gate closed: r.q answered stop (G-1)",
  });
  const plain = task("t4", { mapped: true });
  assert.equal(sharedDisposition(plain, tasksOf(plain)), null);
});

function instance(status: InstanceStatus, rec?: Recorded): Inst {
  return { key: "k1", status, attempts: 2, tries: 0, rounds: [], ...(rec ? { rec } : {}) };
}
function close(ts: TaskState, inst: Inst, d: Disposition) {
  const events: unknown[] = [];
  ts.counts[inst.status] += 1;
  closeInstance(ts, inst, d, (type, task, key, payload) => void events.push([type, task, key, payload]));
  return events;
}
const rec = (status: InstanceStatus, extra: Partial<Recorded> = {}): Recorded => ({ status, attempts: 1, rounds: [], ...extra });

test("R-4: closing an instance not taken writes gate_closed with its label, unless the log already says so", () => {
  const ts = task("t", { mapped: true });
  const notTaken: Disposition = { status: "not_taken", label: "no", reason: "why" };
  const inst = instance("pending");
  assert.deepEqual(close(ts, inst, notTaken), [["gate_closed", "t", "k1", { label: "no", reason: "why" }]]);
  assert.equal(inst.status, "not_taken");
  assert.equal(inst.label, "no");
  assert.deepEqual(ts.counts, { pending: 0, running: 0, waiting: 0, passed: 0, failed: 0, not_taken: 1, blocked: 0 });
  assert.deepEqual(close(ts, instance("pending"), { status: "not_taken", reason: "why" }), [["gate_closed", "t", "k1", { reason: "why" }]]);
  assert.deepEqual(close(ts, instance("pending", rec("not_taken", { label: "no" })), notTaken), []);
  assert.deepEqual(close(ts, instance("pending", rec("not_taken", { label: "yes" })), notTaken).length, 1);
  assert.deepEqual(close(ts, instance("pending", rec("blocked", { label: "no" })), notTaken).length, 1);
});

test("R-4: closing a blocked instance writes instance_finished with its code, unless the log holds that outcome", () => {
  const ts = task("t", { mapped: true });
  const blocked: Disposition = { status: "blocked", code: "gate-unanswered", reason: "why" };
  const inst = instance("pending");
  assert.deepEqual(close(ts, inst, blocked), [
    ["instance_finished", "t", "k1", { attempt: 2, status: "blocked", error: "why", code: "gate-unanswered" }],
  ]);
  assert.equal(inst.status, "blocked");
  assert.equal(inst.error, "why");
  assert.deepEqual(close(ts, instance("pending", rec("blocked", { code: "gate-unanswered" })), blocked), []);
  // Written before blocked outcomes had codes: the same outcome.
  assert.deepEqual(close(ts, instance("pending", rec("blocked")), blocked), []);
  assert.equal(close(ts, instance("pending", rec("blocked", { code: "dependency-failed" })), blocked).length, 1);
  assert.equal(close(ts, instance("pending", rec("failed", { code: "gate-unanswered" })), blocked).length, 1);
});
