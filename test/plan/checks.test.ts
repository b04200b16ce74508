// The graph rules on declared-task data directly (no interpreter): the cases playbook source
// cannot express, such as a dependency cycle (C-3), and the otherwise rule in isolation (G-2a).
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTasks } from "../../src/plan/checks.js";
import type { DeclTask } from "../../src/plan/declared.js";
import type { TaskKind } from "../../src/plan/plan.js";

let nextId = 0;
function decl(name: string, kind: TaskKind = "command", deps: DeclTask[] = []): DeclTask {
  const pos = { file: "p.star", line: nextId + 1, col: 1 };
  return {
    id: nextId++,
    name,
    kind,
    pos,
    file: "p.star",
    namePos: pos,
    depends_on: deps.map((task) => ({ task, pos })),
    join: "all",
    keyed: [],
    timeout_seconds: 1800,
    retries: 0,
    emits: {},
    complete: true,
    broken: new Set(),
    refs: [],
    ...(kind === "command" ? { command: { run: "true", env: {} } } : {}),
  };
}

test("C-3: a dependency cycle is reported once, naming the tasks on it", () => {
  const a = decl("a");
  const b = decl("b", "command", [a]);
  const c = decl("c", "command", [b]);
  a.depends_on.push({ task: c, pos: a.pos });
  const r = checkTasks([a, b, c], { evaluationComplete: true, playbook: "p" });
  assert.deepEqual(
    r.diagnostics.map((d) => d.code),
    ["dependency-cycle"],
  );
  assert.match(r.diagnostics[0].message, /a -> c -> b -> a|a -> b -> c -> a/);
});

test("G-2a/G-8: coverage is not checked when evaluation stopped early (no follow-on errors)", () => {
  const g = decl("g", "route");
  const pos = g.pos;
  g.route = {
    decide: "model",
    decidePos: pos,
    min_confidence: 0,
    confidencePos: pos,
    files: [],
    filesPos: pos,
    questionsPos: pos,
    questions: [{ name: "q", kind: "noul", ask: "?", labels: ["yes", "no"], descriptions: {}, drop: [], pos, dropPos: pos, valid: true }],
  };
  g.emits = { q: "string" };
  assert.deepEqual(checkTasks([g], { evaluationComplete: false, playbook: "p" }).diagnostics, []);
  assert.deepEqual(
    checkTasks([g], { evaluationComplete: true, playbook: "p" }).diagnostics.map((d) => d.code),
    ["uncovered-label", "uncovered-label", "uncovered-label"],
  );
});

test("C-2: duplicate task names point at the first declaration", () => {
  const r = checkTasks([decl("x"), decl("x")], { evaluationComplete: true, playbook: "p" });
  assert.deepEqual(
    r.diagnostics.map((d) => d.code),
    ["duplicate-task"],
  );
  assert.match(r.diagnostics[0].message, /already declared at p\.star:\d+:1/);
});

test("C-3, G-8: a cycle is reported beside an unrelated task whose arguments had errors, and coverage still runs", () => {
  const a = decl("a");
  const b = decl("b", "command", [a]);
  a.depends_on.push({ task: b, pos: a.pos });
  const broken = decl("d");
  broken.broken = new Set(["retry"]);
  broken.complete = false;
  const g = decl("g", "route");
  const pos = g.pos;
  g.route = {
    decide: "model",
    decidePos: pos,
    min_confidence: 0,
    confidencePos: pos,
    files: [],
    filesPos: pos,
    questionsPos: pos,
    questions: [
      { name: "q", kind: "noul", ask: "?", labels: ["yes", "no"], descriptions: {}, drop: ["yes", "no"], pos, dropPos: pos, valid: true },
    ],
  };
  g.emits = { q: "string" };
  const r = checkTasks([a, b, broken, g], { evaluationComplete: true, playbook: "p" });
  assert.deepEqual(r.diagnostics.map((d) => `${d.code} @ ${d.pos?.line}`).sort(), [
    `dependency-cycle @ ${a.pos.line}`,
    `uncovered-label @ ${g.pos.line}`,
  ]);
});
