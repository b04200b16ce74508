// `set` as the Starlark specification defines it — the built-in, its methods and
// operators, hashing and freezing rules, and iteration in first-insertion order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { err, ev, run } from "./helpers.js";

test("set: set() builds from any iterable, keeps first-insertion order, drops duplicates", () => {
  assert.equal(ev("set()"), "set()");
  assert.equal(ev("set([3, 1, 1, 2])"), "set([3, 1, 2])");
  assert.equal(ev('set({"k1": "v1", "k2": "v2"})'), 'set(["k1", "k2"])');
  assert.equal(ev("set([1, 1.0, True])"), "set([1, True])");
  assert.equal(ev("[type(set()), len(set(range(4))), bool(set()), bool(set([0]))]"), '["set", 4, False, True]');
  assert.equal(ev("[2 in set([1, 2]), 5 in set([1]), 5 not in set([1])]"), "[True, False, True]");
  assert.equal(ev('sorted(set(["b", "a"])) + list(set([9, 8]))'), '["a", "b", 9, 8]');
  assert.equal(err('set("abc")').code, "type-error");
  assert.equal(err("set([[1]])").code, "type-error");
});

test("set: equality ignores order; sets are not ordered and not hashable", () => {
  assert.equal(ev("[set([1, 2]) == set([2, 1]), set() == set(), set([1, 2]) != [1, 2], set() != []]"), "[True, True, True, True]");
  assert.equal(err("set([1]) < set([2])").code, "type-error");
  assert.equal(err("sorted([set(), set()])").code, "type-error");
  assert.equal(err("d = {set(): 1}").code, "type-error");
  assert.equal(err("s = set([set()])").code, "type-error");
});

test("set: | & - ^ need sets on both sides; results keep left elements first", () => {
  assert.equal(
    ev("[set([1, 2]) | set([3, 2]), set([1, 2]) & set([2, 3]), set([1, 2]) - set([2, 3]), set([1, 2]) ^ set([2, 3])]"),
    "[set([1, 2, 3]), set([2]), set([1]), set([1, 3])]",
  );
  assert.equal(ev("set([1, 2]) & set([3, 4])"), "set()");
  assert.equal(err("set([1]) | [2]").code, "type-error");
  const r = run(
    "s = set([1, 2])\nt = s\ns |= set([2, 3, 4])\nprint(s)\ns &= set([0, 1, 2, 3])\nprint(s)\ns -= set([0, 1])\nprint(s)\ns ^= set([3, 4])\nprint(s, t)",
  );
  assert.deepEqual(r.out, ["set([1, 2, 3, 4])", "set([1, 2, 3])", "set([2, 3])", "set([2, 4]) set([2, 4])"]);
});

test("set: every method, with iterables as the other operands", () => {
  const cases: Array<[string, string]> = [
    ["set([1, 2, 3]).difference([2])", "set([1, 3])"],
    ["set([1, 2, 3]).difference([0, 1], [3, 4])", "set([2])"],
    ["set([1, 2, 3]).difference()", "set([1, 2, 3])"],
    ["set([1, 2]).intersection([2, 3])", "set([2])"],
    ["set([1, 2, 3]).intersection([0, 1], [1, 2])", "set([1])"],
    ["set([1, 2]).union([2, 3], {3: 'a', 4: 'b'})", "set([1, 2, 3, 4])"],
    ["set([1, 2]).symmetric_difference([2, 3])", "set([1, 3])"],
    ["[set([1]).isdisjoint([2]), set([1]).isdisjoint(set([1]))]", "[True, False]"],
    ["[set([1, 2]).issubset([1, 2, 3]), set([1, 4]).issubset([1])]", "[True, False]"],
    ["[set([1, 2]).issuperset([1]), set([1]).issuperset([1, 2])]", "[True, False]"],
  ];
  for (const [expr, want] of cases) assert.equal(ev(expr), want, expr);
  const r = run(
    "s = set()\ns.add(1)\ns.add(1)\ns.update([2, 3], [3, 4])\nprint(s)\ns.discard(9)\ns.remove(4)\nprint(s)\n" +
      "s.difference_update([0, 1])\ns.intersection_update([2, 3, 5])\ns.symmetric_difference_update([3, 7])\nprint(s)\n" +
      "u = set([3, 1, 2])\nprint(u.pop(), u.pop(), u)\nu.clear()\nprint(u)",
  );
  assert.deepEqual(r.out, ["set([1, 2, 3, 4])", "set([1, 2, 3])", "set([2, 7])", "3 1 set([2])", "set()"]);
  assert.equal(err("set().pop()").code, "key-error");
  assert.equal(err("set([1]).remove(2)").code, "key-error");
  assert.equal(err("set().discard([1])").code, "type-error");
  assert.equal(err("set().union(x = [1])").code, "unknown-argument");
});

test("set: a frozen set, or one being iterated, cannot change", () => {
  const e = err("s = set([1])\nfor x in s:\n    s.add(2)");
  assert.equal(e.code, "runtime-error");
  assert.match(e.message, /during iteration/);
  const loaded = run('load("lib.star", "s")\ns.add(2)', {
    load: () => {
      const lib = run("s = set([1])");
      return { globals: lib.globals };
    },
  });
  assert.equal(loaded.ok, false);
  assert.equal(loaded.diagnostics[0].code, "frozen-value");
});
