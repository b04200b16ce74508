// T-2 with T-10/Q-20: a route's question placeholder renders the label; the route's
// own placeholder renders the whole decision record.
import { test } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt } from "../../src/run/kinds/template.js";
import type { TaskPlan } from "../../src/plan/index.js";
import { agent, choice, command, evaluate, harness, mapped, outputRoute, plan, ref, runner, runPlan, writeJson } from "./helpers.js";

const record = { depth: { label: "deep", probabilities: { quick: 0.1, deep: 0.9 }, confidence: 0.9 } };

test("T-2: {{inputs.gate.depth}} renders the answered label, {{inputs.gate}} the whole record", () => {
  const inputs = { gate: record, scan: { depth: { label: "kept as JSON", probabilities: {} } } };
  const routes = new Set(["gate"]);
  assert.equal(renderPrompt("Go {{inputs.gate.depth}}", { inputs }, routes), "Go deep");
  assert.equal(renderPrompt("{{inputs.gate}}", { inputs }, routes), JSON.stringify(record));
  // Only a route's questions are labels: another task's object field stays JSON.
  assert.equal(renderPrompt("{{inputs.scan.depth}}", { inputs }, routes), JSON.stringify(inputs.scan.depth));
});

test("T-2, Q-20: in a run, a mapped agent's {{inputs.gate.depth}} is its element's label, also inside a revise body", async () => {
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

test("T-5, T-2: {{round}} is the round (1 first) and {{feedback}} the reviewer's last feedback: text as is, other values as JSON, empty in round 1", () => {
  const t = "round {{round}}: [{{feedback}}]";
  assert.equal(renderPrompt(t, { inputs: {} }), "round 1: []");
  assert.equal(renderPrompt(t, { inputs: {}, round: 2, feedback: "shorter, please" }), "round 2: [shorter, please]");
  assert.equal(renderPrompt(t, { inputs: {}, round: 3, feedback: null }), "round 3: []");
  assert.equal(renderPrompt(t, { inputs: {}, round: 4, feedback: { fix: ["a", 1] } }), 'round 4: [{"fix":["a",1]}]');
});

test("T-5: an agent revise body sees the reviewer's feedback in its prompt, so a loop that needs it converges in round 2", async () => {
  const h = harness();
  try {
    // The agent writes its prompt back, and says PELICAN only when the prompt asks for it: the
    // loop can be accepted only if the reviewer's feedback reached the prompt.
    const agentScript = h.dir.file(
      "scripted.sh",
      `#!/bin/sh\nnode -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").writeFileSync(process.env.SWITCHYARD_OUTPUT,JSON.stringify({text:s.includes("use the word PELICAN")?"PELICAN":"a draft",prompt:s})))'\n`,
      0o755,
    );
    const body = agent("draft", "Write a line (round {{round}}). Feedback: {{feedback}}.", { emits: { text: "string", prompt: "string" } });
    const reviewer = evaluate("check", { emits: { verdict: "string", feedback: "string" } });
    const loop: TaskPlan = {
      ...command("loop", "unused"),
      kind: "revise",
      command: undefined,
      revise: { body, reviewer, max_rounds: 3 },
      emits: { text: "string", prompt: "string", rounds: "number" },
    };
    const { run, outcome, show } = await runPlan(h, plan([loop]), {
      agentRunners: runner("default", [agentScript]),
      fns: {
        check: (input: { inputs: { draft: { text: string } } }) =>
          input.inputs.draft.text === "PELICAN"
            ? { verdict: "accept", feedback: "" }
            : { verdict: "revise", feedback: "use the word PELICAN" },
      },
    });
    assert.equal(outcome.status, "passed", JSON.stringify(show.tasks.loop));
    const out = show.tasks.loop!.output;
    assert.deepEqual(out, { text: "PELICAN", prompt: "Write a line (round 2). Feedback: use the word PELICAN.", rounds: 2 });
    const rounds = [...h.store.events(run)].filter((e) => e.type === "revise_round").map((e) => e.payload as { body: { prompt: string } });
    assert.deepEqual(
      rounds.map((r) => r.body.prompt),
      ["Write a line (round 1). Feedback: .", "Write a line (round 2). Feedback: use the word PELICAN."],
    );
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
