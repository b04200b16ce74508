// TaskPlan is a union keyed by `kind`. A kind's spec is reachable only once the
// kind is known, and both builders (the compiler and the TOML reader) give plans whose JSON keeps
// the key order earlier versions wrote (the spec last), so plans recorded in event logs compare
// equal to freshly compiled ones.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readPlanToml, writePlanToml, type TaskPlan } from "../../src/plan/index.js";
import { compileSource, PREP } from "./helpers.js";

/** The command line of a task, if it is a command: narrowing by kind, no assertion. */
function commandLine(t: TaskPlan): string | undefined {
  switch (t.kind) {
    case "command":
      return t.command.run;
    default:
      return undefined;
  }
}

test("a kind's spec is read only after narrowing by kind", () => {
  // @ts-expect-error `command` may be absent on a TaskPlan that is not known to be a command
  const unnarrowed = (t: TaskPlan) => t.command.run;
  assert.equal(typeof unnarrowed, "function");
  const r = compileSource(PREP + 'agent(name = "look", prompt = "look at {{inputs.prep.n}}", depends_on = [prep])\n');
  assert.deepEqual(r.diagnostics, []);
  const [prep, look] = r.plan!.tasks;
  assert.equal(commandLine(prep!), "true");
  assert.equal(commandLine(look!), undefined);
  assert.equal(look!.kind === "agent" && look!.agent.prompt, "look at {{inputs.prep.n}}");
});

test("compiled and TOML-read plans keep the recorded key order, the kind's spec last", () => {
  const r = compileSource(
    PREP +
      'gate = route(name = "gate", depends_on = [prep], over = prep.members, max_fanout = 10, questions = {"go": noul(ask = "go?")})\n' +
      'command(name = "work", run = "true", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.go, answers = "yes")\n' +
      'evaluate_rest = agent(name = "rest", prompt = "p", depends_on = [gate], over = prep.members, max_fanout = 10, when = gate.go, otherwise = True)\n',
  );
  assert.deepEqual(r.diagnostics, []);
  const plan = r.plan!;
  for (const t of plan.tasks) {
    const keys = Object.keys(t);
    assert.deepEqual(
      keys.slice(0, 10),
      ["name", "kind", "depends_on", "join", "aligned_with", "keyed", "timeout_seconds", "retries", "emits", "declared_at"],
      t.name,
    );
    assert.equal(keys.at(-1), t.kind, `${t.name}: its spec is the last key`);
  }
  const reread = readPlanToml(writePlanToml(plan));
  assert.equal(JSON.stringify(reread.tasks), JSON.stringify(plan.tasks));
});
