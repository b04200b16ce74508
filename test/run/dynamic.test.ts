// Q-30 … Q-32: dynamic options are resolved per element before any request; a bad list fails
// that element's decision only.

import { test } from "node:test";
import assert from "node:assert/strict";
import { harness, plan, evaluate, agent, modelRoute, choice, noul, mapped, ref, runPlan, runner } from "./helpers.js";
import { FakeJudge } from "./fake-judge.js";

test("Q-31: over 64 entries, fewer than two options, malformed entries, non-identifiers and `uncertain` fail only their element, before any request", async () => {
  const h = harness();
  try {
    const judge = new FakeJudge((_k, q) => q.labels[0]!);
    const options = {
      ok: ["p1", { value: "p2", description: "second" }],
      many: Array.from({ length: 65 }, (_, i) => `p${i}`),
      one: ["only", "only"],
      malformed: ["p1", { value: 3 }],
      ident: ["p1", "not-an-ident"],
      reserved: ["p1", "uncertain"],
      dedupe: ["q", "q", { value: "r", description: "r!" }, { value: "q", description: "ignored" }],
    };
    const p = plan([
      evaluate("prepare", { emits: { members: "list", opts: "object" } }),
      modelRoute("match", [choice("pkg", [], { dynamic: ref("prepare", "opts"), min_confidence: 0.5 })], {
        depends_on: ["prepare"],
        ...mapped(ref("prepare", "members")),
      }),
    ]);
    const { show } = await runPlan(h, p, { judge, fns: { prepare: () => ({ members: Object.keys(options), opts: options }) } });
    const inst = show.tasks.match!.instances!;
    assert.equal(inst.ok!.status, "passed");
    assert.equal(inst.dedupe!.status, "passed");
    assert.match(inst.many!.error!, /dynamic-options: prepare\.opts\["many"\] has 65 options, more than 64 \(Q-31\)/);
    assert.match(inst.one!.error!, /has 1 distinct option\(s\); a choice needs at least 2/);
    assert.match(inst.malformed!.error!, /entry 1 of prepare\.opts\["malformed"\] is malformed/);
    assert.match(inst.ident!.error!, /"not-an-ident", which is not an identifier/);
    assert.match(inst.reserved!.error!, /is "uncertain", which is reserved/);
    assert.deepEqual(judge.calls.map((c) => c.key).sort(), ["dedupe", "ok"]);
    const dedupe = judge.calls.find((c) => c.key === "dedupe")!.questions[0]!;
    assert.deepEqual(dedupe.labels, ["q", "r"]);
    assert.deepEqual(dedupe.descriptions, { q: "", r: "r!" });
    assert.equal(dedupe.min_confidence, 0.5);
    // The state is the instance's input, serialised with sorted keys.
    const call = judge.calls.find((c) => c.key === "ok")!;
    assert.deepEqual(JSON.parse(call.state_text), { inputs: { prepare: { members: Object.keys(options), opts: options } }, key: "ok" });
    assert.match(
      call.state_text,
      /^\{"inputs":\{"prepare":\{"members":\[.*\],"opts":\{"dedupe":\["q","q",\{"description":"r!","value":"r"\}/,
    );
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-21: a model route's state adds files.DEP.NAME from dependencies that passed and declare them", async () => {
  const h = harness();
  try {
    const agentScript = h.dir.file(
      "agent.sh",
      `#!/bin/sh\ncat > /dev/null\nprintf '{"verdict":"%s"}' "$SWITCHYARD_KEY" > RESULT.json\n`,
      0o755,
    );
    const judge = new FakeJudge(() => "yes");
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      agent("quick", "q {{key}}", { depends_on: ["prepare"], ...m, files: ["RESULT.json"] }),
      evaluate("lookalike", { depends_on: ["prepare"], ...m }),
      modelRoute("judge", [noul("supported")], { depends_on: ["quick", "lookalike"], join: "settled", ...m, files: ["RESULT.json"] }),
    ]);
    const { show } = await runPlan(h, p, {
      judge,
      agentRunners: runner("default", [agentScript]),
      fns: {
        prepare: () => ({ members: ["a", "b"] }),
        lookalike: () => ({ files: { "RESULT.json": { forged: true } } }),
      },
    });
    assert.equal(show.status, "passed");
    const state = (key: string) => judge.calls.find((c) => c.key === key)!.state as { files: unknown; statuses: unknown };
    assert.deepEqual(state("a").files, { quick: { "RESULT.json": { verdict: "a" } } });
    assert.deepEqual(state("b").statuses, { quick: "passed", lookalike: "passed" });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
