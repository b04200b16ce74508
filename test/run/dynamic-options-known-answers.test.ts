// Q-30 … Q-32: a dynamic option list at its limits — 64 options and 65, labels of 64 characters
// and 65, 2 distinct options and 1 — and each malformed entry named by its position.

import { test } from "node:test";
import assert from "node:assert/strict";
import { OptionsError, resolveOptions } from "../../src/run/kinds/dynamic-options.js";

const WHERE = "prepare.options[k1]";

function fails(list: unknown, message: string): void {
  assert.throws(
    () => resolveOptions(list, WHERE),
    (err: unknown) => {
      assert.ok(err instanceof OptionsError);
      assert.equal(err.code, "dynamic-options");
      assert.equal(err.message, message);
      return true;
    },
  );
}
const labels = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`);

test("Q-31: 64 options are read; 65 fail before any entry is read", () => {
  assert.equal(resolveOptions(labels(64), WHERE).length, 64);
  fails([...labels(64), 7], `${WHERE} has 65 options, more than 64 (Q-31)`);
  fails("a,b", `${WHERE} is not a list of options (Q-31)`);
  fails({ value: "a" }, `${WHERE} is not a list of options (Q-31)`);
});

test("Q-31: an entry is a label or {value, description?}; descriptions default to empty", () => {
  assert.deepEqual(
    resolveOptions(["a", { value: "b" }, { value: "c", description: "the third" }, { value: "d", description: undefined }], WHERE),
    [
      { value: "a", description: "" },
      { value: "b", description: "" },
      { value: "c", description: "the third" },
      { value: "d", description: "" },
    ],
  );
  const malformed = (i: number) =>
    `entry ${i} of ${WHERE} is malformed; an entry is a label string or {"value": label, "description": text} (Q-31)`;
  fails(["a", 3], malformed(1));
  fails(["a", null], malformed(1));
  fails(["a", ["b"]], malformed(1));
  fails(["a", { value: 3 }], malformed(1));
  fails(["a", { label: "b" }], malformed(1));
  fails(["a", { value: "b", description: 3 }], malformed(1));
  fails(["a", { value: "b", description: null }], malformed(1));
});

test("Q-31, Q-4: labels are identifiers of at most 64 characters; uncertain is reserved", () => {
  const l64 = "L" + "x".repeat(63);
  assert.deepEqual(
    resolveOptions([l64, "_a", "Z9_"], WHERE).map((o) => o.value),
    [l64, "_a", "Z9_"],
  );
  const notIdent = (label: string, suggested: string) =>
    `entry 1 of ${WHERE} has the label ${JSON.stringify(label)}, which is not an identifier (Q-31, Q-4); ` +
    `give the entry as {"value": ${JSON.stringify(suggested)}, "description": ${JSON.stringify(label)}}: the value is the label the model answers with (letters, digits and _, at most 64), the description says what it means`;
  // Each bad label and the label suggested for it, worked out by hand.
  const cases: Array<[string, string]> = [
    ["L" + "x".repeat(64), "L" + "x".repeat(63)],
    ["9a", "_9a"],
    ["a-b", "a_b"],
    ["team-web", "team_web"],
    ["", "label"],
    ["a b", "a_b"],
    [" a", "a"],
    ["a\n", "a"],
    ["é", "label"],
    ["-x--y-", "x_y"],
  ];
  for (const [bad, suggested] of cases) fails(["ok", bad], notIdent(bad, suggested));
  fails(["ok", "uncertain"], `entry 1 of ${WHERE} is "uncertain", which is reserved (Q-31)`);
  fails(["ok", { value: "uncertain" }], `entry 1 of ${WHERE} is "uncertain", which is reserved (Q-31)`);
});

test("Q-31: duplicates collapse to the first entry; a choice needs 2 distinct options", () => {
  assert.deepEqual(resolveOptions([{ value: "a", description: "first" }, "b", { value: "a", description: "second" }], WHERE), [
    { value: "a", description: "first" },
    { value: "b", description: "" },
  ]);
  assert.equal(resolveOptions(["a", "b"], WHERE).length, 2);
  fails(["a", "a"], `${WHERE} has 1 distinct option(s); a choice needs at least 2 (Q-31)`);
  fails([], `${WHERE} has 0 distinct option(s); a choice needs at least 2 (Q-31)`);
});
