// T-2 with T-10/Q-20 (issue 18): a route's question placeholder renders the label; the route's
// own placeholder renders the whole decision record.
import { test } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt } from "../../src/run/template.js";

const record = { depth: { label: "deep", probabilities: { quick: 0.1, deep: 0.9 }, confidence: 0.9 } };

test("T-2 (issue 18): {{inputs.gate.depth}} renders the answered label, {{inputs.gate}} the whole record", () => {
  const inputs = { gate: record, scan: { depth: { label: "kept as JSON", probabilities: {} } } };
  const routes = new Set(["gate"]);
  assert.equal(renderPrompt("Go {{inputs.gate.depth}}", { inputs }, routes), "Go deep");
  assert.equal(renderPrompt("{{inputs.gate}}", { inputs }, routes), JSON.stringify(record));
  // Only a route's questions are labels: another task's object field stays JSON.
  assert.equal(renderPrompt("{{inputs.scan.depth}}", { inputs }, routes), JSON.stringify(inputs.scan.depth));
});
