// Issue 15 item 5: the layering and the absence of import cycles are lint errors, so `npm test`
// (which runs eslint before the suite) fails on them. These tests show the rules bite: each lints
// a real source file with one import added, through the project's own eslint.config.js.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ESLint } from "eslint";

const eslint = new ESLint({ cwd: process.cwd() });

async function problems(filePath: string, extraImport: string): Promise<string[]> {
  const source = `${extraImport}\n${readFileSync(filePath, "utf8")}`;
  const [result] = await eslint.lintText(source, { filePath });
  return result!.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

test("issue 15: a lower layer importing an upper one is a lint error (src/lang → src/plan)", async () => {
  const found = await problems("src/lang/ops.ts", `import { PLAN_CODES } from "../plan/codes.js"; void PLAN_CODES;`);
  assert.equal(found.length, 1, found.join("\n"));
  assert.match(found[0]!, /^import-x\/no-restricted-paths: .*src\/lang is below src\/plan/);
});

test("issue 15: src/run importing src/cli is a lint error, src/run importing src/plan is not", async () => {
  const up = await problems("src/run/store.ts", `import * as cliMain from "../cli/main.js"; void cliMain;`);
  assert.ok(
    up.some((m) => /no-restricted-paths: .*src\/run is below src\/cli/.test(m)),
    up.join("\n"),
  );
  const down = await problems("src/run/store.ts", `import * as planIndex from "../plan/index.js"; void planIndex;`);
  assert.deepEqual(down, []);
});

test("issue 15: an import cycle is a lint error (the old src/lang/eval ↔ src/lang/builtins cycle)", async () => {
  const found = await problems("src/lang/eval.ts", `import { UNIVERSE } from "./builtins.js"; void UNIVERSE;`);
  assert.ok(
    found.some((m) => m.startsWith("import-x/no-cycle:")),
    found.join("\n"),
  );
});

test("issue 15: the tree as committed has no layering or cycle errors", async () => {
  const found = await problems("src/lang/eval.ts", "");
  assert.deepEqual(found, []);
});
