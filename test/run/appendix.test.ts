// The SPEC appendix playbook (triage), as a plan with an output-decided stand-in for each route
// and a scripted agent runner: a ticket answered `settled` shows not_taken under its key in
// quick, deep, judge and recheck (G-5, G-6), and costs no agent turn.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  harness,
  plan,
  evaluate,
  command,
  agent,
  outputRoute,
  choice,
  noul,
  when,
  mapped,
  ref,
  runPlan,
  statuses,
  runner,
} from "./helpers.js";

const STAGE = `
const out = {
  members: ["T1", "T2", "T3", "T4"],
  facts: { T1: { cve: "CVE-1", settled: true }, T2: { cve: "CVE-2" }, T3: { cve: "CVE-3" }, T4: { cve: "CVE-4" } },
  packages: { T1: ["p1", "p2"], T2: ["p1", "p2"], T3: ["p1"], T4: ["p2"] },
  match_answers: { T1: { package: "p1" }, T2: { package: "p2" }, T3: { package: "p1" }, T4: { package: "none" } },
  gate_answers: { T1: { depth: "settled" }, T2: { depth: "quick" }, T3: { depth: "deep" }, T4: { depth: "quick" } },
  judge_answers: { T1: { supported: "yes" }, T2: { supported: "no" }, T3: { supported: "yes" }, T4: { supported: "yes" } },
};
require("fs").writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify(out));
`;

// The scripted agent: records each turn, writes RESULT.json with the prompt it got, reports usage.
const AGENT = `#!/usr/bin/env node
const fs = require("fs");
const prompt = fs.readFileSync(0, "utf8");
fs.appendFileSync(process.env.TURNS_LOG, process.env.SWITCHYARD_TASK + "[" + process.env.SWITCHYARD_KEY + "] " + process.env.SWITCHYARD_EFFORT + "\\n");
fs.writeFileSync("RESULT.json", JSON.stringify({ verdict: "reachable", prompt }));
fs.writeFileSync(process.env.SWITCHYARD_USAGE, JSON.stringify({ input_tokens: 10, output_tokens: 5, cost_usd: 0.01 }));
fs.writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ turn: process.env.SWITCHYARD_TASK }));
`;

test("appendix playbook with stand-ins: a ticket answered settled is not_taken under its key in quick, deep, judge and recheck", async () => {
  const h = harness();
  try {
    writeFileSync(join(h.pack, "stage.cjs"), STAGE);
    const agentPath = h.dir.file("agent.cjs", AGENT, 0o755);
    const turns = join(h.dir.path, "turns.log");
    process.env.TURNS_LOG = turns;
    const m = mapped(ref("prepare", "members"), { max_fanout: 120 });
    const p = plan([
      command("prepare", "node $SWITCHYARD_PACK/stage.cjs", {
        emits: {
          members: "list",
          facts: "object",
          packages: "object",
          match_answers: "object",
          gate_answers: "object",
          judge_answers: "object",
        },
      }),
      outputRoute("match", ref("prepare", "match_answers"), [choice("package", ["p1", "p2", "none"])], {
        depends_on: ["prepare"],
        ...m,
        keyed: [ref("prepare", "facts")],
      }),
      agent("review", "Match ticket {{key}} to a shipped package by hand: {{inputs.prepare.facts}}", {
        depends_on: ["prepare", "match"],
        ...m,
        keyed: [ref("prepare", "facts")],
        when: when("match", "package", ["none"]),
      }),
      outputRoute("gate", ref("prepare", "gate_answers"), [choice("depth", ["settled", "quick", "deep"], { drop: ["settled"] })], {
        depends_on: ["prepare", "match"],
        ...m,
        keyed: [ref("prepare", "facts")],
        when: when("match", "package", ["p1", "p2"], true),
      }),
      agent("quick", "Check whether {{key}} is reachable: {{inputs.prepare.facts}}. Write RESULT.json.", {
        depends_on: ["prepare", "gate"],
        ...m,
        keyed: [ref("prepare", "facts")],
        when: when("gate", "depth", ["quick"]),
        files: ["RESULT.json"],
      }),
      agent("deep", "Investigate reachability of {{key}} in depth: {{inputs.prepare.facts}}. Write RESULT.json.", {
        depends_on: ["prepare", "gate"],
        ...m,
        keyed: [ref("prepare", "facts")],
        when: when("gate", "depth", ["deep"], true),
        files: ["RESULT.json"],
      }),
      outputRoute("judge", ref("prepare", "judge_answers"), [noul("supported", { drop: ["yes"] })], {
        depends_on: ["quick", "deep", "prepare"],
        join: "settled",
        ...m,
      }),
      agent("recheck", "The verdict for {{key}} was not supported by its evidence; redo the analysis.", {
        depends_on: ["judge"],
        ...m,
        when: when("judge", "supported", ["no"], true),
        files: ["RESULT.json"],
      }),
      evaluate("report", { depends_on: ["prepare", "review", "judge", "recheck"], join: "settled" }),
    ]);
    for (const t of p.tasks) {
      if (t.name === "quick") t.agent!.effort = "low";
      if (t.name === "deep") t.agent!.effort = "high";
    }
    const { show, outcome } = await runPlan(h, p, {
      agentRunners: runner("default", [agentPath]),
      fns: { report: (i) => ({ statuses: i.statuses }) },
    });
    assert.equal(outcome.status, "passed", JSON.stringify(show, null, 1));
    for (const task of ["quick", "deep", "judge", "recheck"]) {
      assert.equal(show.tasks[task]!.instances!.T1!.status, "not_taken", task);
      assert.equal(show.tasks[task]!.instances!.T1!.label, "settled", task);
    }
    assert.deepEqual(statuses(show, "review"), { T1: "not_taken", T2: "not_taken", T3: "not_taken", T4: "passed" });
    assert.deepEqual(statuses(show, "gate"), { T1: "passed", T2: "passed", T3: "passed", T4: "not_taken" });
    assert.deepEqual(statuses(show, "quick"), { T1: "not_taken", T2: "passed", T3: "not_taken", T4: "not_taken" });
    assert.deepEqual(statuses(show, "deep"), { T1: "not_taken", T2: "not_taken", T3: "passed", T4: "not_taken" });
    assert.deepEqual(statuses(show, "judge"), { T1: "not_taken", T2: "passed", T3: "passed", T4: "not_taken" });
    assert.deepEqual(statuses(show, "recheck"), { T1: "not_taken", T2: "passed", T3: "not_taken", T4: "not_taken" });
    assert.equal(show.tasks.recheck!.instances!.T3!.label, "yes");
    assert.deepEqual(show.tasks.report!.output, { statuses: { prepare: "passed", review: "passed", judge: "passed", recheck: "passed" } });
    // Four agent turns in all; the settled ticket cost none.
    const log = readFileSync(turns, "utf8").trim().split("\n").sort();
    assert.deepEqual(log, ["deep[T3] high", "quick[T2] low", "recheck[T2] medium", "review[T4] medium"].sort());
    // The prompt saw only its own ticket's facts (M-3), and files joined the output (T-2).
    const quick = show.tasks.quick!.instances!.T2!.output as { files: { "RESULT.json": { prompt: string } } };
    assert.equal(quick.files["RESULT.json"].prompt, 'Check whether T2 is reachable: {"cve":"CVE-2"}. Write RESULT.json.');
    assert.ok(existsSync(join(h.state, "runs", show.run, "pack", "stage.cjs")), "R-1: the pack is snapshotted");
    assert.equal(h.store.run(show.run)!.spent_usd.toFixed(2), "0.04");
  } finally {
    delete process.env.TURNS_LOG;
    h.store.close();
    h.dir.cleanup();
  }
});
