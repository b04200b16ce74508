// T-2 with T-10/Q-20 (issue 18): a route's question placeholder renders the label; the route's
// own placeholder renders the whole decision record.
import { test } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt } from "../../src/run/template.js";
import type { TaskPlan } from "../../src/plan/index.js";
import { agent, choice, command, evaluate, harness, mapped, outputRoute, plan, ref, runner, runPlan, writeJson } from "./helpers.js";

const record = { depth: { label: "deep", probabilities: { quick: 0.1, deep: 0.9 }, confidence: 0.9 } };

test("T-2 (issue 18): {{inputs.gate.depth}} renders the answered label, {{inputs.gate}} the whole record", () => {
  const inputs = { gate: record, scan: { depth: { label: "kept as JSON", probabilities: {} } } };
  const routes = new Set(["gate"]);
  assert.equal(renderPrompt("Go {{inputs.gate.depth}}", { inputs }, routes), "Go deep");
  assert.equal(renderPrompt("{{inputs.gate}}", { inputs }, routes), JSON.stringify(record));
  // Only a route's questions are labels: another task's object field stays JSON.
  assert.equal(renderPrompt("{{inputs.scan.depth}}", { inputs }, routes), JSON.stringify(inputs.scan.depth));
});

test("T-2, Q-20 (issue 18): in a run, a mapped agent's {{inputs.gate.depth}} is its element's label, also inside a revise body", async () => {
  const h = harness();
  try {
    // The agent answers with the prompt it was given, so the test reads what was rendered.
    const echo = h.dir.file(
      "echo.sh",
      `#!/bin/sh\nnode -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").writeFileSync(process.env.SWITCHYARD_OUTPUT,JSON.stringify({text:s})))'\n`,
      0o755,
    );
    const prep = command("prep", writeJson({ members: ["a", "b"], known: { a: { depth: "deep" }, b: { depth: "quick" } } }), {
      emits: { members: "list", known: "object" },
    });
    const gate = outputRoute("gate", ref("prep", "known"), [choice("depth", ["quick", "deep"])], {
      depends_on: ["prep"],
      ...mapped(ref("prep", "members")),
    });
    const work = agent("work", "label={{inputs.gate.depth}}", {
      depends_on: ["gate"],
      ...mapped(ref("prep", "members")),
      emits: { text: "string" },
    });
    const body = agent("draft", "again {{inputs.gate.depth}}", { emits: { text: "string" } });
    const reviewer = evaluate("accept", { emits: { verdict: "string" } });
    const loop: TaskPlan = {
      ...command("loop", "unused"),
      kind: "revise",
      command: undefined,
      depends_on: ["gate"],
      ...mapped(ref("prep", "members")),
      revise: { body, reviewer, max_rounds: 1 },
      emits: { text: "string", rounds: "number" },
    };
    const { outcome, show } = await runPlan(h, plan([prep, gate, work, loop]), {
      agentRunners: runner("default", [echo]),
      fns: { accept: () => ({ verdict: "accept" }) },
    });
    assert.equal(outcome.status, "passed");
    const text = (task: string, key: string) => (show.tasks[task]!.instances![key]!.output as { text: string }).text;
    assert.equal(text("work", "a"), "label=deep");
    assert.equal(text("work", "b"), "label=quick");
    assert.equal(text("loop", "a"), "again deep");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
