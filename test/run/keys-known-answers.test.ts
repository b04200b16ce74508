// M-1: element keys at their limits — max_fanout exactly and one past it, keys of 1 and 256
// characters and one past each, the edges of the control-character ranges, integers at 2^53 — and
// the folder name of a key (hashes computed with Python's hashlib).

import { test } from "node:test";
import assert from "node:assert/strict";
import { elementKeys, keyDirName, KeyError } from "../../src/run/engine/keys.js";

function fails(list: unknown, max: number, code: string, message: string): void {
  assert.throws(
    () => elementKeys(list, "prepare.members", max),
    (err: unknown) => {
      assert.ok(err instanceof KeyError);
      assert.equal(err.code, code);
      assert.equal(err.message, message);
      return true;
    },
  );
}

test("M-1: a list of exactly max_fanout elements is read; one more fails before any element is read", () => {
  assert.deepEqual(elementKeys(["a", "b", "c"], "prepare.members", 3), ["a", "b", "c"]);
  fails(
    ["a", "b", "c", null],
    3,
    "over-max-fanout",
    "prepare.members has 4 elements, more than max_fanout = 3 (M-1); raise max_fanout (at most 10000) or shorten the list",
  );
  fails(
    new Array(10000).fill(null),
    9999,
    "over-max-fanout",
    "prepare.members has 10000 elements, more than max_fanout = 9999 (M-1); raise max_fanout (at most 10000) or shorten the list",
  );
  fails(
    new Array(10001).fill(null),
    10000,
    "over-max-fanout",
    "prepare.members has 10001 elements, more than max_fanout = 10000 (M-1); max_fanout is already at its cap of 10000: shorten the list, or split it across tasks",
  );
  assert.deepEqual(elementKeys([], "prepare.members", 0), []);
});

test("M-1: a value that is not a list names what it is", () => {
  fails(null, 5, "over-value-not-list", "prepare.members is not a list (got null) (M-1)");
  fails({ a: 1 }, 5, "over-value-not-list", "prepare.members is not a list (got object) (M-1)");
  fails("ab", 5, "over-value-not-list", "prepare.members is not a list (got string) (M-1)");
});

test("M-1: strings are their own keys, safe integers their decimal text, up to 2^53 − 1", () => {
  assert.deepEqual(elementKeys(["x", 0, -7, 42, 2 ** 53 - 1, -(2 ** 53 - 1)], "l", 10), [
    "x",
    "0",
    "-7",
    "42",
    "9007199254740991",
    "-9007199254740991",
  ]);
  const head = "element 1 of prepare.members is ";
  const tail = "; elements must be strings or integers (M-1)";
  fails(
    ["a", 2 ** 53],
    5,
    "bad-element",
    `${head}the integer 9007199254740992, beyond 2^53, which a key cannot hold exactly (write it as a string)${tail}`,
  );
  fails(["a", 1.5], 5, "bad-element", `${head}the non-integer number 1.5${tail}`);
  fails(["a", null], 5, "bad-element", `${head}null${tail}`);
  fails(["a", ["b"]], 5, "bad-element", `${head}a list${tail}`);
  fails(["a", { b: 1 }], 5, "bad-element", `${head}an object${tail}`);
  fails(["a", true], 5, "bad-element", `${head}boolean${tail}`);
  fails(["a", undefined], 5, "bad-element", `${head}undefined${tail}`);
  fails(["a", Number.NaN], 5, "bad-element", `${head}the non-integer number NaN${tail}`);
});

test("M-1: keys of 1 and 256 characters are allowed; 0 and 257 are not", () => {
  const k256 = "k".repeat(256);
  assert.deepEqual(elementKeys(["a", k256], "l", 5), ["a", k256]);
  fails(["a", ""], 5, "bad-element", "element 1 of prepare.members has a key of 0 characters; keys are 1 to 256 characters (M-1)");
  fails(
    ["a", "k".repeat(257)],
    5,
    "bad-element",
    "element 1 of prepare.members has a key of 257 characters; keys are 1 to 256 characters (M-1)",
  );
});

test("M-1: C0 controls, DEL and C1 controls are refused; space, ~ and U+00A0 are not", () => {
  for (const c of ["\u0000", "\u001f", "\u007f", "\u0080", "\u009f", "\n"]) {
    fails(
      ["a", `x${c}y`],
      5,
      "bad-element",
      `element 1 of prepare.members (${JSON.stringify(`x${c}y`)}) contains a NUL or control character (M-1)`,
    );
  }
  assert.deepEqual(elementKeys(["x y", "x~y", "x\u00a0y", "é"], "l", 5), ["x y", "x~y", "x\u00a0y", "é"]);
});

test("M-1: a repeated key fails, a string and an integer with the same text included", () => {
  fails(["a", "b", "a"], 5, "duplicate-key", 'element 2 of prepare.members repeats the key "a"; keys must be unique (M-1)');
  fails([7, "7"], 5, "duplicate-key", 'element 1 of prepare.members repeats the key "7"; keys must be unique (M-1)');
});

test("keyDirName: plain names up to 81 characters are kept; others become ~safe-prefix-hash", () => {
  assert.equal(keyDirName("CVE-2024_1.x"), "CVE-2024_1.x");
  assert.equal(keyDirName("_a"), "_a");
  assert.equal(keyDirName("a".repeat(81)), "a".repeat(81));
  assert.equal(keyDirName("a".repeat(82)), `~${"a".repeat(40)}-f5854359819cdcf4`);
  assert.equal(keyDirName("a b"), "~a_b-c8687a08aa5d6ed2");
  assert.equal(keyDirName(".hidden"), "~.hidden-1692419006a88aab");
  assert.equal(keyDirName("x/../y"), "~x_.._y-fec01a9e6f563b44");
  assert.equal(keyDirName("é"), "~_-4a99557e4033c353");
  assert.equal(keyDirName("-a"), "~-a-c274891790345c56");
});
