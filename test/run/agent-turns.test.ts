// The run summary's "agent turns" line: every agent turn that ran is counted — each attempt
// of an agent task (a retry is another turn) and each agent turn inside a revise loop's rounds
// (its body every round, an agent reviewer every finished round, and the body of a round an
// attempt ended in). The numbers are known by construction: the scripted agent below counts its
// own runs in a file, independently of the engine's events.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskPlan } from "../../src/plan/index.js";
import { RunTally } from "../../src/cli/run-summary.js";
import { admitRun, RunEngine } from "../../src/run/index.js";
import { agent, command, evaluate, evaluators, harness, mapped, plan, ref, runner, runPlan, type Harness } from "./helpers.js";

function revise(
  name: string,
  body: TaskPlan,
  reviewer: TaskPlan,
  maxRounds: number,
  extra: { depends_on?: string[]; over?: { task: string; field: string }; max_fanout?: number } = {},
): TaskPlan {
  return {
    ...command(name, "unused"),
    ...extra,
    kind: "revise",
    command: undefined,
    revise: { body, reviewer, max_rounds: maxRounds },
    emits: { ...body.emits, rounds: "number" },
  };
}

/** An agent runner script that first appends its prompt to `ran` (one line per turn), then runs `rest`. */
function countingAgent(h: Harness, rest: string): { ran: string; script: string } {
  const ran = join(h.dir.path, "ran.txt");
  return { ran, script: h.dir.file("agent.sh", `#!/bin/sh\np=$(cat)\necho "$p" >> ${JSON.stringify(ran)}\n${rest}`, 0o755) };
}

test("R-30: the summary counts every agent turn that ran: attempts, retries and revise rounds (body and agent reviewer)", async () => {
  const h = harness();
  try {
    // One line per turn the agent ran. "flaky" fails its first attempt; "brittle" fails in round 2;
    // the reviewer accepts "draft 3" only.
    const flaked = JSON.stringify(join(h.dir.path, "flaked"));
    const { ran, script } = countingAgent(
      h,
      `case "$p" in
  flaky*) if [ ! -e ${flaked} ]; then touch ${flaked}; exit 1; fi ;;
  "brittle 2") exit 1 ;;
  "review draft 3") printf '{"verdict":"accept"}' > "$SWITCHYARD_OUTPUT"; exit 0 ;;
  review*) printf '{"verdict":"revise","feedback":"more"}' > "$SWITCHYARD_OUTPUT"; exit 0 ;;
esac
printf '{"text":"%s"}' "$(echo "$p" | sed 's/^[a-z]* //; s/^/draft /')" > "$SWITCHYARD_OUTPUT"
`,
    );
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      agent("plain", "plain {{key}}", { depends_on: ["prepare"], ...m, emits: { text: "string" } }),
      agent("flaky", "flaky", { retries: 1, emits: { text: "string" } }),
      // Accepted in round 3: 3 body turns and 3 reviewer turns.
      revise(
        "polish",
        agent("draft", "draft {{round}}", { emits: { text: "string" } }),
        agent("judge", "review {{inputs.draft.text}}", { emits: { verdict: "string" } }),
        5,
      ),
      // Each of 2 elements: round 1 recorded (1 body turn), then the body fails in round 2 (1 more).
      revise(
        "fragile",
        agent("brittle", "brittle {{round}}", { emits: { text: "string" } }),
        evaluate("again", { emits: { verdict: "string" } }),
        4,
        { depends_on: ["prepare"], ...m },
      ),
      // The reviewer never accepts: max_rounds = 2 body turns, and no round after the last.
      revise(
        "stubborn",
        agent("try", "try {{round}}", { emits: { text: "string" } }),
        evaluate("never", { emits: { verdict: "string" } }),
        2,
      ),
    ]);
    const tally = new RunTally();
    tally.plan(p);
    const { outcome, show } = await runPlan(h, p, {
      agentRunners: runner("default", [script]),
      fns: { prepare: () => ({ members: ["a", "b", "c"] }), again: () => ({ verdict: "revise" }), never: () => ({ verdict: "revise" }) },
      onEvent: (e) => tally.event(e),
    });
    assert.equal(outcome.status, "failed"); // fragile and stubborn fail, as built
    assert.equal(show.tasks.polish!.output && (show.tasks.polish!.output as { rounds: number }).rounds, 3);
    const lines = readFileSync(ran, "utf8").trim().split("\n");
    // By hand: plain 3 + flaky 2 + polish 3+3 + fragile 3 elements x 2 + stubborn 2 = 19 turns,
    // 14 of them in revise rounds.
    assert.equal(lines.length, 19, lines.join("\n"));
    assert.deepEqual(tally.agentTurns(), { taken: 19, in_revise_rounds: 14 });
    assert.deepEqual(tally.json(0).agent_turns, { taken: 19, in_revise_rounds: 14 });
    assert.equal(tally.lines("r", 0)[0], "agent turns: 19 taken (14 in revise rounds)");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-30: a revise loop stopped by a ceiling between rounds counts the rounds that ran; one cancelled during its body counts that body's turn", async () => {
  const h = harness();
  try {
    // Each turn reports $0.02; "hang" then waits to be killed.
    const { ran, script } = countingAgent(
      h,
      `printf '{"cost_usd": 0.02}' > "$SWITCHYARD_USAGE"
case "$p" in hang*) exec sleep 60 ;; esac
printf '{"text":"t"}' > "$SWITCHYARD_OUTPUT"
`,
    );
    const never = () => ({ verdict: "revise" });
    // Budget $0.01: round 1 ($0.02) is recorded, then the ceiling keeps round 2 from starting.
    const budget = plan(
      [
        revise(
          "loop",
          agent("draft", "draft {{round}}", { emits: { text: "string" } }),
          evaluate("never", { emits: { verdict: "string" } }),
          5,
        ),
      ],
      {
        budget_usd: 0.01,
      },
    );
    const stopped = new RunTally();
    stopped.plan(budget);
    const first = await runPlan(h, budget, { agentRunners: runner("default", [script]), fns: { never }, onEvent: (e) => stopped.event(e) });
    assert.equal(first.outcome.status, "stopped");
    assert.equal(readFileSync(ran, "utf8").trim().split("\n").length, 1);
    assert.deepEqual(stopped.agentTurns(), { taken: 1, in_revise_rounds: 1 });

    // Cancelled while round 1's body runs: that turn ran.
    const hang = plan([
      revise(
        "loop",
        agent("draft", "hang {{round}}", { emits: { text: "string" } }),
        evaluate("never", { emits: { verdict: "string" } }),
        5,
      ),
    ]);
    const cancelled = new RunTally();
    cancelled.plan(hang);
    const run = admitRun(h.store, { plan: hang, packDir: h.pack, sourcePath: h.pack });
    const engine = new RunEngine({
      store: h.store,
      run,
      resume: false,
      agentRunners: runner("default", [script]),
      evaluators: evaluators({ never }),
      onEvent: (e) => cancelled.event(e),
    });
    const done = engine.execute();
    // The body's first act is its line in ran.txt: then it is running.
    while (!readFileSync(ran, "utf8").includes("hang 1")) await new Promise((r) => setTimeout(r, 20));
    cancelled.cancelling();
    engine.cancel("cancelled by the test");
    assert.equal((await done).status, "cancelled");
    assert.deepEqual(cancelled.agentTurns(), { taken: 1, in_revise_rounds: 1 });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
