// C-20: the TOML plan is deterministic, round-trips, and reads back into the same Plan.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readPlanToml, writePlanToml } from "../../src/plan/toml.js";
import { DiagnosticError } from "../../src/lang/diagnostic.js";
import type { Plan } from "../../src/plan/plan.js";

export function samplePlan(): Plan {
  return {
    playbook: "triage",
    source_file: "triage.star",
    pack_digest: "ab".repeat(32),
    compiler_version: "switchyard 0.1.0",
    settings: {
      description: 'Triage "CVE" tickets\nacross lines',
      concurrency: 4,
      decision_concurrency: 16,
      max_duration_seconds: 7200,
      budget_usd: 12.5,
    },
    tasks: [
      {
        name: "prepare",
        kind: "command",
        depends_on: [],
        join: "all",
        aligned_with: [],
        keyed: [],
        timeout_seconds: 1800,
        retries: 0,
        emits: { members: "list", facts: "object", packages: "object" },
        command: { run: "node $SWITCHYARD_PACK/stage.mjs", env: { "A B": "1", __proto__x: "y" } },
        declared_at: { file: "triage.star", line: 3, col: 11 },
      },
      {
        name: "gate",
        kind: "route",
        depends_on: ["prepare"],
        join: "all",
        over: { task: "prepare", field: "members" },
        max_fanout: 120,
        aligned_with: [],
        keyed: [{ task: "prepare", field: "facts" }],
        timeout_seconds: 90,
        retries: 2,
        emits: { depth: "string", package: "string" },
        route: {
          decide: "model",
          min_confidence: 0.8,
          files: [],
          questions: [
            {
              name: "depth",
              kind: "choice",
              ask: "How deep?",
              labels: ["settled", "quick"],
              descriptions: { settled: "done", quick: "" },
              drop: ["settled"],
              type: "triage.gate.depth",
              min_confidence: 0.5,
            },
            {
              name: "package",
              kind: "choice",
              ask: "Which?",
              labels: [],
              descriptions: {},
              dynamic: { task: "prepare", field: "packages" },
              drop: [],
              type: "T.X",
            },
          ],
        },
        declared_at: { file: "lib/x:y.star", line: 10, col: 8 },
      },
      {
        name: "quick",
        kind: "agent",
        depends_on: ["prepare", "gate"],
        join: "settled",
        over: { task: "prepare", field: "members" },
        max_fanout: 120,
        aligned_with: ["gate"],
        keyed: [],
        timeout_seconds: 1800,
        retries: 0,
        emits: {},
        when: { route: "gate", question: "depth", answers: ["quick"], otherwise: false, labels: ["quick"], any_option: false },
        agent: { prompt: "Check {{key}}", effort: "low", files: ["RESULT.json"], runner: "default" },
        declared_at: { file: "triage.star", line: 20, col: 9 },
      },
      {
        name: "loop",
        kind: "revise",
        depends_on: ["prepare"],
        join: "all",
        aligned_with: [],
        keyed: [],
        timeout_seconds: 1800,
        retries: 0,
        emits: { rounds: "number" },
        revise: {
          max_rounds: 3,
          body: {
            name: "b",
            kind: "command",
            depends_on: [],
            join: "all",
            aligned_with: [],
            keyed: [],
            timeout_seconds: 60,
            retries: 0,
            emits: {},
            command: { run: "true", env: {} },
            declared_at: { file: "triage.star", line: 30, col: 5 },
          },
          reviewer: {
            name: "r",
            kind: "evaluate",
            depends_on: [],
            join: "all",
            aligned_with: [],
            keyed: [],
            timeout_seconds: 60,
            retries: 0,
            emits: { verdict: "string" },
            evaluate: { module: "lib/v.star", function: "check" },
            declared_at: { file: "triage.star", line: 31, col: 5 },
          },
        },
        declared_at: { file: "triage.star", line: 29, col: 8 },
      },
    ],
  };
}

test("C-20: writing the same plan twice gives byte-identical TOML", () => {
  assert.equal(writePlanToml(samplePlan()), writePlanToml(samplePlan()));
});

test("C-20: read + write of a plan file is unchanged", () => {
  const text = writePlanToml(samplePlan());
  assert.equal(writePlanToml(readPlanToml(text)), text);
});

test("C-20: readPlanToml gives back the same in-memory Plan (deep-equal)", () => {
  const plan = samplePlan();
  assert.deepStrictEqual(readPlanToml(writePlanToml(plan)), plan);
});

test("C-20: the TOML has a [plan] table and one [[task]] per task with resolved fields", () => {
  const text = writePlanToml(samplePlan());
  assert.match(text, /^\[plan\]$/m);
  assert.equal(text.match(/^\[\[task\]\]$/gm)?.length, 4);
  assert.match(text, /aligned_with = \[ "gate" \]/);
  assert.match(text, /any_option = false/);
  assert.match(text, /dynamic = "prepare.packages"/);
});

function malformed(text: string, pattern: RegExp): void {
  assert.throws(
    () => readPlanToml(text, "bad.toml"),
    (e: unknown) => {
      assert.ok(e instanceof DiagnosticError);
      assert.equal(e.diagnostics[0]!.code, "malformed-plan");
      assert.match(e.diagnostics[0]!.message, pattern);
      return true;
    },
  );
}

test("C-20: a plan file that is not TOML is rejected with its line", () => {
  assert.throws(
    () => readPlanToml("[plan\nx = 1", "bad.toml"),
    (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0]!.code === "malformed-plan" && e.diagnostics[0]!.pos?.line === 1,
  );
});

test("C-20: a plan with a wrong field type names the field", () => {
  const text = writePlanToml(samplePlan()).replace("max_fanout = 120", 'max_fanout = "many"');
  malformed(text, /task\[1\]\(gate\)\.max_fanout: expected a number/);
});

test("C-20: a plan with an unknown key, a bad join or a dangling dependency is rejected", () => {
  const base = writePlanToml(samplePlan());
  malformed(base.replace('join = "settled"', 'join = "any"'), /join: expected one of "all", "settled"/);
  malformed(base.replace("retries = 2", "retries = 2\nfrobnicate = true"), /frobnicate: unknown key/);
  malformed(
    base.replace('depends_on = [ "prepare", "gate" ]', 'depends_on = [ "prepare", "gatex" ]'),
    /'gatex' is not a task declared before 'quick'/,
  );
  malformed(base.replace('labels = [ "quick" ]', 'labels = "quick"'), /when\.labels: expected a list of strings/);
  malformed("", /\[plan\]: expected a table/);
});
