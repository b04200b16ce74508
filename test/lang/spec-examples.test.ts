// Examples taken from the Starlark spec's own text (bazelbuild/starlark spec.md), with the results
// the spec states, plus the static rules it lists.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ev, err, run } from "./helpers.js";

function table(cases: Array<[string, string]>, prelude = ""): void {
  for (const [expr, want] of cases) assert.equal(ev(expr, prelude), want, expr);
}

test("spec: integers, floats and their mixture", () => {
  table([
    ["100 // 5 * 9 + 32", "212"],
    ["3 // 2", "1"],
    ["111111111 * 111111111", "12345678987654321"],
    ['int("0xffff", 16)', "65535"],
    ["3.0 / 2", "1.5"],
    ["3 / 2.0", "1.5"],
    ["3.0 // 2.0", "1.0"],
    ["(1 << 53) + 1 == (1 << 53) + 1.0", "False"],
    ["((1 << 53) + 1 + 0.0) - ((1 << 53) + 1)", "0.0"],
    ["0x12345678 & 0xFF", str(0x78)],
    ["0x12345678 | 0xFF", str(0x123456ff)],
    ["0b01011101 ^ 0b110101101", str(0b111110000)],
    ["0b01011101 >> 2", str(0b010111)],
    ["-1 >> 100", "-1"],
    ["~1", "-2"],
    ["~-1", "0"],
    ["float('nan') == float('nan')", "True"],
    ["float('nan') > float('inf')", "True"],
    ["-0.0 == 0.0", "True"],
    ["sorted([float('nan'), 1.0, float('-inf')])", "[-inf, 1.0, nan]"],
  ]);
  assert.equal(err("x = 1.0 % 0").code, "runtime-error");
  assert.equal(err("x = 1 >> -1").code, "runtime-error");
});

function str(n: number): string {
  return String(n);
}

test("spec: int(), float(), str(), repr(), range() conversions", () => {
  table([
    ['int("21")', "21"],
    ['int("1234", 16)', "4660"],
    ['int("0x1234", 16)', "4660"],
    ['int("0x1234", 0)', "4660"],
    ['int("0b0", 16)', "176"],
    ['int("0b111", 0)', "7"],
    ['int("+5")', "5"],
    ['float("Inf")', "+inf"],
    ['float("-infinity")', "-inf"],
    ['float("NaN")', "nan"],
    ["float(True)", "1.0"],
    ["float()", "0.0"],
    ["str(0.0)", '"0.0"'],
    ['str([1, "x"])', '"[1, \\"x\\"]"'],
    ['repr([1, "x"])', '"[1, \\"x\\"]"'],
    ["list(range(3, 10, 2))", "[3, 5, 7, 9]"],
    ["list(range(10, 3, -2))", "[10, 8, 6, 4]"],
    ["range(0, 5, 10) == range(0, 3, 7)", "True"],
    ["str(range(1, 10, 2))", '"range(1, 10, 2)"'],
    ["reversed(range(5))", "[4, 3, 2, 1, 0]"],
    ['reversed({"one": 1, "two": 2}.keys())', '["two", "one"]'],
    ["zip()", "[]"],
    ["zip(range(2))", "[(0,), (1,)]"],
    ['dict([(1, 2), ["a", "b"]])', '{1: 2, "a": "b"}'],
    ['min("two", "three", "four")', '"four"'],
    ['max("two", "three", "four", key = len)', '"three"'],
    ['sorted(["two", "three", "four"], key = len, reverse = True)', '["three", "four", "two"]'],
    ['getattr("banana", "split")("a")', '["b", "n", "n", ""]'],
    ['"banana".count', "<built-in method count of string value>"],
    ['hash("abc")', String(96354)],
  ]);
  assert.equal(err('x = int("0x1234")').code, "runtime-error");
  assert.equal(err('x = "a" in range(3)').code, "type-error");
  assert.equal(err("x = {range(3): 1}").code, "type-error");
  assert.equal(err("x = hash(1)").code, "type-error");
});

test("spec: string % interpolation requires one operand per conversion; floats truncate for %d/%x", () => {
  table([
    ['"Hello %s, your score is %d" % ("Bob", 75)', '"Hello Bob, your score is 75"'],
    ['"coordinates=%s" % ((40, -74),)', '"coordinates=(40, -74)"'],
    ['"%x %o" % (255.9, 8.1)', '"ff 10"'],
    ['"%e" % 1.23e12', '"1.230000e+12"'],
    ['"%f" % 1.23e12', '"1230000000000.000000"'],
    ['"%g %g %g" % (1.1, 1e45, 1.2e12)', '"1.1 1e+45 1.2e+12"'],
  ]);
  assert.match(err('x = "coordinates=%s" % (40, -74)').message, /too many arguments/);
  assert.equal(err('x = "%d" % True').code, "runtime-error");
  assert.equal(err('x = "%d %d" % (1,)').code, "runtime-error");
});

test("spec: comprehensions — compound loop variables, own block, scope of later clauses", () => {
  table([
    ['[x*y+z for (x, y), z in [((2, 3), 5), (("o", 2), "!")]]', '[11, "oo!"]'],
    ["[(x, y) for x in range(5) if x%2 == 0 for y in range(5) if y > x]", "[(0, 1), (0, 2), (0, 3), (0, 4), (2, 3), (2, 4)]"],
    ["[1//0 for x in [] for y in z for z in ()]", "[]"],
  ]);
  assert.equal(err("x = [1//0 for x in [1] for y in z for z in ()]").code, "unbound-variable");
  assert.deepEqual(run("x = 1\n_ = [x for x in [2]]\nprint(x)").out, ["1"]);
});

test("spec: for loops assign like assignments (index targets too); the def-time closure example", () => {
  const src = [
    "def list_to_dict(items):",
    "    m = {}",
    "    for k, m[k] in items:",
    "        pass",
    "    return m",
    "def f(x):",
    "    res = []",
    "    def get_x():",
    "        res.append(x)",
    "    get_x()",
    "    x = 2",
    "    get_x()",
    "    return res",
    "def hello():",
    "    for x in (1, 2):",
    "        if x == 2:",
    "            print(y)",
    "        if x == 1:",
    "            y = 'hello'",
    "y = 'goodbye'",
    "print(list_to_dict([('a', 1), ('b', 2)]), f(1))",
    "hello()",
    "[] = ()",
    "[(a, b), (c, d)] = ('ab'.elems(), 'cd'.elems())",
    "print(a + b + c + d)",
  ].join("\n");
  assert.deepEqual(run(src).out, ['{"a": 1, "b": 2} [1, 2]', "hello", "abcd"]);
});

test("spec: function calls — defaults, *args/**kwargs spreading, keyword-only parameters", () => {
  const prelude = "def f(a, b, c = 5):\n    return a * b + c\ndef g(a, *args, b = 2, c):\n    return (a, b, c, args)";
  table(
    [
      ["f(*[2, 3])", "11"],
      ["f(*[2, 3, 7])", "13"],
      ["f(**dict(b = 3, a = 2))", "11"],
      ["f(**dict(c = 7, a = 2, b = 3))", "13"],
      ["g(1, 4, c = 3)", "(1, 2, 3, (4,))"],
      ["g(1, c = 3, *[4, 5])", "(1, 2, 3, (4, 5))"],
    ],
    prelude,
  );
  assert.equal(err(prelude + "\nf(*[2])").code, "missing-argument");
  assert.equal(err(prelude + "\nf(**dict(a = 2))").code, "missing-argument");
  assert.equal(err(prelude + "\nf(**dict(d = 4))").code, "unknown-argument");
  assert.equal(err(prelude + "\ng(1, 3)").code, "missing-argument");
  assert.equal(err(prelude + "\nf(1, b = 1, **dict(b = 2))").code, "duplicate-argument");
  const e = err(prelude + "\ng(1, *[4, 5], c = 3)");
  assert.equal(e.code, "syntax-error");
  assert.match(e.message, /keyword argument c may not follow \*args/);
  assert.equal(err("def h(a, *, b = 2, c):\n    pass\nh(1, 3)").code, "too-many-arguments");
});

test("spec: a default value is shared between calls until the function is frozen", () => {
  const lib = run("def f(x, list = []):\n    list.append(x)\n    return list\nr1 = f(1)\nr2 = f(2)");
  assert.ok(lib.ok);
  assert.equal(ev("r2", "r2 = [1, 2]"), "[1, 2]");
  assert.equal(String((lib.globals.get("r2") as { elems: unknown[] }).elems.length), "2");
  const r = run("load('a.star', 'f')\nf(3)", { load: () => ({ globals: lib.globals }) });
  assert.equal(r.diagnostics[0]!.code, "frozen-value");
  assert.match(r.diagnostics[0]!.message, /cannot append to frozen list/);
});

test("spec: dict union, |= updates in place, update(None), dict equality ignores order", () => {
  table(
    [
      ['{"a": 1, "b": 2} | {"b": 3, "c": 4}', '{"a": 1, "b": 3, "c": 4}'],
      ["[d, alias]", '[{"a": 1, "b": 2}, {"a": 1, "b": 2}]'],
      ['{"a": 1, "b": 2} == {"b": 2, "a": 1}', "True"],
    ],
    'd = {"a": 1}\nalias = d\nd |= {"b": 2}\nd.update(None)',
  );
  assert.equal(err("x = {} < {}").code, "type-error");
  assert.equal(err("d = {1: 1}\nfor k in d:\n    d |= {2: 2}").code, "runtime-error");
});

test("spec: static rules — trailing comma in a bare tuple, tabs in indentation, load rebinding, non-associative comparison", () => {
  assert.equal(err("for k, v, in {}.items():\n    pass").at, "1:9");
  assert.equal(err("x = 1, 2,").code, "syntax-error");
  table([
    ["(1, 2,)", "(1, 2)"],
    ["[1, 2, 3, ]", "[1, 2, 3]"],
    ["{1: 2, 3: 4, }", "{1: 2, 3: 4}"],
    ["sorted([3, 1, 4, 1,],)", "[1, 1, 3, 4]"],
  ]);
  assert.equal(err("def f():\n\treturn 1").code, "lex-error");
  assert.equal(err("load('m.star', 'x')\nx = 1").code, "load-error");
  assert.equal(err("x = 0 <= 1 < 2").code, "syntax-error");
  assert.equal(err("x = [2*x for x in 1, 2, 3]").code, "syntax-error");
  assert.equal(err("x = [2*x for x in lambda: 0]").code, "syntax-error");
});

test("spec: print formats str() of arguments, keyword arguments as name=value, with sep", () => {
  assert.deepEqual(run('print(1, "hi", x = 3)\nprint("hello", "world", sep = ", ")').out, ["1 hi x=3", "hello, world"]);
});
