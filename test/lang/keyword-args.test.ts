// L-13, the audit of a class of bugs (keyword arguments): every built-in and every method is called with each
// of its parameters by keyword, in every mix of positional and keyword forms, and with an unknown
// keyword. A keyword form must give exactly what the positional form gives (L-13), and an unknown
// name must be an `unknown-argument` error at the keyword, never a crash or a silently ignored value.

import { test } from "node:test";
import assert from "node:assert/strict";
import { UNIVERSE_NAMES, attrNames, execFile, repr, StarSet, StarList, Dict } from "../../src/lang/index.js";

/** A callee and its parameters, in order, each with a valid argument value (source text). */
interface Entry {
  /** The receiver of a method (source text); absent for a built-in function. */
  recv?: string;
  name: string;
  params: Array<[string, string]>;
}

const E = (recv: string | undefined, name: string, ...params: Array<[string, string]>): Entry => ({ recv, name, params });

const KEYWORD_CALLABLE: Entry[] = [
  // built-in functions (the spec's parameter names)
  E(undefined, "abs", ["x", "-3"]),
  E(undefined, "all", ["x", "[1, 0]"]),
  E(undefined, "any", ["x", "[1, 0]"]),
  E(undefined, "bool", ["x", "[]"]),
  E(undefined, "dir", ["x", "struct(a = 1)"]),
  E(undefined, "enumerate", ["x", '["a", "b"]'], ["start", "5"]),
  E(undefined, "float", ["x", '"1.5"']),
  E(undefined, "getattr", ["x", "struct(a = 1)"], ["name", '"b"'], ["default", "7"]),
  E(undefined, "hasattr", ["x", "struct(a = 1)"], ["name", '"a"']),
  E(undefined, "hash", ["x", '"abc"']),
  E(undefined, "int", ["x", '"ff"'], ["base", "16"]),
  E(undefined, "len", ["x", '"abc"']),
  E(undefined, "list", ["x", "(1, 2)"]),
  E(undefined, "repr", ["x", '"a"']),
  E(undefined, "reversed", ["x", "[1, 2, 3]"]),
  E(undefined, "set", ["x", "[1, 1, 2]"]),
  E(undefined, "str", ["x", "1.0"]),
  E(undefined, "tuple", ["x", "[1]"]),
  E(undefined, "type", ["x", "{}"]),
  // string methods
  E('"hello world"', "count", ["sub", '"o"'], ["start", "1"], ["end", "8"]),
  E('"hello.star"', "endswith", ["suffix", '".star"'], ["start", "0"], ["end", "10"]),
  E('"bonbon"', "find", ["sub", '"on"'], ["start", "2"], ["end", "6"]),
  E('"bonbon"', "rfind", ["sub", '"on"'], ["start", "0"], ["end", "5"]),
  E('"bonbon"', "index", ["sub", '"on"'], ["start", "2"], ["end", "6"]),
  E('"bonbon"', "rindex", ["sub", '"on"'], ["start", "0"], ["end", "5"]),
  E('"-"', "join", ["iterable", '["a", "b"]']),
  E('"..a.."', "strip", ["chars", '"."']),
  E('"..a.."', "lstrip", ["chars", '"."']),
  E('"..a.."', "rstrip", ["chars", '"."']),
  E('"a/b/c"', "partition", ["sep", '"/"']),
  E('"a/b/c"', "rpartition", ["sep", '"/"']),
  E('"prefix-x"', "removeprefix", ["prefix", '"prefix-"']),
  E('"x-suffix"', "removesuffix", ["suffix", '"-suffix"']),
  E('"banana"', "replace", ["old", '"a"'], ["new", '"o"'], ["count", "2"]),
  E('"a,b,c"', "split", ["sep", '","'], ["maxsplit", "1"]),
  E('"a,b,c"', "rsplit", ["sep", '","'], ["maxsplit", "1"]),
  E('"a\\nb"', "splitlines", ["keepends", "True"]),
  E('"filename"', "startswith", ["prefix", '"name"'], ["start", "4"], ["end", "8"]),
  // list methods
  E("[1, 2]", "append", ["x", "3"]),
  E("[1, 2]", "extend", ["iterable", "(3, 4)"]),
  E('["b", "a", "n", "a"]', "index", ["x", '"a"'], ["start", "2"], ["end", "4"]),
  E("[1, 2]", "insert", ["index", "0"], ["x", "9"]),
  E("[1, 2, 3]", "pop", ["index", "0"]),
  E("[1, 2, 1]", "remove", ["x", "1"]),
  // dict methods
  E('{"a": 1}', "get", ["key", '"b"'], ["default", "5"]),
  E('{"a": 1}', "pop", ["key", '"b"'], ["default", "5"]),
  E('{"a": 1}', "setdefault", ["key", '"b"'], ["default", "5"]),
  // set methods with one named operand
  E("set([1, 2])", "add", ["x", "3"]),
  E("set([1, 2])", "discard", ["x", "1"]),
  E("set([1, 2])", "remove", ["x", "1"]),
  E("set([1, 2])", "isdisjoint", ["x", "[3]"]),
  E("set([1, 2])", "issubset", ["x", "[1, 2, 3]"]),
  E("set([1, 2])", "issuperset", ["x", "[1]"]),
  E("set([1, 2])", "symmetric_difference", ["x", "[2, 3]"]),
  E("set([1, 2])", "symmetric_difference_update", ["x", "[2, 3]"]),
];

/** Callees with no parameters at all: any argument is an error. */
const NO_ARGUMENTS: Entry[] = [
  ...["capitalize", "elems", "isalnum", "isalpha", "isdigit", "islower", "isspace", "istitle", "isupper", "lower", "title", "upper"].map(
    (m) => E('"Ab"', m),
  ),
  E("[1]", "clear"),
  ...["clear", "items", "keys", "popitem", "values"].map((m) => E('{"a": 1}', m)),
  E("set([1])", "clear"),
  E("set([1])", "pop"),
];

/** Callees whose arguments are positional only, or whose keywords are data (entries, format fields, fields). */
const SPECIAL: Record<string, string> = {
  range: "positional only: range(start, stop, step)",
  zip: "positional only: zip(*iterables)",
  min: "named parameter key only",
  max: "named parameter key only",
  sorted: "x positional, then key and reverse by name",
  print: "sep by name; other keywords print as name=value",
  fail: "sep by name; other keywords print as name=value",
  dict: "keywords are entries",
  struct: "keywords are fields",
  "string.format": "keywords are format fields",
  "dict.update": "keywords are entries",
  "set.difference": "*others, positional only",
  "set.difference_update": "*others, positional only",
  "set.intersection": "*others, positional only",
  "set.intersection_update": "*others, positional only",
  "set.union": "*others, positional only",
  "set.update": "*others, positional only",
};

function evaluate(src: string): { ok: true; value: string } | { ok: false; code: string; at: string; message: string } {
  const r = execFile("kw.star", src, { print: () => {} });
  if (r.ok) return { ok: true, value: repr(r.globals.get("out")!) };
  const d = r.diagnostics[0];
  return { ok: false, code: d.code, at: `${d.pos?.line}:${d.pos?.col}`, message: d.message };
}

/** `out = (result, receiver after the call)`, so mutating methods are compared on their effect too. */
function program(e: Entry, args: string[]): string {
  if (e.recv === undefined) return `out = (${e.name}(${args.join(", ")}), None)\n`;
  return `r = ${e.recv}\nout = (r.${e.name}(${args.join(", ")}), r)\n`;
}

function label(e: Entry): string {
  return e.recv === undefined ? e.name : `${e.recv}.${e.name}`;
}

test("L-13: every parameter of every built-in and method may be passed by name, with the positional result", () => {
  let calls = 0;
  for (const e of KEYWORD_CALLABLE) {
    const positional = evaluate(
      program(
        e,
        e.params.map(([, v]) => v),
      ),
    );
    assert.ok(positional.ok, `${label(e)} positional: ${JSON.stringify(positional)}`);
    // the first k arguments positional, the rest by name (k = 0 passes everything by name)
    for (let k = 0; k < e.params.length; k++) {
      const args = e.params.map(([n, v], i) => (i < k ? v : `${n} = ${v}`));
      const got = evaluate(program(e, args));
      calls++;
      assert.deepEqual(got, positional, `${label(e)}(${args.join(", ")})`);
    }
    // the same keywords in reverse order
    if (e.params.length > 1) {
      const args = [...e.params].reverse().map(([n, v]) => `${n} = ${v}`);
      assert.deepEqual(evaluate(program(e, args)), positional, `${label(e)}(${args.join(", ")})`);
    }
  }
  assert.ok(calls > 80, `only ${calls} keyword calls made`);
});

test("L-13: an unknown keyword is an unknown-argument error at the keyword, naming it and the accepted ones", () => {
  for (const e of [...KEYWORD_CALLABLE, ...NO_ARGUMENTS]) {
    const args = [...e.params.map(([, v]) => v), "zzz = 1"];
    const src = program(e, args);
    const got = evaluate(src);
    assert.equal(got.ok, false, `${label(e)} accepted zzz`);
    if (got.ok) continue;
    assert.equal(got.code, "unknown-argument", `${label(e)}: ${got.message}`);
    assert.match(got.message, /'zzz'/, label(e));
    for (const [n] of e.params) assert.match(got.message, new RegExp(`\\b${n}\\b`), `${label(e)} does not list ${n}`);
    const line = src.split("\n").findIndex((l) => l.startsWith("out ="));
    assert.equal(got.at, `${line + 1}:${src.split("\n")[line].indexOf("zzz") + 1}`, label(e));
  }
});

test("L-13: a parameter passed twice, or a required one left out, is a named error", () => {
  for (const e of KEYWORD_CALLABLE) {
    const [first, firstValue] = e.params[0];
    const dup = evaluate(program(e, [firstValue, `${first} = ${firstValue}`]));
    assert.equal(dup.ok ? "ok" : dup.code, "duplicate-argument", label(e));
  }
  for (const [src, name] of [
    ['"a".replace(new = "b")', "old"],
    ["[].insert(x = 1)", "index"],
    ["{}.get(default = 1)", "key"],
    ['getattr(name = "a")', "x"],
  ]) {
    const got = evaluate(`out = ${src}\n`);
    assert.equal(got.ok ? "ok" : got.code, "missing-argument", src);
    if (!got.ok) assert.match(got.message, new RegExp(`'${name}'`), src);
  }
});

test("L-13: methods without parameters refuse arguments by name and by position", () => {
  for (const e of NO_ARGUMENTS) {
    const pos = evaluate(program(e, ["1"]));
    assert.equal(pos.ok ? "ok" : pos.code, "too-many-arguments", label(e));
    if (!pos.ok) assert.match(pos.message, /takes no arguments/, label(e));
  }
});

test("L-13: positional-only built-ins say so for a keyword; keyword data stays data", () => {
  for (const src of ["range(stop = 3)", "zip(x = [1])", "set([1]).union(x = [2])", "set([1]).update(others = [2])"]) {
    const got = evaluate(`out = ${src}\n`);
    assert.equal(got.ok ? "ok" : got.code, "unknown-argument", src);
    if (!got.ok) assert.match(got.message, /positional only/, src);
  }
  const cases: Array<[string, string]> = [
    ["dict(a = 1, b = 2)", '{"a": 1, "b": 2}'],
    ['"{x}-{0}".format(1, x = 2)', '"2-1"'],
    ["struct(b = 1, a = 2)", "struct(a = 2, b = 1)"],
    ["sorted([1, 3, 2], reverse = True, key = lambda v: -v)", "[1, 2, 3]"],
    ["max([1, -3], key = abs)", "-3"],
    ["min(1, -3, key = abs)", "1"],
  ];
  for (const [src, want] of cases) assert.deepEqual(evaluate(`out = ${src}\n`), { ok: true, value: want }, src);
  assert.deepEqual(evaluate("d = {}\nd.update([(1, 2)], a = 3)\nout = d\n"), { ok: true, value: '{1: 2, "a": 3}' });
  for (const src of ["sorted([1], None)", "min([1], k = abs)", "max(1, 2, reverse = True)", "print(sep = 1)"]) {
    const got = evaluate(`out = ${src}\n`);
    assert.equal(got.ok, false, src);
  }
});

test("the tables above cover every built-in and every method of every built-in type", () => {
  const covered = new Set(
    [...KEYWORD_CALLABLE, ...NO_ARGUMENTS].map((e) => (e.recv === undefined ? e.name : `${typeOf(e.recv)}.${e.name}`)),
  );
  for (const k of Object.keys(SPECIAL)) covered.add(k);
  const missing: string[] = [];
  for (const name of UNIVERSE_NAMES) if (!["None", "True", "False"].includes(name) && !covered.has(name)) missing.push(name);
  for (const [type, sample] of [
    ["string", ""],
    ["list", new StarList()],
    ["dict", new Dict()],
    ["set", new StarSet()],
  ] as const) {
    for (const m of attrNames(sample)) if (!covered.has(`${type}.${m}`)) missing.push(`${type}.${m}`);
  }
  assert.deepEqual(missing, []);
});

function typeOf(recv: string): string {
  if (recv.startsWith('"')) return "string";
  if (recv.startsWith("[")) return "list";
  if (recv.startsWith("{")) return "dict";
  return "set";
}
