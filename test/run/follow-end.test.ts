// `show RUN --follow` prints every event of the run once, in order, up to its end — also when the
// run ends between the follow's read of the events and its look at the run's status (the last
// events were committed in between). A store is scripted here so that the run ends at exactly
// that moment, which a real run does only by chance.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { followRun } from "../../src/cli/follow.js";
import type { Store, StoredEvent } from "../../src/run/index.js";

const RUN = "20260101-000000-000000";

function event(seq: number, type: StoredEvent["type"]): StoredEvent {
  return { seq, time: "2026-01-01T00:00:00.000Z", type, task: null, key: null, payload: "{}" };
}

/** Events 1-3 at first; the first look at the run's status commits 4 and 5 (the end) and finds it passed. */
function endingStore(): Store {
  const events = [event(1, "plan_admitted"), event(2, "instance_started"), event(3, "instance_finished")];
  let looks = 0;
  const store = {
    eventsAfter: (_run: string, after: number, limit: number) => events.filter((e) => e.seq > after).slice(0, limit),
    run: () => {
      looks++;
      if (looks === 1) events.push(event(4, "task_settled"), event(5, "run_finished"));
      return { status: "passed", pid: 1 };
    },
  };
  return store as unknown as Store;
}

test("show --follow: a run that ends between the follow's read and its status look still has its last events printed", async () => {
  let out = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out += chunk.toString();
      done();
    },
  });
  await followRun(endingStore(), RUN, true, sink);
  const seqs = out
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { seq: number }).seq);
  assert.deepEqual(seqs, [1, 2, 3, 4, 5], "every event, in order, none twice");
});
