// `rerun --redecide` on the appendix playbook through the CLI, the host
// answering. Only the route named by --task is asked again (once per element); the routes
// reached downstream keep their decisions and are not asked; the record keeps both answers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { E2E, labels, tickets } from "./support/harness.js";

test(
  "rerun --redecide on the appendix playbook: asks again only the named route, keeps both answers, re-gates downstream",
  { timeout: 60000 },
  async () => {
    const e = new E2E(tickets(["T1", "T2"]));
    try {
      const config = e.config("");
      e.host({ match: { T1: "p1", T2: "p1" }, gate: { T1: "quick", T2: "quick" } });
      const first = await e.sy(["run", e.pack, "--config", config]);
      assert.equal(first.code, 0, first.out + first.err);
      const asked = e.hostCalls().length;
      const turns = e.turns();
      assert.deepEqual(turns, ["quick[T1] low", "quick[T2] low"]);

      // Without --redecide a recorded decision is never asked again: the rerun is refused.
      const refused = await e.here(["rerun", "latest", "--task", "match"]);
      assert.equal(refused.code, 2);
      assert.match(refused.err, /decisions are recorded; they are kept unless you ask for them again\nhelp: add --redecide/);

      // The person changes their mind about T1: now "none" (gate still open, through `otherwise`).
      e.host({ match: { T1: "none", T2: "p1" }, gate: { T1: "deep", T2: "quick" } });
      const r = await e.sy(["rerun", "latest", "--task", "match", "--key", "T1", "--redecide", "--downstream"]);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.err, /recorded decisions? kept, reused where the gate is still open/);
      assert.deepEqual(
        e.hostCalls().slice(asked),
        ["host match[T1]"],
        "only match[T1] is asked again; gate[T1] and judge[T1] keep their answers",
      );

      const show = await e.show();
      assert.equal(show.status, "passed");
      assert.deepEqual(labels(show, "match"), { T1: "none", T2: "p1" });
      assert.deepEqual(labels(show, "gate"), { T1: "quick", T2: "quick" }, "the kept decision, not the host's new script");
      const t1 = show.tasks.match!.instances!.T1!;
      assert.equal(t1.earlier?.length, 1);
      assert.equal(
        (t1.earlier![0]!.output as Record<string, { label: string }>).package!.label,
        "p1",
        "the earlier answer beside the new one",
      );
      assert.equal(show.tasks.match!.instances!.T2!.earlier, undefined);
      assert.equal(show.tasks.gate!.instances!.T1!.earlier?.[0]?.kept, true);
      // quick[T1] ran again downstream of the new answer; quick[T2] did not.
      assert.deepEqual(e.turns(), ["quick[T1] low", "quick[T1] low", "quick[T2] low"]);
    } finally {
      e.cleanup();
    }
  },
);
