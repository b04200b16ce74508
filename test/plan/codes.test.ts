// Every code src/plan emits is in its catalog, with a rule id, a summary and an explanation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { PLAN_CODES, planCode } from "../../src/plan/codes.js";
import { LANG_CODE_SET } from "../../src/lang/index.js";

test("every plan code is catalogued once, with rule, summary and explain", () => {
  const seen = new Set<string>();
  for (const e of PLAN_CODES) {
    assert.ok(!seen.has(e.code), `duplicate ${e.code}`);
    seen.add(e.code);
    assert.match(e.code, /^[a-z]+(-[a-z]+)*$/);
    assert.ok(e.rule && /^[A-Z]-\d+a?$/.test(e.rule), `${e.code} has a rule id`);
    assert.ok(e.summary.length > 5 && e.explain.length > 40, `${e.code} is explained`);
  }
});

test("every code emitted by src/plan is in the plan or language catalog", () => {
  const dir = "src/plan";
  const emitted = new Set<string>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "codes.ts")) {
    const text = readFileSync(`${dir}/${f}`, "utf8");
    for (const m of text.matchAll(/(?:report|err|errorAt|StarError)\(\s*"([a-z-]+)"/g)) emitted.add(m[1]!);
  }
  assert.ok(emitted.size > 40, `found ${emitted.size} codes`);
  for (const c of emitted) assert.ok(planCode(c) || LANG_CODE_SET.has(c), `code ${c} is not catalogued`);
});

test("docs/playbooks.md lists every plan code", () => {
  const doc = readFileSync("docs/playbooks.md", "utf8");
  for (const e of PLAN_CODES) assert.ok(doc.includes("`" + e.code + "`"), `${e.code} missing from docs/playbooks.md`);
});
