// a ceiling is reached at exactly its limit, not one unit before; known answers for the
// recorded reason of each ceiling. D-67: the clock of the time a run only waits for review answers
// (which max_duration does not count), by known answers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ceilingReached, WaitingClock } from "../../src/run/engine/ceilings.js";

/** The ceiling a halt names, or null when there is none. */
function ceiling(halt: ReturnType<typeof ceilingReached>): string | null {
  return halt?.kind === "stopped" ? halt.ceiling : null;
}

const settings = (max_duration_seconds: number, budget_usd?: number) => ({
  concurrency: 1,
  decision_concurrency: 1,
  max_duration_seconds,
  ...(budget_usd !== undefined ? { budget_usd } : {}),
});

test("R-6: max_duration is reached at exactly the limit in milliseconds, not 1 ms before", () => {
  assert.equal(ceilingReached(settings(10), 9999, 0), null);
  assert.deepEqual(ceilingReached(settings(10), 10000, 0), {
    kind: "stopped",
    ceiling: "max_duration",
    code: "ceiling-reached",
    reason: "ceiling-reached: max_duration of 10s reached (10.0s over all invocations); resume with a higher --max-duration",
  });
  assert.equal(ceilingReached(settings(10), 12345, 0)?.reason.includes("(12.3s over all invocations)"), true);
});

test("R-6: budget_usd is reached at exactly the budget, not a cent before; none is no ceiling", () => {
  assert.equal(ceilingReached(settings(60, 0.03), 0, 0.0299), null);
  assert.deepEqual(ceilingReached(settings(60, 0.03), 0, 0.03), {
    kind: "stopped",
    ceiling: "budget_usd",
    code: "ceiling-reached",
    reason: "ceiling-reached: budget_usd of $0.03 reached ($0.0300 reported by agents); resume with a higher --budget-usd",
  });
  assert.equal(ceilingReached(settings(60), 0, 1e9), null);
  // A budget of 0 is reached before anything is spent.
  assert.equal(ceiling(ceilingReached(settings(60, 0), 0, 0)), "budget_usd");
});

test("R-6: when both are reached, max_duration is the one named", () => {
  assert.equal(ceiling(ceilingReached(settings(1, 1), 1000, 1)), "max_duration");
  assert.equal(ceiling(ceilingReached(settings(1, 1), 999, 1)), "budget_usd");
});

test("D-67: the waiting clock counts each stretch once; a second start keeps the first, a stop without a start adds nothing", () => {
  const clock = new WaitingClock();
  clock.stop(500);
  assert.equal(clock.ms(1000), 0);
  clock.start(1000);
  clock.start(1700); // said again while still waiting: the stretch began at 1000
  assert.equal(clock.ms(1800), 800);
  clock.stop(2000);
  assert.equal(clock.ms(9000), 1000);
  clock.start(10000);
  assert.equal(clock.ms(10250), 1250);
  clock.stop(10250);
  clock.stop(99999);
  assert.equal(clock.ms(99999), 1250);
});
