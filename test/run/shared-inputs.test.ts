// A dependency's output is serialised once per run and every instance reuses
// it — command input files, route states and prompt values — with exactly the text the plain
// serialiser gives, whether the dependency is read whole, narrowed by `keyed`, or folded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { inputJson, stateJson } from "../../src/run/kinds/shared-json.js";
import { stableStringify } from "../../src/run/values/values.js";
import { renderPrompt } from "../../src/run/kinds/template.js";
import { command, evaluate, harness, mapped, modelRoute, choice, plan, ref, runPlan } from "./helpers.js";
import { FakeJudge } from "./fake-judge.js";

const shared = {
  members: ["b", "a"],
  notes: { b: { z: 1, y: [2, { x: null }] }, a: { é: 'ü\n"', __proto__x: true } },
  deep: { q: { r: { s: [1.5, -0, 1e21] } } },
};
const protoKey = JSON.parse('{"__proto__": {"k": 1}, "n": 2}') as Record<string, unknown>;

function cases(): Array<Record<string, unknown>> {
  const narrowed = { ...shared, notes: shared.notes.a };
  return [
    { key: "a", inputs: { prep: shared } },
    {
      key: "b",
      inputs: { prep: shared, other: null, fold: { items: { a: shared }, status: { a: "passed" }, summary: { total: 1 } } },
      statuses: { prep: "passed", other: "failed" },
    },
    { key: "a", inputs: { prep: narrowed } },
    { inputs: { prep: protoKey, skipped: undefined }, feedback: { says: "again" }, round: 2 },
    { inputs: {} },
  ];
}

test("R-21: the stable serialisation keeps a key named __proto__", () => {
  assert.equal(stableStringify(protoKey), '{"__proto__":{"k":1},"n":2}');
});

test("shared input text equals JSON.stringify and stableStringify, first time and reused", () => {
  for (let pass = 0; pass < 2; pass++) {
    for (const c of cases()) {
      assert.equal(inputJson.input(c), JSON.stringify(c));
      assert.equal(stateJson.input(c), stableStringify(c));
    }
  }
});

test("prompt placeholders render a dependency's output as JSON, the same on every render", () => {
  const input = { key: "a", inputs: { prep: shared } };
  for (let i = 0; i < 2; i++) {
    assert.equal(
      renderPrompt("{{key}} {{inputs.prep}} {{inputs.prep.notes}} {{inputs.prep.members}} {{inputs.missing}}", input),
      `a ${JSON.stringify(shared)} ${JSON.stringify(shared.notes)} ${JSON.stringify(shared.members)} null`,
    );
  }
});

test("T-1: every command instance's input file holds the producer's whole output, and keyed narrows its own entry", async () => {
  const h = harness();
  try {
    const prep = evaluate("prep", { emits: { members: "list", notes: "object" } });
    const echo = `printf '{"seen":%s}' "$(cat "$SWITCHYARD_INPUT")" > "$SWITCHYARD_OUTPUT"`;
    const whole = command("whole", echo, { depends_on: ["prep"], ...mapped(ref("prep", "members")) });
    const keyed = command("keyed", echo, { depends_on: ["prep"], ...mapped(ref("prep", "members")), keyed: [ref("prep", "notes")] });
    const { outcome, show } = await runPlan(h, plan([prep, whole, keyed]), { fns: { prep: () => shared } });
    assert.equal(outcome.status, "passed");
    const json = JSON.parse(JSON.stringify(shared)) as typeof shared; // -0 is written as 0
    for (const k of ["a", "b"]) {
      assert.deepEqual(show.tasks.whole!.instances![k]!.output, { seen: { key: k, inputs: { prep: json } } });
      assert.deepEqual(show.tasks.keyed!.instances![k]!.output, {
        seen: { key: k, inputs: { prep: { ...json, notes: json.notes[k as "a" | "b"] } } },
      });
    }
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-21: a mapped model route's state text is the stable serialisation of its state, per element", async () => {
  const h = harness();
  try {
    const prep = evaluate("prep", { emits: { members: "list", notes: "object" } });
    const ask = modelRoute("ask", [choice("lane", ["x", "y"])], { depends_on: ["prep"], ...mapped(ref("prep", "members")) });
    const judge = new FakeJudge(() => "x");
    const { outcome } = await runPlan(h, plan([prep, ask]), { fns: { prep: () => shared }, judge });
    assert.equal(outcome.status, "passed");
    assert.equal(judge.calls.length, 2);
    for (const c of judge.calls) {
      assert.deepEqual(c.state, { key: c.key, inputs: { prep: shared } });
      assert.equal(c.state_text, stableStringify(c.state));
    }
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
