// Functions a reader can hold (docs/architecture.md, "Checks that keep it so"): a function in
// src/ of more than 80 lines of code is a lint error; blank lines and comments do not count, and
// a disable comment naming its reason lets a table or a parser's dispatch stay whole.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ESLint } from "eslint";

const eslint = new ESLint({ cwd: process.cwd() });

/** A function whose body has `statements` lines of code, each followed by a blank line and a comment line. */
function fn(statements: number, before = ""): string {
  const body = Array.from({ length: statements }, (_, i) => `  x += ${i};\n\n  // step ${i}`).join("\n");
  return `${before}export function f(): number {\n  let x = 0;\n${body}\n  return x;\n}\n`;
}

async function lengthErrors(source: string, filePath = "src/lang/function-length-probe.ts"): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return result!.messages.filter((m) => m.ruleId === "max-lines-per-function").map((m) => m.message);
}

test("a function of exactly 80 lines of code passes, blank lines and comments not counted; 81 lines is an error", async () => {
  // Signature, `let`, `return` and `}` are 4 lines: 76 statements make 80 lines, 77 make 81.
  assert.deepEqual(await lengthErrors(fn(76)), []);
  const over = await lengthErrors(fn(77));
  assert.equal(over.length, 1);
  assert.match(over[0]!, /has too many lines \(81\)\. Maximum allowed is 80/);
});

test("a disable comment naming its reason lets a function stay whole; tests are not held to the limit", async () => {
  const why = "// eslint-disable-next-line max-lines-per-function -- a parser's dispatch, clearer whole\n";
  assert.deepEqual(await lengthErrors(fn(77, why)), []);
  assert.deepEqual(await lengthErrors(fn(77), "test/lang/function-length-probe.test.ts"), []);
});
