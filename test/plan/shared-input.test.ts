// T-4: an evaluate function's dependencies are converted to Starlark values
// once per run and shared, frozen, by every instance; the instance's own input dict stays its own.

import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { DiagnosticError } from "../../src/lang/diagnostic.js";
import { Dict } from "../../src/lang/index.js";
import { compilePath, loadEvaluator } from "../../src/plan/index.js";
import { inputValue } from "../../src/plan/shared-input.js";
import { PREP, writePack } from "./helpers.js";

test("a dependency output read again converts to the same frozen value; the envelope is fresh", () => {
  const out = { members: ["a", "b"], notes: { a: { n: 1 } } };
  const prepOf = (input: Dict) => (input.get("inputs") as Dict).get("prep") as Dict;
  // The first conversion is not kept (an aligned output is read once); from the second on it is.
  const first = inputValue({ key: "a", inputs: { prep: out } }) as Dict;
  const one = inputValue({ key: "a", inputs: { prep: out } }) as Dict;
  const two = inputValue({ key: "b", inputs: { prep: out } }) as Dict;
  assert.deepEqual(prepOf(first).keys(), ["members", "notes"]);
  assert.notEqual(one, two);
  assert.equal(one.frozen, false);
  assert.notEqual(one.get("inputs"), two.get("inputs"));
  assert.equal((one.get("inputs") as Dict).frozen, false);
  const prep = prepOf(one);
  assert.equal(prep, prepOf(two));
  assert.equal(prep.frozen, true);
  assert.equal((prep.get("notes") as Dict).frozen, true);
  // A keyed narrowing is a fresh object per instance, but its other fields are the producer's.
  const narrowed = (k: "a") => inputValue({ key: k, inputs: { prep: { ...out, notes: out.notes[k] } } }) as Dict;
  assert.equal(prepOf(narrowed("a")).get("members"), prepOf(narrowed("a")).get("members"));
  assert.notEqual(prepOf(narrowed("a")), prepOf(narrowed("a")));
});

test("T-4: dependencies are read-only in an evaluate function, the input dict is not, and results are right on every call", () => {
  const dir = writePack({
    "main.star":
      PREP +
      `def pick(input):
    input["mine"] = input["key"]
    input["inputs"]["extra"] = 1
    return {"note": input["inputs"]["prep"]["notes"][input["key"]], "mine": input["mine"]}

def spoil(input):
    input["inputs"]["prep"]["notes"]["x"] = 1
    return {}

a = evaluate(name = "a", depends_on = [prep], fn = pick)
b = evaluate(name = "b", depends_on = [prep], fn = spoil)
`,
  });
  try {
    const r = compilePath(dir);
    assert.deepEqual(r.diagnostics, []);
    const pick = loadEvaluator(dir, r.plan!, "a");
    const out = { items: [], notes: { x: "ex", y: "why" } };
    assert.deepEqual(pick({ key: "x", inputs: { prep: out } }), { note: "ex", mine: "x" });
    assert.deepEqual(pick({ key: "y", inputs: { prep: out } }), { note: "why", mine: "y" });
    const spoil = loadEvaluator(dir, r.plan!, "b");
    assert.throws(
      () => spoil({ key: "x", inputs: { prep: out } }),
      (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0]!.code === "frozen-value",
    );
    assert.deepEqual(out.notes, { x: "ex", y: "why" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
