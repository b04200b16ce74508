// G-1 … G-8: gating, not taken, joins and folds, on small plans with real stores.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  harness,
  plan,
  evaluate,
  outputRoute,
  modelRoute,
  choice,
  noul,
  when,
  mapped,
  ref,
  runPlan,
  statuses,
  command,
  writeJson,
} from "./helpers.js";
import { FakeJudge } from "./fake-judge.js";

const members =
  (list: unknown[], extra: Record<string, unknown> = {}) =>
  () => ({ members: list, ...extra });

test("G-1: when on an unmapped route gates each task by its answers or otherwise", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { answers: "object" } }),
      outputRoute("pick", ref("prepare", "answers"), [choice("color", ["red", "green", "blue"])], { depends_on: ["prepare"] }),
      evaluate("on_red", { depends_on: ["pick"], when: when("pick", "color", ["red"]) }),
      evaluate("on_green", { depends_on: ["pick"], when: when("pick", "color", ["green"]) }),
      evaluate("rest", { depends_on: ["pick"], when: when("pick", "color", ["blue"], true) }),
    ]);
    const { show, outcome } = await runPlan(h, p, {
      fns: { prepare: () => ({ answers: { color: "green" } }), on_red: () => ({ r: 1 }), on_green: () => ({ g: 1 }), rest: () => ({}) },
    });
    assert.equal(outcome.status, "passed");
    assert.equal(show.tasks.on_red!.status, "not_taken");
    assert.equal(show.tasks.on_red!.label, "green");
    assert.equal(show.tasks.on_green!.status, "passed");
    assert.deepEqual(show.tasks.on_green!.output, { g: 1 });
    assert.equal(show.tasks.rest!.status, "not_taken");
    assert.equal(show.tasks.pick!.status, "passed");
    assert.equal((show.tasks.pick!.output as Record<string, { label: string; mode: string }>).color!.label, "green");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-2: when on a mapped route is evaluated per element in an aligned task", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list", depth: "object" } }),
      outputRoute("gate", ref("prepare", "depth"), [choice("depth", ["quick", "deep"])], {
        depends_on: ["prepare"],
        ...mapped(ref("prepare", "members")),
      }),
      evaluate("quick", { depends_on: ["prepare", "gate"], ...mapped(ref("prepare", "members")), when: when("gate", "depth", ["quick"]) }),
    ]);
    const seen: string[] = [];
    const { show } = await runPlan(h, p, {
      fns: {
        prepare: members(["x", "y", "z"], { depth: { x: { depth: "quick" }, y: { depth: "deep" }, z: { depth: "quick" } } }),
        quick: (i) => {
          seen.push(i.key);
          return { route_label: i.inputs.gate.depth.label };
        },
      },
    });
    assert.deepEqual(statuses(show, "quick"), { x: "passed", y: "not_taken", z: "passed" });
    assert.equal(show.tasks.quick!.instances!.y!.label, "deep");
    assert.deepEqual(seen.sort(), ["x", "z"]);
    // The aligned instance reads the route's own record for its key (M-2).
    assert.deepEqual(show.tasks.quick!.instances!.x!.output, { route_label: "quick" });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-2a: otherwise takes the labels no other task lists; several tasks may take one label; any_option opens on every resolved option", async () => {
  const h = harness();
  try {
    const judge = new FakeJudge((key) => (key === "a" ? "p1" : key === "b" ? "p2" : "uncertain"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list", opts: "object" } }),
      modelRoute("match", [choice("pkg", [], { dynamic: ref("prepare", "opts") })], {
        depends_on: ["prepare"],
        ...mapped(ref("prepare", "members")),
      }),
      evaluate("review", { depends_on: ["match"], ...mapped(ref("prepare", "members")), when: when("match", "pkg", ["uncertain"]) }),
      evaluate("review2", { depends_on: ["match"], ...mapped(ref("prepare", "members")), when: when("match", "pkg", ["uncertain"]) }),
      evaluate("proceed", { depends_on: ["match"], ...mapped(ref("prepare", "members")), when: when("match", "pkg", [], true, true) }),
    ]);
    const { show } = await runPlan(h, p, {
      judge,
      fns: {
        prepare: members(["a", "b", "c"], { opts: { a: ["p1", "p2"], b: [{ value: "p2", description: "two" }, "p3"], c: ["p1", "p9"] } }),
        review: () => ({}),
        review2: () => ({}),
        proceed: (i) => ({ pkg: i.inputs.match.pkg.label }),
      },
    });
    assert.deepEqual(statuses(show, "proceed"), { a: "passed", b: "passed", c: "not_taken" });
    assert.deepEqual(statuses(show, "review"), { a: "not_taken", b: "not_taken", c: "passed" });
    assert.deepEqual(statuses(show, "review2"), statuses(show, "review"));
    const rec = show.tasks.match!.instances!.b!.output as Record<string, { options: unknown }>;
    assert.deepEqual(rec.pkg!.options, [
      { value: "p2", description: "two" },
      { value: "p3", description: "" },
    ]);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-3: a closed gate is a terminal not_taken status with its label, never a failure", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list", a: "object" } }),
      outputRoute("r", ref("prepare", "a"), [noul("ok")], { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
      evaluate("work", { depends_on: ["r"], ...mapped(ref("prepare", "members")), when: when("r", "ok", ["yes"]) }),
    ]);
    const { show, outcome } = await runPlan(h, p, {
      fns: { prepare: members(["k1", "k2"], { a: { k1: { ok: "no" }, k2: { ok: "no" } } }), work: () => ({}) },
    });
    assert.equal(outcome.status, "passed");
    assert.equal(show.status, "passed");
    assert.deepEqual(show.tasks.work!.instances!.k1, { status: "not_taken", output: null, error: null, attempts: 0, label: "no" });
    assert.equal(show.tasks.work!.status, "not_taken");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-4: statuses end passed, failed, not_taken or blocked; a failed dependency blocks an all-join and fails the run", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      evaluate("step", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
      evaluate("after", { depends_on: ["step"], ...mapped(ref("prepare", "members")) }),
      evaluate("total", { depends_on: ["step"] }),
    ]);
    const { show, outcome } = await runPlan(h, p, {
      fns: {
        prepare: members(["ok", "bad"]),
        step: (i) => {
          if (i.key === "bad") throw new Error("boom");
          return { v: 1 };
        },
        after: () => ({}),
        total: () => ({}),
      },
    });
    assert.equal(outcome.status, "failed");
    assert.deepEqual(statuses(show, "step"), { ok: "passed", bad: "failed" });
    assert.match(show.tasks.step!.instances!.bad!.error!, /boom/);
    assert.deepEqual(statuses(show, "after"), { ok: "passed", bad: "blocked" });
    assert.equal(show.tasks.total!.status, "blocked");
    assert.equal(show.tasks.step!.status, "failed");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-5: not_taken propagates through all-joins per element and wins over blocked", async () => {
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list", g: "object" } }),
      outputRoute("gate", ref("prepare", "g"), [choice("d", ["go", "stop"])], { depends_on: ["prepare"], ...m }),
      evaluate("a", { depends_on: ["gate"], ...m, when: when("gate", "d", ["go"]) }),
      evaluate("fails", { depends_on: ["prepare"], ...m }),
      evaluate("b", { depends_on: ["a", "fails"], ...m }),
      evaluate("c", { depends_on: ["b"], ...m }),
      evaluate("whole", { depends_on: ["c"] }),
    ]);
    const { show } = await runPlan(h, p, {
      fns: {
        prepare: members(["1", "2", "3"], { g: { "1": { d: "go" }, "2": { d: "stop" }, "3": { d: "go" } } }),
        a: () => ({}),
        fails: (i) => {
          if (i.key !== "1") throw new Error("nope");
          return {};
        },
        b: () => ({}),
        c: () => ({}),
        whole: () => ({}),
      },
    });
    assert.deepEqual(statuses(show, "a"), { "1": "passed", "2": "not_taken", "3": "passed" });
    // Key 2: `a` not taken and `fails` failed → not taken; key 3: `fails` failed → blocked.
    assert.deepEqual(statuses(show, "b"), { "1": "passed", "2": "not_taken", "3": "blocked" });
    assert.deepEqual(statuses(show, "c"), { "1": "passed", "2": "not_taken", "3": "blocked" });
    assert.equal(show.tasks.c!.instances!["2"]!.label, "stop");
    assert.equal(show.tasks.whole!.status, "blocked");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-6: settled joins run after partial work with statuses; an element untaken on every aligned dependency stays untaken; a settled reducer over an all-untaken fan-out runs", async () => {
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list", g: "object" } }),
      outputRoute("gate", ref("prepare", "g"), [choice("d", ["quick", "deep", "settled"])], { depends_on: ["prepare"], ...m }),
      evaluate("quick", { depends_on: ["gate"], ...m, when: when("gate", "d", ["quick"]) }),
      evaluate("deep", { depends_on: ["gate"], ...m, when: when("gate", "d", ["deep"]) }),
      evaluate("judge", { depends_on: ["quick", "deep"], ...m, join: "settled" }),
      evaluate("nothing", { depends_on: ["gate"], ...m, when: when("gate", "d", ["deep"]) }),
      evaluate("reduce", { depends_on: ["nothing", "judge"], join: "settled" }),
    ]);
    const { show, outcome } = await runPlan(h, p, {
      fns: {
        prepare: members(["q", "s", "f"], { g: { q: { d: "quick" }, s: { d: "settled" }, f: { d: "quick" } } }),
        quick: (i) => {
          if (i.key === "f") throw new Error("quick failed");
          return { r: "ok" };
        },
        deep: () => ({}),
        judge: (i) => ({ statuses: i.statuses, quick: i.inputs.quick }),
        nothing: () => ({}),
        reduce: (i) => ({ statuses: i.statuses, nothing: i.inputs.nothing.summary }),
      },
    });
    assert.equal(outcome.status, "failed"); // quick[f] failed
    assert.deepEqual(statuses(show, "judge"), { q: "passed", s: "not_taken", f: "passed" });
    assert.equal(show.tasks.judge!.instances!.s!.label, "settled");
    assert.deepEqual(show.tasks.judge!.instances!.q!.output, { statuses: { quick: "passed", deep: "not_taken" }, quick: { r: "ok" } });
    assert.deepEqual(show.tasks.judge!.instances!.f!.output, { statuses: { quick: "failed", deep: "not_taken" }, quick: null });
    assert.equal(show.tasks.nothing!.status, "not_taken");
    assert.equal(show.tasks.reduce!.status, "passed");
    assert.deepEqual(show.tasks.reduce!.output, {
      statuses: { nothing: "not_taken", judge: "passed" },
      nothing: { total: 3, passed: 0, failed: 0, not_taken: 3, blocked: 0 },
    });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-7: fold status is failed on any failed or blocked, not_taken when all untaken, else passed; summaries count not_taken", async () => {
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list", g: "object" } }),
      outputRoute("gate", ref("prepare", "g"), [noul("go")], { depends_on: ["prepare"], ...m }),
      evaluate("some", { depends_on: ["gate"], ...m, when: when("gate", "go", ["yes"]) }),
      evaluate("none", { depends_on: ["gate"], ...m, when: when("gate", "go", ["no"]) }),
      evaluate("empty", { depends_on: ["prepare"], ...mapped(ref("prepare", "nothing")) }),
      evaluate("after_some", { depends_on: ["some"] }),
      evaluate("after_none", { depends_on: ["none"] }),
      evaluate("after_empty", { depends_on: ["empty"] }),
    ]);
    const { show } = await runPlan(h, p, {
      fns: {
        prepare: members(["a", "b", "c"], { nothing: [], g: { a: { go: "yes" }, b: { go: "yes" }, c: { go: "yes" } } }),
        some: (i) => ({ k: i.key }),
        none: () => ({}),
        empty: () => ({}),
        after_some: (i) => i.inputs.some,
        after_none: () => ({}),
        after_empty: (i) => i.inputs.empty,
      },
    });
    assert.equal(show.tasks.some!.status, "passed");
    assert.deepEqual(show.tasks.some!.summary, { total: 3, passed: 3, failed: 0, not_taken: 0, blocked: 0 });
    assert.equal(show.tasks.none!.status, "not_taken");
    assert.deepEqual(show.tasks.none!.summary, { total: 3, passed: 0, failed: 0, not_taken: 3, blocked: 0 });
    assert.equal(show.tasks.after_none!.status, "not_taken");
    assert.equal(show.tasks.empty!.status, "passed");
    assert.deepEqual(show.tasks.after_some!.output, {
      items: { a: { k: "a" }, b: { k: "b" }, c: { k: "c" } },
      status: { a: "passed", b: "passed", c: "passed" },
      summary: { total: 3, passed: 3, failed: 0, not_taken: 0, blocked: 0 },
    });
    assert.deepEqual(show.tasks.after_empty!.output, {
      items: {},
      status: {},
      summary: { total: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 },
    });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-8: every label of a model-decided question leads somewhere at run time: uncertain to its taker, a dropped label to no work", async () => {
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const judge = new FakeJudge((key) => ({ a: "quick", b: "settled", c: "uncertain" })[key!]!);
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("gate", [choice("depth", ["settled", "quick"], { drop: ["settled"] })], {
        depends_on: ["prepare"],
        ...m,
        min_confidence: 0.8,
      }),
      evaluate("quick", { depends_on: ["gate"], ...m, when: when("gate", "depth", ["quick"]) }),
      evaluate("unsure", { depends_on: ["gate"], ...m, when: when("gate", "depth", ["uncertain"], true) }),
    ]);
    const { show } = await runPlan(h, p, { judge, fns: { prepare: members(["a", "b", "c"]), quick: () => ({}), unsure: () => ({}) } });
    assert.deepEqual(statuses(show, "quick"), { a: "passed", b: "not_taken", c: "not_taken" });
    assert.deepEqual(statuses(show, "unsure"), { a: "not_taken", b: "not_taken", c: "passed" });
    assert.equal(judge.calls.length, 3);
    assert.equal(judge.calls[0]!.questions[0]!.min_confidence, 0.8); // the route's, since the question sets none
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("G-1: a gated task whose unmapped route is a command output runs once for the whole task", async () => {
  const h = harness();
  try {
    const p = plan([
      command("prepare", writeJson({ members: ["a", "b"], pick: { go: "yes" } }), { emits: { members: "list", pick: "object" } }),
      outputRoute("r", ref("prepare", "pick"), [noul("go")], { depends_on: ["prepare"] }),
      evaluate("each", { depends_on: ["r", "prepare"], ...mapped(ref("prepare", "members")), when: when("r", "go", ["yes"]) }),
    ]);
    const { show } = await runPlan(h, p, { fns: { each: (i) => ({ k: i.key, go: i.inputs.r.go.label }) } });
    assert.deepEqual(statuses(show, "each"), { a: "passed", b: "passed" });
    assert.deepEqual(show.tasks.each!.instances!.b!.output, { k: "b", go: "yes" });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
