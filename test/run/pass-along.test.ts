// T-1 with Q-20: a command may pass what it was given along unchanged. Downstream of a route, its
// $SWITCHYARD_INPUT holds the decision record, whose probabilities are floats with long fractions
// (1 - 0.9 is 0.09999999999999998); `cp "$SWITCHYARD_INPUT" "$SWITCHYARD_OUTPUT"` must pass and
// record exactly what it was given, digit for digit.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { DecisionRecord, JudgeRequest } from "../../src/run/kinds/judge.js";
import { command, evaluate, harness, mapped, modelRoute, noul, plan, ref, runPlan, statuses, when } from "./helpers.js";
import { FakeJudge } from "./fake-judge.js";

/** Answers "yes" with probability 0.9 and gives "no" the rest, computed as a model's would be. */
class ComplementJudge extends FakeJudge {
  constructor() {
    super(() => "yes");
  }
  override async judge(req: JudgeRequest): Promise<DecisionRecord> {
    const record = await super.judge(req);
    for (const d of Object.values(record)) d.probabilities = { yes: 0.9, no: 1 - 0.9 };
    return record;
  }
}

test("T-1: a command downstream of a route copies its input (probabilities like 0.09999999999999998) to its output and passes", async () => {
  assert.equal(1 - 0.9, 0.09999999999999998); // the value the record holds, written out by hand
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("gate", [noul("relevant")], { depends_on: ["prepare"], ...m }),
      command("pass", `cp "$SWITCHYARD_INPUT" "$SWITCHYARD_OUTPUT"`, {
        depends_on: ["gate"],
        ...m,
        when: when("gate", "relevant", ["yes"]),
      }),
    ]);
    const { outcome, show } = await runPlan(h, p, {
      judge: new ComplementJudge(),
      fns: { prepare: () => ({ members: ["a", "b"] }) },
    });
    assert.deepEqual(statuses(show, "pass"), { a: "passed", b: "passed" }, JSON.stringify(show.tasks.pass));
    assert.equal(outcome.status, "passed");
    for (const k of ["a", "b"]) {
      const out = show.tasks.pass!.instances![k]!.output as { key: string; inputs: { gate: Record<string, { probabilities: unknown }> } };
      assert.equal(out.key, k);
      assert.deepEqual(
        Object.values(out.inputs.gate).map((d) => d.probabilities),
        [{ yes: 0.9, no: 0.09999999999999998 }],
      );
    }
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
