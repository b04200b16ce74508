// T-1, untrusted outputs: the limits of parseUntrustedJson at their boundaries, worked out by hand —
// nesting 256 deep is read and 257 refused (arrays, objects, both); closing brackets give the depth
// back; brackets, quotes and digits inside strings are text, however the backslashes before a quote
// fall; an integer literal is refused from 2^53 (9007199254740992) on, by magnitude, and a 41-digit
// one is quoted to its first 40 digits.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseUntrustedJson } from "../../src/run/process/untrusted-json.js";

const read = (text: string) => JSON.stringify(parseUntrustedJson(text, "the output"));
const refusal = (text: string): string => {
  try {
    parseUntrustedJson(text, "the output");
  } catch (err) {
    assert.equal((err as { code?: string }).code, "output-invalid");
    return (err as Error).message;
  }
  assert.fail(`${text.slice(0, 60)} was accepted`);
};
const DEEP = "the output nests arrays and objects more than 256 deep, the limit; flatten it";
const nested = (depth: number, open: string, close: string, inner = "1") => open.repeat(depth) + inner + close.repeat(depth);

test("T-1: nesting 256 deep is read, 257 is refused, in arrays and in objects", () => {
  assert.equal(read(nested(256, "[", "]")), nested(256, "[", "]"));
  assert.equal(refusal(nested(257, "[", "]")), DEEP);
  assert.equal(read(nested(256, '{"a":', "}")), nested(256, '{"a":', "}"));
  assert.equal(refusal(nested(257, '{"a":', "}")), DEEP);
  // 128 of each, then one more of either.
  const mixed = (extra: string) => '[{"a":'.repeat(128) + extra + "}]".repeat(128);
  assert.equal(read(mixed("0")), mixed("0"));
  assert.equal(refusal(mixed("[0]")), DEEP);
  assert.equal(refusal(mixed('{"b":0}')), DEEP);
});

test("T-1: closing a bracket gives its depth back: 300 siblings at depth 2 are read", () => {
  const siblings = "[" + "[],".repeat(300) + "{}]";
  assert.equal(read(siblings), siblings);
  const objects = "[" + '{"a":1},'.repeat(300) + "[]]";
  assert.equal(read(objects), objects);
  // 255 deep, closed, then 255 deep again: never more than 256 at once.
  const twice = "[" + nested(255, "[", "]") + "," + nested(255, "[", "]") + "]";
  assert.equal(read(twice), twice);
});

test("T-1: brackets and digits inside strings are text, whatever the backslashes before a quote", () => {
  const brackets = JSON.stringify(["[".repeat(300), "{".repeat(300), "9007199254740993"]);
  assert.equal(read(brackets), brackets);
  // An escaped quote does not end the string; an escaped backslash before a quote does.
  // Each text below has an inexact integer after the string, which must still be seen.
  for (const s of ['"\\""', '"\\\\"', '"a\\\\\\"b"', '"\\\\\\\\"', '"x\\\\"']) {
    assert.equal(JSON.parse(s).length > 0, true, s);
    assert.match(refusal(`[${s},9007199254740993]`), /holds the integer 9007199254740993,/, s);
    assert.equal(read(`[${s},9007199254740991]`), `[${s},9007199254740991]`);
    // And brackets after the string still count.
    assert.equal(refusal(`[${s},${nested(256, "[", "]")}]`), DEEP, s);
  }
  // A string that is never closed is JSON.parse's to report.
  assert.match(refusal('["abc'), /^the output is not valid JSON: /);
  assert.match(refusal('[1, "[[[['), /^the output is not valid JSON: /);
});

test("T-1: integer literals from 2^53 on are refused by magnitude; fractions and exponents are floats", () => {
  // 15 digits are all below 2^53; 16 digits are looked at; the boundary is 9007199254740991.
  assert.equal(read("[999999999999999,-999999999999999]"), "[999999999999999,-999999999999999]");
  assert.equal(read("[1000000000000000,9007199254740991,-9007199254740991]"), "[1000000000000000,9007199254740991,-9007199254740991]");
  for (const [text, literal] of [
    ["9007199254740992", "9007199254740992"],
    ["-9007199254740992", "-9007199254740992"],
    ["[1,9007199254740993]", "9007199254740993"],
    ['{"a":-9999999999999999}', "-9999999999999999"],
  ] as const) {
    assert.equal(
      refusal(text),
      `the output holds the integer ${literal}, beyond 2^53 (9007199254740991), the largest a number keeps exactly; write it as a string`,
    );
  }
  // Forty digits are quoted whole; forty-one are cut to forty and an ellipsis.
  const forty = "1" + "2".repeat(39);
  assert.match(refusal(`[${forty}]`), new RegExp(`holds the integer ${forty}, beyond`));
  assert.match(refusal(`[${forty}3]`), new RegExp(`holds the integer ${forty}…, beyond`));
  // A fraction or an exponent, with or without a sign, makes a float of any digits.
  assert.equal(read("[9007199254740993.5,-9007199254740993.25]"), "[9007199254740994,-9007199254740994]");
  assert.equal(read("[12345678901234567890e-5,12345678901234567890E+0]"), "[123456789012345.67,12345678901234567000]");
  assert.equal(read("[1e+00000000000000000001,1E-00000000000000000001,2e00000000000000000003]"), "[10,0.1,2000]");
  assert.equal(read("[1.5e+9007199254740993,0]"), "[null,0]");
  // An exponent without a sign: its digits are the exponent's, not an integer of their own.
  assert.equal(read("[0e9007199254740993,1E9007199254740993]"), "[0,null]");
});

test("T-1: text that is not JSON is output-invalid, naming what was read", () => {
  assert.match(refusal("{a:1}"), /^the output is not valid JSON: /);
  assert.match(refusal(""), /^the output is not valid JSON: /);
  assert.throws(() => parseUntrustedJson("[", "$SWITCHYARD_OUTPUT"), { message: /^\$SWITCHYARD_OUTPUT is not valid JSON: / });
});

test("T-1: an exponent without digits ends its number where its digits would start: what follows is still read", () => {
  // "[1e]" 257 times never nests deeper than 1: each "]" right after the bare "e" closes its "[".
  // Read as if the exponent always had a sign, the "]" would be skipped and the depth reach 257.
  assert.match(refusal("[1e]".repeat(257)), /^the output is not valid JSON: /);
  // The same with a sign: the sign is part of the exponent, the "]" after it is not.
  assert.match(refusal("[1e+]".repeat(257)), /^the output is not valid JSON: /);
});
