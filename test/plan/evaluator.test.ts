// T-4 at run time: loadEvaluator re-executes the defining module (built-ins inert) and calls the
// function with the instance's input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { DiagnosticError } from "../../src/lang/diagnostic.js";
import { compilePath, loadEvaluator } from "../../src/plan/index.js";
import { PREP, writePack } from "./helpers.js";

test("T-4: the appendix's summarize runs on an input dict and returns its output", () => {
  const r = compilePath("test/fixtures/packs/triage");
  const fn = loadEvaluator(r.packRoot, r.plan!, "report");
  assert.deepEqual(fn({ statuses: { prepare: "passed", review: "not_taken" } }), { statuses: { prepare: "passed", review: "not_taken" } });
});

test("T-4: a function from a lib module, a non-dict result, and the step budget", () => {
  const dir = writePack({
    "main.star":
      'load("lib/f.star", "count", "bad", "spin")\n' +
      PREP +
      'a = evaluate(name = "a", depends_on = [prep], fn = count)\nb = evaluate(name = "b", depends_on = [prep], fn = bad)\nc = evaluate(name = "c", depends_on = [prep], fn = spin)\n',
    "lib/f.star":
      'def count(input):\n    return {"n": len(input["items"]), "half": len(input["items"]) / 2}\n' +
      "def bad(input):\n    return [1]\n" +
      'def spin(input):\n    n = 0\n    for i in range(100000000):\n        n += i\n    return {"n": n}\n',
  });
  try {
    const r = compilePath(dir);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.plan!.tasks[1]!.evaluate, { module: "lib/f.star", function: "count" });
    assert.deepEqual(loadEvaluator(dir, r.plan!, "a")({ items: [1, 2, 3] }), { n: 3, half: 1.5 });
    assert.throws(
      () => loadEvaluator(dir, r.plan!, "b")({}),
      (e: unknown) => e instanceof DiagnosticError && /returned list, not a dict/.test(e.message),
    );
    assert.throws(
      () => loadEvaluator(dir, r.plan!, "c", { stepBudget: 100_000 })({}),
      (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0]!.code === "step-budget",
    );
    assert.throws(() => loadEvaluator(dir, r.plan!, "prep"), /not evaluate/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("T-4/T-5: the evaluate reviewer of a revise loop is found by name and called", () => {
  const dir = writePack({
    "main.star":
      PREP +
      `def judge(input):
    text = input["inputs"]["draft"]["text"]
    return {"verdict": "accept" if len(text) < 10 else "revise", "feedback": "shorter"}
loop = revise(name = "loop", depends_on = [prep],
    body = agent(name = "draft", prompt = "write", emits = {"text": "string"}),
    reviewer = evaluate(name = "judge", fn = judge, emits = {"verdict": "string", "feedback": "string"}))
`,
  });
  try {
    const r = compilePath(dir);
    assert.deepEqual(r.diagnostics, []);
    const fn = loadEvaluator(dir, r.plan!, "judge");
    assert.deepEqual(fn({ inputs: { draft: { text: "short" } } }), { verdict: "accept", feedback: "shorter" });
    assert.deepEqual(fn({ inputs: { draft: { text: "far too long a text" } } }), { verdict: "revise", feedback: "shorter" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
