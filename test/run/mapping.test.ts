// M-1 … M-4: mapping, alignment, keyed narrowing and the key as identity.

import { test } from "node:test";
import assert from "node:assert/strict";
import { harness, plan, evaluate, command, outputRoute, choice, mapped, ref, runPlan, resumePlan, statuses, writeJson } from "./helpers.js";

test("M-1: integer elements are keyed by their decimal text; an empty list gives a mapped task with no instances that passes", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list", none: "list" } }),
      evaluate("each", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
      evaluate("nothing", { depends_on: ["prepare"], ...mapped(ref("prepare", "none")) }),
    ]);
    const { show, outcome } = await runPlan(h, p, {
      fns: { prepare: () => ({ members: [1, 20, -3, "x"], none: [] }), each: (i) => ({ key: i.key, type: typeof i.key }) },
    });
    assert.equal(outcome.status, "passed");
    assert.deepEqual(Object.keys(show.tasks.each!.instances!).sort(), ["-3", "1", "20", "x"]);
    assert.deepEqual(show.tasks.each!.instances!["20"]!.output, { key: "20", type: "string" });
    assert.equal(show.tasks.nothing!.status, "passed");
    assert.deepEqual(show.tasks.nothing!.instances, {});
    assert.equal(show.tasks.nothing!.summary!.total, 0);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("M-2: aligned edges read the dependency's own instance by key; other edges read the fold; dependents expand only after the whole dependency settled", async () => {
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      command("prepare", writeJson({ members: ["fast", "slow"], other: ["o1"] }), { emits: { members: "list", other: "list" } }),
      command("a", `[ "$SWITCHYARD_KEY" = slow ] && sleep 0.3; printf '{"v":"%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT"`, {
        depends_on: ["prepare"],
        ...m,
      }),
      evaluate("b", { depends_on: ["a"], ...m }),
      evaluate("c", { depends_on: ["a", "prepare"], ...mapped(ref("prepare", "other")) }),
    ]);
    const { show, run } = await runPlan(h, p, { fns: { b: (i) => ({ saw: i.inputs.a }), c: (i) => ({ saw: i.inputs.a }) } });
    assert.deepEqual(show.tasks.b!.instances!.fast!.output, { saw: { v: "fast" } });
    assert.deepEqual(show.tasks.b!.instances!.slow!.output, { saw: { v: "slow" } });
    assert.deepEqual(show.tasks.c!.instances!.o1!.output, {
      saw: {
        items: { fast: { v: "fast" }, slow: { v: "slow" } },
        status: { fast: "passed", slow: "passed" },
        summary: { total: 2, passed: 2, failed: 0, not_taken: 0, blocked: 0 },
      },
    });
    const events = [...h.store.events(run)];
    const lastA = Math.max(...events.filter((e) => e.task === "a" && e.type === "instance_finished").map((e) => e.seq));
    const firstB = Math.min(...events.filter((e) => e.task === "b").map((e) => e.seq));
    assert.ok(firstB > lastA, "b[fast] must wait for a[slow]");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("M-3: keyed narrows an object field to the instance's own entry; a missing entry fails only that instance, naming field and key", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list", facts: "object" } }),
      evaluate("each", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")), keyed: [ref("prepare", "facts")] }),
    ]);
    const { show } = await runPlan(h, p, {
      fns: {
        prepare: () => ({ members: ["a", "b", "c"], facts: { a: { n: 1 }, c: { n: 3 } }, extra: 7 }),
        each: (i) => ({ facts: i.inputs.prepare.facts, members: i.inputs.prepare.members.length }),
      },
    });
    assert.deepEqual(show.tasks.each!.instances!.a!.output, { facts: { n: 1 }, members: 3 });
    assert.deepEqual(show.tasks.each!.instances!.c!.output, { facts: { n: 3 }, members: 3 });
    assert.equal(show.tasks.each!.instances!.b!.status, "failed");
    assert.match(show.tasks.each!.instances!.b!.error!, /keyed-missing: prepare\.facts has no entry for key "b" \(M-3\)/);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("M-4: the key is the identity in the event log, decision records and resume", async () => {
  const h = harness();
  try {
    let broken = true;
    const p = plan([
      evaluate("prepare", { emits: { members: "list", g: "object" } }),
      outputRoute("r", ref("prepare", "g"), [choice("c", ["x", "y"])], { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
      evaluate("each", { depends_on: ["r"], ...mapped(ref("prepare", "members")) }),
    ]);
    const fns = {
      prepare: () => ({ members: ["k/1", "k 2", 3], g: { "k/1": { c: "x" }, "k 2": { c: "y" }, "3": { c: "x" } } }),
      each: (i: { key: string; inputs: { r: { c: { label: string } } } }) => {
        if (i.key === "k 2" && broken) throw new Error("transient");
        return { label: i.inputs.r.c.label };
      },
    };
    const { run, show } = await runPlan(h, p, { fns });
    assert.equal(show.tasks.each!.instances!["k 2"]!.status, "failed");
    const keys = new Set([...h.store.events(run)].filter((e) => e.task === "each" && e.key !== null).map((e) => e.key));
    assert.deepEqual([...keys].sort(), ["3", "k 2", "k/1"]);
    broken = false;
    const again = await resumePlan(h, run, { fns });
    assert.equal(again.outcome.status, "passed");
    assert.equal(again.show.tasks.each!.instances!["k 2"]!.attempts, 2);
    assert.equal(again.show.tasks.each!.instances!["k/1"]!.attempts, 1);
    assert.deepEqual(statuses(again.show, "each"), { "3": "passed", "k 2": "passed", "k/1": "passed" });
    assert.deepEqual(again.show.tasks.each!.instances!["k 2"]!.output, { label: "y" });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
