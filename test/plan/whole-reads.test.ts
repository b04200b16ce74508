// M-3: `check` warns (never errors) when a mapped agent's prompt renders an object
// field of the producer it maps over whole, where `keyed` would render the instance's own entry.

import { test } from "node:test";
import assert from "node:assert/strict";
import { formatDiagnostic } from "../../src/lang/diagnostic.js";
import { codes, compileSource, PREP } from "./helpers.js";

const agentWith = (prompt: string, extra = "") =>
  PREP + `fix = agent(name = "fix", depends_on = [prep], over = prep.members, max_fanout = 10${extra}, prompt = "${prompt}")\n`;

test("M-3: {{inputs.prep.facts}} in a mapped agent without keyed is a warning naming the field and the fix; the plan still compiles", () => {
  const r = compileSource(agentWith("Fix {{key}}: {{inputs.prep.facts}}"));
  assert.deepEqual(codes(r), ["unkeyed-object-read"]);
  const d = r.diagnostics[0]!;
  assert.equal(d.severity, "warning");
  assert.equal(d.pos?.line, 2);
  assert.match(d.message, /prompt of fix .*renders prep\.facts whole for every element/);
  assert.match(d.hint ?? "", /keyed = \[prep\.facts\]/);
  assert.match(formatDiagnostic(d), /warning\[unkeyed-object-read\]/);
  assert.ok(r.plan, "a warning does not stop compilation");
});

test("M-3: {{inputs.prep}} renders every unkeyed object field; keyed ones and non-object fields are not named", () => {
  const r = compileSource(agentWith("Fix {{key}}: {{inputs.prep}} {{inputs.prep.n}}", ", keyed = [prep.facts]"));
  assert.deepEqual(codes(r), ["unkeyed-object-read"]);
  assert.match(r.diagnostics[0]!.message, /renders prep\.per whole/);
  assert.doesNotMatch(r.diagnostics[0]!.message, /prep\.facts|prep\.n\b|renders prep\.members/);
});

test("M-3: no warning with keyed, for list or number fields, or for an unmapped agent", () => {
  assert.deepEqual(codes(compileSource(agentWith("Fix {{key}}: {{inputs.prep.facts}}", ", keyed = [prep.facts]"))), []);
  assert.deepEqual(codes(compileSource(agentWith("Fix {{key}}: {{inputs.prep.members}} {{inputs.prep.n}}"))), []);
  assert.deepEqual(
    codes(compileSource(PREP + 'summary = agent(name = "summary", depends_on = [prep], prompt = "Sum {{inputs.prep.facts}}")\n')),
    [],
  );
});
