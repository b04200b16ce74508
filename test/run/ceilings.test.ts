// ceilings stop a run (nothing new starts, running instances finish, status stopped with the
// ceiling named); resume with a raised ceiling finishes with the same records as an unstopped run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { harness, plan, command, agent, evaluate, mapped, ref, runPlan, resumePlan, runner, writeJson, type Harness } from "./helpers.js";
import type { ShowJson } from "../../src/run/index.js";
import type { TaskPlan } from "../../src/plan/index.js";

/** The max_duration ceiling of the R-6 test: long enough for one short command on a loaded machine. */
const CEILING_S = 5;

const AGENT = `#!/bin/sh
cat > /dev/null
printf '{"cost_usd": 0.01, "input_tokens": 3}' > "$SWITCHYARD_USAGE"
printf '{"key":"%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT"
`;

function records(show: ShowJson) {
  const out: Record<string, unknown> = {};
  for (const [name, t] of Object.entries(show.tasks)) {
    out[name] = {
      status: t.status,
      output: t.output,
      summary: t.summary,
      instances: Object.fromEntries(Object.entries(t.instances ?? {}).map(([k, i]) => [k, { status: i.status, output: i.output }])),
    };
  }
  return out;
}

test("R-6: budget_usd stops the run after agents report that much cost; resume with a raised budget gives the unstopped records", async () => {
  const hs: Harness[] = [harness(), harness()];
  try {
    const make = () =>
      plan(
        [
          command("prepare", writeJson({ members: ["a", "b", "c", "d", "e", "f"] }), { emits: { members: "list" } }),
          agent("turn", "look at {{key}}", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
        ],
        { concurrency: 1, budget_usd: 0.025 },
      );
    const runners = (h: Harness) => runner("default", [h.dir.file("agent.sh", AGENT, 0o755)]);
    const stopped = await runPlan(hs[0]!, make(), { agentRunners: runners(hs[0]!) });
    assert.equal(stopped.outcome.status, "stopped");
    assert.equal(stopped.outcome.code, "ceiling-reached");
    assert.match(stopped.outcome.reason!, /^ceiling-reached: budget_usd of \$0.025 reached/);
    assert.equal(stopped.show.status, "stopped");
    const ran = Object.values(stopped.show.tasks.turn!.instances!).filter((i) => i.status === "passed").length;
    assert.equal(ran, 3, "nothing starts once the budget is reached");
    const resumed = await resumePlan(hs[0]!, stopped.run, { agentRunners: runners(hs[0]!), overrides: { budget_usd: 1 } });
    assert.equal(resumed.outcome.status, "passed");
    assert.equal(hs[0]!.store.run(stopped.run)!.spent_usd.toFixed(2), "0.06");
    const whole = await runPlan(hs[1]!, make(), { agentRunners: runners(hs[1]!), overrides: { budget_usd: 1 } });
    assert.deepEqual(records(resumed.show), records(whole.show));
  } finally {
    for (const h of hs) {
      h.store.close();
      h.dir.cleanup();
    }
  }
});

test("R-6: max_duration (summed over invocations) stops the run; resume with a raised ceiling gives the unstopped records", async () => {
  const hs: Harness[] = [harness(), harness()];
  try {
    // Element 1 finishes at once; the others wait for the gate, which the test opens only after
    // the ceiling has stopped the run: the ceiling fires with exactly one element done, however
    // loaded the machine (as long as element 1 takes less than the ceiling). A stopped run lets its
    // running instance finish: the waiting element ends at its timeout, a second past the ceiling
    // (the harness's default 30 s made this test wait half a minute).
    const gate = join(hs[0]!.dir.path, "gate");
    const make = () =>
      plan(
        [
          command("prepare", writeJson({ members: [1, 2, 3, 4, 5, 6] }), { emits: { members: "list" } }),
          command(
            "slow",
            `[ "$SWITCHYARD_KEY" = 1 ] || while [ ! -e '${gate}' ]; do sleep 0.05; done; printf '{"k":"%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT"`,
            { depends_on: ["prepare"], ...mapped(ref("prepare", "members")), timeout_seconds: CEILING_S + 1 },
          ),
        ],
        { concurrency: 1, max_duration_seconds: CEILING_S },
      );
    const stopped = await runPlan(hs[0]!, make());
    assert.equal(stopped.outcome.status, "stopped");
    assert.equal(stopped.outcome.code, "ceiling-reached");
    assert.match(stopped.outcome.reason!, new RegExp(`^ceiling-reached: max_duration of ${CEILING_S}s reached`));
    const done = Object.values(stopped.show.tasks.slow!.instances!).filter((i) => i.status === "passed").length;
    assert.equal(done, 1, `${done} finished before the ceiling`);
    // The same ceiling again: the time already spent counts, so it stops at once.
    const again = await resumePlan(hs[0]!, stopped.run);
    assert.equal(again.outcome.status, "stopped");
    assert.ok(hs[0]!.store.run(stopped.run)!.elapsed_ms >= CEILING_S * 1000);
    writeFileSync(gate, "");
    const resumed = await resumePlan(hs[0]!, stopped.run, { overrides: { max_duration_seconds: 3600 } });
    assert.equal(resumed.outcome.status, "passed");
    const whole = await runPlan(hs[1]!, make(), { overrides: { max_duration_seconds: 3600 } });
    assert.deepEqual(records(resumed.show), records(whole.show));
  } finally {
    for (const h of hs) {
      h.store.close();
      h.dir.cleanup();
    }
  }
});

// a revise round is new work, so the ceilings are checked before each round.
const COSTLY_DRAFT = `#!/bin/sh
cat > /dev/null
printf '{"cost_usd": 0.60}' > "$SWITCHYARD_USAGE"
printf '{"text":"round %s"}' "$(node -e 'console.log(require(process.env.SWITCHYARD_INPUT).round || 1)')" > "$SWITCHYARD_OUTPUT"
`;

test("R-6: budget_usd is checked before each revise round; resume with a raised budget continues from the last finished round", async () => {
  const h = harness();
  try {
    const body = agent("draft", "Write. Feedback: {{feedback}}", { emits: { text: "string" } });
    const reviewer = evaluate("critic", { emits: { verdict: "string", feedback: "string" } });
    const loop: TaskPlan = {
      ...command("loop", "unused"),
      kind: "revise",
      command: undefined,
      revise: { body, reviewer, max_rounds: 5 },
      emits: { text: "string", rounds: "number" },
    };
    let reviews = 0;
    const fns = {
      critic: (i: { round: number }) => (
        reviews++,
        i.round < 4 ? { verdict: "revise", feedback: "again" } : { verdict: "accept", feedback: "" }
      ),
    };
    const agentRunners = runner("default", [h.dir.file("draft.sh", COSTLY_DRAFT, 0o755)]);
    const stopped = await runPlan(h, plan([loop], { budget_usd: 1.0 }), { agentRunners, fns });
    assert.equal(stopped.outcome.status, "stopped");
    assert.equal(stopped.outcome.code, "ceiling-reached");
    assert.match(stopped.outcome.reason!, /^ceiling-reached: budget_usd of \$1 reached/);
    assert.equal(h.store.run(stopped.run)!.spent_usd.toFixed(2), "1.20", "two rounds ran, the third never started");
    const rounds = () => [...h.store.events(stopped.run)].filter((e) => e.type === "revise_round").length;
    assert.equal(rounds(), 2);
    assert.equal(reviews, 2);
    const resumed = await resumePlan(h, stopped.run, { agentRunners, fns, overrides: { budget_usd: 10 } });
    assert.equal(resumed.outcome.status, "passed", JSON.stringify(resumed.show.tasks.loop));
    assert.deepEqual(resumed.show.tasks.loop!.output, { text: "round 4", rounds: 4 });
    assert.equal(rounds(), 4, "rounds 1 and 2 were not run again");
    assert.equal(h.store.run(stopped.run)!.spent_usd.toFixed(2), "2.40");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
