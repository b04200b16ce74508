// L-3, C-1: a failed `load` does not stop checking. The module's own errors are
// reported once, at their place; the names loaded from it stand for unknown values, so the rest of
// the playbook is still checked as far as it does not depend on them, and nothing that follows
// only from the module's errors is reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSource, PREP } from "./helpers.js";
import type { CompileResult } from "../../src/plan/index.js";

/** `CODE @ FILE:LINE` of every diagnostic, sorted, the test pack's temp folder left out. */
function found(r: CompileResult): string[] {
  return [...new Set(r.diagnostics.map((d) => `${d.code} @ ${d.pos?.file.replace(/^.*\/sy-plan-[^/]+\//, "")}:${d.pos?.line}`))].sort();
}

const BAD_MODULE = {
  "lib/util.star":
    'PROMPT = "hello"\ndef helper(name, dep = None):\n    return agent(name = name, prompt = PROMPT, depends_on = [dep] if dep else [])\nx = 1 + "a"\n',
};

test("L-3: a module with a run-time error is reported once; the playbook's unrelated problems are reported too", () => {
  const r = compileSource(
    `load("lib/util.star", "helper", "PROMPT")
${PREP}h = helper("h")
a = agent(name = "a", prompt = PROMPT, depends_on = [prep])
b = command(name = "b", run = "true", retry = 3)
gate = route(name = "gate", depends_on = [prep], questions = {"q": noul(ask = "?")})
c = command(name = "c", run = "true", depends_on = [h], when = gate.q, answers = "yes")
`,
    BAD_MODULE,
  );
  assert.deepEqual(
    found(r),
    [
      "type-error @ lib/util.star:4",
      "uncovered-label @ main.star:6", // "no" and "uncertain" of gate.q
      "unknown-argument @ main.star:5",
    ].sort(),
    r.diagnostics.map((d) => d.message).join("\n"),
  );
  // No follow-on: `prompt = PROMPT` is unknown, not missing; `c` depends on an unknown task, so
  // whether gate is its direct dependency is not known either.
  assert.equal(r.diagnostics.filter((d) => d.code === "uncovered-label").length, 2);
  assert.equal(r.plan, undefined);
});

test("L-3: a module with a syntax error, a module not found, and a module that loads a broken one", () => {
  const r = compileSource(
    `load("lib/mid.star", "ask")
load("lib/nope.star", "X")
${PREP}g = route(name = "g", depends_on = [prep], questions = {"depth": ask(), "ok": noul(ask = "ok?", drop = ["yes", "no", "uncertain"])})
q = agent(name = "q", depends_on = [g], when = g.depth, answers = "quick", prompt = X)
t = command(name = "t", run = 3)
r = route(name = "r", depends_on = [prep], questions = {"q": noul(ask = "?", drop = ["no", "uncertain"])})
`,
    {
      "lib/bad.star": 'OPTS = {"quick": "q", "deep": "d"\n',
      "lib/mid.star": 'load("lib/bad.star", "OPTS")\ndef ask():\n    return choice(ask = "How deep?", options = OPTS)\n',
    },
  );
  assert.deepEqual(
    found(r),
    [
      "load-not-found @ main.star:2",
      "syntax-error @ lib/bad.star:1",
      "uncovered-label @ main.star:7", // r.q "yes": r does not depend on anything unknown
      "wrong-type @ main.star:6",
    ].sort(),
    r.diagnostics.map((d) => d.message).join("\n"),
  );
});

test("L-3: a module loaded twice has its errors reported once", () => {
  const r = compileSource(`load("lib/util.star", "helper")\nload("lib/two.star", "again")\n${PREP}a = helper("a")\n`, {
    ...BAD_MODULE,
    "lib/two.star": 'load("lib/util.star", "helper")\nagain = helper\n',
  });
  assert.deepEqual(found(r), ["type-error @ lib/util.star:4"]);
});

test("L-3: a helper from a broken module called with a route may gate on it: that route's coverage is not reported", () => {
  const r = compileSource(
    `load("lib/util.star", "helper")
${PREP}gate = route(name = "gate", depends_on = [prep], questions = {"q": noul(ask = "?")})
h = helper("h", gate)
b = command(name = "b", run = "true", retry = 3)
`,
    BAD_MODULE,
  );
  assert.deepEqual(found(r), ["type-error @ lib/util.star:4", "unknown-argument @ main.star:5"]);
  // A playbook function handed to the helper sees every route, so it could gate on any of them.
  const viaCallback = compileSource(
    `load("lib/util.star", "helper")
${PREP}gate = route(name = "gate", depends_on = [prep], questions = {"q": noul(ask = "?")})
def make(n):
    return agent(name = n, depends_on = [gate], when = gate.q, answers = "yes", prompt = "p")
h = helper("h", make)
`,
    BAD_MODULE,
  );
  assert.deepEqual(found(viaCallback), ["type-error @ lib/util.star:4"]);
  // Called with plain values only, the helper can declare nothing gated on the playbook's routes.
  const plain = compileSource(
    `load("lib/util.star", "helper")
${PREP}gate = route(name = "gate", depends_on = [prep], questions = {"q": noul(ask = "?")})
h = helper("h")
`,
    BAD_MODULE,
  );
  assert.deepEqual(found(plain), ["type-error @ lib/util.star:4", "uncovered-label @ main.star:3"]);
});

test("L-3: where a name from a broken module cannot be used at all, checking stops there with a warning, not a second error", () => {
  const r = compileSource(
    `load("lib/util.star", "PROMPT")
${PREP}b = command(name = "b", run = "true", retry = 3)
a = agent(name = "a", prompt = "Summarise: " + PROMPT)
z = command(name = "z", run = 3)
`,
    BAD_MODULE,
  );
  assert.deepEqual(found(r), ["check-stopped @ main.star:4", "type-error @ lib/util.star:4", "unknown-argument @ main.star:3"]);
  const stopped = r.diagnostics.find((d) => d.code === "check-stopped")!;
  assert.equal(stopped.severity, "warning");
  assert.doesNotMatch(stopped.message, /unknown_from_module_with_errors/);
  for (const d of r.diagnostics) assert.doesNotMatch(d.message, /unknown_from_module_with_errors/);
});

test("C-7, G-8: a gate on a misspelt question leaves only that route's coverage unknown", () => {
  const r = compileSource(
    `${PREP}g = route(name = "g", depends_on = [prep], questions = {"depth": noul(ask = "?")})
q = agent(name = "q", depends_on = [g], when = g.dpeth, answers = "yes", prompt = "p")
r = route(name = "r", depends_on = [prep], questions = {"q": noul(ask = "?", drop = ["no", "uncertain"])})
`,
  );
  assert.deepEqual(found(r), ["uncovered-label @ main.star:4", "undeclared-field @ main.star:3"]);
});
