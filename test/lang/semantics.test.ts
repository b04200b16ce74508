// Language semantics with expected values written from the Starlark spec (L-10 … L-14).

import { test } from "node:test";
import assert from "node:assert/strict";
import { ev, run, err } from "./helpers.js";

function table(cases: Array<[string, string]>, prelude = ""): void {
  for (const [expr, want] of cases) assert.equal(ev(expr, prelude), want, expr);
}

test("L-10: literals — ints (decimal, hex, octal, binary, big), floats, strings, escapes, raw and triple quotes", () => {
  table([
    ["0x1F", "31"],
    ["0o17", "15"],
    ["0b101", "5"],
    ["123456789012345678901234567890", "123456789012345678901234567890"],
    ["1.5e3", "1500.0"],
    [".5", "0.5"],
    ["1.", "1.0"],
    ["'a\\tb'", '"a\\tb"'],
    ['"\\x41\\u00e9\\101"', '"AéA"'],
    ['r"a\\nb"', '"a\\\\nb"'],
    ["'''x\ny'''", '"x\\ny"'],
    ['"it\'s"', '"it\'s"'],
  ]);
});

test("L-12: integer division and modulo take the sign of the divisor (floored)", () => {
  table([
    ["7 // 2", "3"],
    ["-7 // 2", "-4"],
    ["7 // -2", "-4"],
    ["-7 // -2", "3"],
    ["7 % 3", "1"],
    ["-7 % 3", "2"],
    ["7 % -3", "-2"],
    ["-7 % -3", "-1"],
    ["7.0 // 2", "3.0"],
    ["-7.5 % 2", "0.5"],
    ["5.5 % -2", "-0.5"],
  ]);
});

test("L-12: int is arbitrary precision; / is float division; mixed int/float arithmetic", () => {
  table([
    ["1 << 100", "1267650600228229401496703205376"],
    ["(1 << 100) // 3", "422550200076076467165567735125"],
    ["-(1 << 100) % 7", String(((-(1n << 100n) % 7n) + 7n) % 7n)],
    ["1 / 2", "0.5"],
    ["4 / 2", "2.0"],
    ["1 + 2.5", "3.5"],
    ["3 * 1.5", "4.5"],
    ["2 - 0.5", "1.5"],
    ["10 | 5", "15"],
    ["12 & 10", "8"],
    ["12 ^ 10", "6"],
    ["~5", "-6"],
    ["-8 >> 1", "-4"],
    ["-(3)", "-3"],
    ["+4", "4"],
  ]);
});

test("L-13: float formatting like Starlark (str(1.0) == '1.0')", () => {
  table([
    ["str(1.0)", '"1.0"'],
    ["str(0.1 + 0.2)", '"0.30000000000000004"'],
    ["str(1e6)", '"1e+06"'],
    ["str(123456.0)", '"123456.0"'],
    ["str(1.5e-7)", '"1.5e-07"'],
    ["str(-2.5)", '"-2.5"'],
    ["str(float('inf'))", '"+inf"'],
    ["str(float('-inf'))", '"-inf"'],
    ["str(float('nan'))", '"nan"'],
    ["repr(3.0)", '"3.0"'],
  ]);
});

test("L-12: string % formatting: %s %r %d %i %x %X %o %e %f %g %c %% and %(name)s", () => {
  table([
    ['"%s|%r" % ("a", "a")', '"a|\\"a\\""'],
    ['"%d %i" % (42, -7)', '"42 -7"'],
    ['"%d" % 3.9', '"3"'],
    ['"%x %X %o" % (255, 255, 8)', '"ff FF 10"'],
    ['"%x" % -255', '"-ff"'],
    ['"%e" % 12345.678', '"1.234568e+04"'],
    ['"%f" % 2.5', '"2.500000"'],
    ['"%g %g" % (0.5, 1e20)', '"0.5 1e+20"'],
    ['"%c%c" % (65, "b")', '"Ab"'],
    ['"100%%"  % ()', '"100%"'],
    ['"%s" % [1, 2]', '"[1, 2]"'],
    ['"%s and %s" % ([1], (2,))', '"[1] and (2,)"'],
    ['"%(a)s-%(b)d" % {"a": "x", "b": 2}', '"x-2"'],
    ['"%s" % None', '"None"'],
  ]);
});

test("L-13: str.format with {}, {0}, {name}, !r and {{ }}", () => {
  table([
    ['"{} {}".format(1, "a")', '"1 a"'],
    ['"{1}{0}{1}".format("a", "b")', '"bab"'],
    ['"{name}!".format(name = "world")', '"world!"'],
    ['"{!r}".format("q")', '"\\"q\\""'],
    ['"{{x}} {}".format(3)', '"{x} 3"'],
    ['"{}".format([1, "a"])', '"[1, \\"a\\"]"'],
  ]);
  assert.equal(err('"{} {0}".format(1, 2)').code, "runtime-error");
  assert.equal(err('"{}".format()').code, "index-error");
  assert.equal(err('"{x}".format(y = 1)').code, "key-error");
});

test("L-12: slicing with steps, negative indices and negative steps", () => {
  table([
    ["[0, 1, 2, 3, 4][1:3]", "[1, 2]"],
    ["[0, 1, 2, 3, 4][::-1]", "[4, 3, 2, 1, 0]"],
    ["[0, 1, 2, 3, 4][::2]", "[0, 2, 4]"],
    ["[0, 1, 2, 3, 4][-2:]", "[3, 4]"],
    ["[0, 1, 2, 3, 4][3:0:-1]", "[3, 2, 1]"],
    ["[0, 1, 2, 3, 4][-1:-4:-2]", "[4, 2]"],
    ["[0, 1, 2, 3, 4][10:]", "[]"],
    ["[0, 1, 2, 3, 4][:-10:-1]", "[4, 3, 2, 1, 0]"],
    ['"hello"[1:4]', '"ell"'],
    ['"hello"[::-1]', '"olleh"'],
    ['"hello"[-3:]', '"llo"'],
    ["(1, 2, 3)[1:]", "(2, 3)"],
    ["range(10)[2:8:3]", "range(2, 8, 3)"],
    ["list(range(10)[::-3])", "[9, 6, 3, 0]"],
    ["[1, 2, 3][-1]", "3"],
    ['"abc"[-3]', '"a"'],
  ]);
  assert.equal(err("x = [1][::0]").message, "slice step cannot be zero");
});

test("L-12: comparisons — mixed int/float, lexicographic lists/tuples, unlike types are an error", () => {
  table([
    ["1 == 1.0", "True"],
    ["1 < 1.5", "True"],
    ["(1 << 80) > 1e20", "True"],
    ["[1, 2] < [1, 3]", "True"],
    ["[1, 2] < [1, 2, 0]", "True"],
    ["(2,) > (1, 9)", "True"],
    ['"abc" < "abd"', "True"],
    ["False < True", "True"],
    ["[1] == [1.0]", "True"],
    ["{1: 2} == {1: 2}", "True"],
    ["(1, 2) != (1, 2)", "False"],
    ['1 == "1"', "False"],
    ["None == None", "True"],
  ]);
  const e = err('x = 1 < "a"');
  assert.equal(e.code, "type-error");
  assert.equal(e.at, "1:7");
  assert.equal(err("x = None < None").code, "type-error");
  assert.equal(err("x = [1] < (1,)").code, "type-error");
});

test("L-12: in / not in for strings, lists, tuples, dicts and ranges", () => {
  table([
    ['"ell" in "hello"', "True"],
    ['"" in "x"', "True"],
    ["2 in [1, 2]", "True"],
    ["3 not in (1, 2)", "True"],
    ['"a" in {"a": 1}', "True"],
    ["1 in {1.0: 0}", "True"],
    ["4 in range(0, 10, 2)", "True"],
    ["5 in range(0, 10, 2)", "False"],
    ["-3 in range(0, -10, -3)", "True"],
  ]);
  assert.equal(err('x = 1 in "abc"').code, "type-error");
  assert.equal(err("x = [1] in {}").code, "type-error");
});

test("L-12: conditional expressions, and/or return operands, not", () => {
  table([
    ['"y" if 0 else "n"', '"n"'],
    ["0 or [] or 3", "3"],
    ["1 and 2", "2"],
    ["[] and 1", "[]"],
    ["not []", "True"],
    ["not 0.0", "True"],
  ]);
});

test("L-12: list, tuple, dict, concatenation and repetition", () => {
  table([
    ["[1] + [2]", "[1, 2]"],
    ["(1,) + (2,)", "(1, 2)"],
    ['"ab" * 3', '"ababab"'],
    ["2 * [0]", "[0, 0]"],
    ["[1] * -1", "[]"],
    ["(1,)", "(1,)"],
    ["()", "()"],
    ['{"a": 1} | {"b": 2, "a": 3}', '{"a": 3, "b": 2}'],
  ]);
  assert.equal(err('x = "a" + 1').code, "type-error");
  assert.equal(err("x = {1: 1, 1: 2}").message.includes("duplicate key"), true);
});

test("L-12: list and dict comprehensions with nested for/if", () => {
  table([
    ["[x * x for x in range(6) if x % 2 == 0]", "[0, 4, 16]"],
    ["[(x, y) for x in range(3) for y in range(x)]", "[(1, 0), (2, 0), (2, 1)]"],
    ["[x for x in [1, 2, 3] if x > 1 if x < 3]", "[2]"],
    ["{k: v for k, v in [(1, 2), (3, 4)]}", "{1: 2, 3: 4}"],
    ['{c: i for i, c in enumerate("ab".elems())}', '{"a": 0, "b": 1}'],
    ["[[y for y in range(x)] for x in range(3)]", "[[], [0], [0, 1]]"],
  ]);
  // comprehension variables do not leak into the enclosing scope
  assert.equal(err("y = [z for z in [1]]\nprint(z)").code, "undefined-name");
});

test("L-14: dict iteration order is insertion order; update keeps a key's position", () => {
  table(
    [
      ['list({"b": 1, "a": 2, "c": 3})', '["b", "a", "c"]'],
      ["[k for k in d]", '["z", "y", "x"]'],
      ["d.items()", '[("z", 9), ("y", 2), ("x", 3)]'],
    ],
    'd = {"z": 1, "y": 2}\nd["x"] = 3\nd["z"] = 9',
  );
  table([["d.keys()", '["y", "z"]']], 'd = {"z": 1, "y": 2}\nd.pop("z")\nd["z"] = 1');
});

test("L-13: string methods", () => {
  table([
    ['"a,b,,c".split(",")', '["a", "b", "", "c"]'],
    ['"  a  b ".split()', '["a", "b"]'],
    ['"a b c".split(" ", 1)', '["a", "b c"]'],
    ['"a b c".rsplit(" ", 1)', '["a b", "c"]'],
    ['"  a b  c ".rsplit(None, 1)', '["  a b", "c"]'],
    ['"  a  b c ".split(None, 1)', '["a", "b c "]'],
    ['"a\\nb\\r\\nc\\n".splitlines()', '["a", "b", "c"]'],
    ['"a\\nb".splitlines(True)', '["a\\n", "b"]'],
    ['"  x ".strip()', '"x"'],
    ['"xxaxx".strip("x")', '"a"'],
    ['"  x ".lstrip()', '"x "'],
    ['"  x ".rstrip()', '"  x"'],
    ['"hello".startswith("he")', "True"],
    ['"hello".startswith(("x", "h"))', "True"],
    ['"hello".endswith("lo")', "True"],
    ['"a-b-c".replace("-", "+")', '"a+b+c"'],
    ['"a-b-c".replace("-", "+", 1)', '"a+b-c"'],
    ['"hello".find("l")', "2"],
    ['"hello".rfind("l")', "3"],
    ['"hello".find("z")', "-1"],
    ['"hello".find("l", 3)', "3"],
    ['"hello".index("e")', "1"],
    ['"banana".count("a")', "3"],
    ['"banana".count("an", 2)', "1"],
    ['"Hello World".lower()', '"hello world"'],
    ['"Hello World".upper()', '"HELLO WORLD"'],
    ['"hello world".title()', '"Hello World"'],
    ['"hELLO".capitalize()', '"Hello"'],
    ['"a=b=c".partition("=")', '("a", "=", "b=c")'],
    ['"a=b=c".rpartition("=")', '("a=b", "=", "c")'],
    ['"abc".partition("x")', '("abc", "", "")'],
    ['"prefix_x".removeprefix("prefix_")', '"x"'],
    ['"x.star".removesuffix(".star")', '"x"'],
    ['"abc".elems()', '"abc".elems()'],
    ['type("abc".elems())', '"string.elems"'],
    ['list("abc".elems())', '["a", "b", "c"]'],
    ['"a".join("ctmrn".elems())', '"catamaran"'],
    ['"bonbon".find("on", 2, 5)', "-1"],
    ['"bonbon".rfind("on", None, 5)', "1"],
    ['"banana".rsplit("n", 1)', '["bana", "a"]'],
    ['"one two  three".split(" ")', '["one", "two", "", "three"]'],
    ['"".split(",")', '[""]'],
    ['"   ".split()', "[]"],
    ['"one\\n\\ntwo".splitlines(True)', '["one\\n", "\\n", "two"]'],
    ['"   hello  ".lstrip("h o")', '"ello  "'],
    ['"  hello   ".strip("h o")', '"ell"'],
    ['"hElLo, WoRlD!".title()', '"Hello, World!"'],
    ['"Catch-22".istitle()', "True"],
    ['"HAL-9000".istitle()', "False"],
    ['"HAL-9000".isupper()', "True"],
    ['"123".islower()', "False"],
    ['"hello, world!".count("o", 7, 12)', "1"],
    ['"filename.sky".endswith("name", 0, 8)', "True"],
    ['"filename.star".startswith("name", 4, 7)', "False"],
    ['"bbaa".removeprefix("b")', '"baa"'],
    ['"banana".replace("a", "o", 2)', '"bonona"'],
    ['"a{x}b{y}c{}".format(1, x = 2, y = 3)', '"a2b3c1"'],
    ['"abc".isalpha()', "True"],
    ['"123".isdigit()', "True"],
    ['"".isdigit()', "False"],
    ['" \\t".isspace()', "True"],
    ['"abc".islower()', "True"],
    ['"ABC".isupper()', "True"],
    ['"ab1".isalnum()', "True"],
    ['"Hello World".istitle()', "True"],
    ['", ".join(["a", "b"])', '"a, b"'],
    ['len("héllo")', "5"],
  ]);
  assert.equal(err('x = "".join([1])').code, "type-error");
  assert.equal(err('x = "abc".index("z")').code, "runtime-error");
  assert.equal(err('x = "a".nope()').code, "attribute-error");
});

test("L-13: list methods", () => {
  table(
    [
      ["l", "[0, 1, 9, 2, 3, 4]"],
      ["l.index(9)", "2"],
      ["l.pop()", "4"],
      ["l.pop(0)", "0"],
    ],
    "l = [1, 2]\nl.append(3)\nl.extend([4])\nl.insert(0, 0)\nl.insert(-3, 9)",
  );
  table([["l", "[2, 1]"]], "l = [1, 2, 1]\nl.remove(1)");
  table([["l", "[]"]], "l = [1]\nl.clear()");
  table([["l", "[1, 2, 3]"]], "l = [1]\nl += [2]\nl += (3,)");
  assert.equal(err("l = []\nl.pop()").code, "index-error");
  assert.equal(err("l = [1]\nl.remove(2)").code, "runtime-error");
});

test("L-13: dict methods", () => {
  table(
    [
      ['d.get("a")', "1"],
      ['d.get("z")', "None"],
      ['d.get("z", 5)', "5"],
      ["d.keys()", '["a", "b"]'],
      ["d.values()", "[1, 2]"],
      ['d.setdefault("c", 3)', "3"],
    ],
    'd = {"a": 1, "b": 2}',
  );
  table(
    [["[d, p, it]", '[{"c": 9, "d": 4}, 1, ("b", 2)]']],
    'd = {"a": 1, "b": 2}\np = d.pop("a")\nd.update({"c": 3}, d = 4)\nd.update([("c", 9)])\nit = d.popitem()',
  );
  table([["d.pop('x', 0)", "0"]], "d = {}");
  assert.equal(err("d = {}\nd.pop('x')").code, "key-error");
  assert.equal(err("d = {}\nx = d['missing']").code, "key-error");
  assert.equal(err("d = {}\nd[[1]] = 2").code, "type-error");
  table([["d", "{}"]], "d = {1: 2}\nd.clear()");
});

test("L-13: built-in functions", () => {
  table([
    ["len([1, 2])", "2"],
    ['len({"a": 1})', "1"],
    ["len(range(0, 10, 3))", "4"],
    ["str(None)", '"None"'],
    ['repr("x")', '"\\"x\\""'],
    ['int("42")', "42"],
    ['int("-0x1f", 16)', "-31"],
    ['int("0b101", 0)', "5"],
    ['int("z", 36)', "35"],
    ["int(-3.9)", "-3"],
    ["int(True)", "1"],
    ['float("1.5")', "1.5"],
    ["float(3)", "3.0"],
    ["bool([])", "False"],
    ["bool(1)", "True"],
    ["list((1, 2))", "[1, 2]"],
    ['dict([("a", 1)], b = 2)', '{"a": 1, "b": 2}'],
    ["tuple([1])", "(1,)"],
    ["list(range(3))", "[0, 1, 2]"],
    ["list(range(1, 10, 4))", "[1, 5, 9]"],
    ["list(range(5, 0, -2))", "[5, 3, 1]"],
    ["range(10)[-1]", "9"],
    ['enumerate(["a", "b"], 1)', '[(1, "a"), (2, "b")]'],
    ['zip([1, 2, 3], ["a", "b"])', '[(1, "a"), (2, "b")]'],
    ["sorted([3, 1, 2])", "[1, 2, 3]"],
    ["sorted([3, 1, 2], reverse = True)", "[3, 2, 1]"],
    ['sorted(["bb", "a", "ccc"], key = len)', '["a", "bb", "ccc"]'],
    ["sorted([(1, 'b'), (0, 'z'), (1, 'a')])", '[(0, "z"), (1, "a"), (1, "b")]'],
    ["sorted([2, 1.5, 1])", "[1, 1.5, 2]"],
    ["reversed([1, 2, 3])", "[3, 2, 1]"],
    ["min([3, 1, 2])", "1"],
    ["max(3, 1, 2)", "3"],
    ['max(["a", "ccc", "bb"], key = len)', '"ccc"'],
    ['min({"b": 1, "a": 2})', '"a"'],
    ["any([0, '', 1])", "True"],
    ["all([1, []])", "False"],
    ["all([])", "True"],
    ['hasattr("x", "upper")', "True"],
    ['hasattr(struct(a = 1), "b")', "False"],
    ['getattr(struct(a = 1), "a")', "1"],
    ['getattr(struct(a = 1), "b", "dflt")', '"dflt"'],
    ["dir(struct(b = 1, a = 2))", '["a", "b"]'],
    ['"upper" in dir("")', "True"],
    ["type(1)", '"int"'],
    ["type(1.0)", '"float"'],
    ["type('')", '"string"'],
    ["type([])", '"list"'],
    ["type(())", '"tuple"'],
    ["type({})", '"dict"'],
    ["type(None)", '"NoneType"'],
    ["type(True)", '"bool"'],
    ["type(len)", '"builtin_function_or_method"'],
    ["type(lambda: 1)", '"function"'],
    ["type(range(1))", '"range"'],
    ["type(struct())", '"struct"'],
    ["abs(-3)", "3"],
    ['hash("a")', "97"],
    ["struct(b = 1, a = 'x')", 'struct(a = "x", b = 1)'],
    ["struct(a = 1).a", "1"],
    ["struct(a = 1) == struct(a = 1)", "True"],
  ]);
  assert.equal(err("x = min([])").code, "runtime-error");
  assert.equal(err('x = int("1.5")').code, "runtime-error");
  assert.equal(err("x = range(1, 2, 0)").code, "runtime-error");
  assert.equal(err("x = struct(a = 1).b").code, "attribute-error");
  assert.equal(err('x = list("abc")').code, "type-error");
});

test("L-13: print writes str() of its arguments joined by sep", () => {
  const r = run('print("a", 1, [2], sep = "-")\nprint()\nprint("x", None)');
  assert.deepEqual(r.out, ["a-1-[2]", "", "x None"]);
});

test("L-13: fail(*args, sep) stops evaluation with code fail and the joined message", () => {
  const e = err('def check(x):\n    if x < 0:\n        fail("negative:", x)\ncheck(-1)');
  assert.equal(e.code, "fail");
  assert.equal(e.message, "negative: -1");
  assert.equal(e.at, "3:9");
  assert.equal(err('fail("a", "b", sep = "/")').message, "a/b");
});

test("L-11: def with defaults, *args, **kwargs and keyword-only parameters", () => {
  const prelude = [
    "def f(a, b = 2, *args, c, d = 4, **kw):",
    "    return [a, b, args, c, d, kw]",
    "def g(a, *, k = 1):",
    "    return (a, k)",
  ].join("\n");
  table(
    [
      ["f(1, c = 3)", "[1, 2, (), 3, 4, {}]"],
      ["f(1, 5, 6, 7, c = 3, z = 0)", '[1, 5, (6, 7), 3, 4, {"z": 0}]'],
      ['f(*[1, 2, 3], **{"c": 0, "d": 1})', "[1, 2, (3,), 0, 1, {}]"],
      ["g(1)", "(1, 1)"],
      ["g(a = 2, k = 3)", "(2, 3)"],
    ],
    prelude,
  );
  assert.equal(err(prelude + "\nf(1)").code, "missing-argument");
  assert.equal(err(prelude + "\ng(1, 2)").code, "too-many-arguments");
  assert.equal(err(prelude + "\ng(1, a = 2)").code, "duplicate-argument");
  const u = err(prelude + "\ng(1, kk = 2)");
  assert.equal(u.code, "unknown-argument");
  assert.match(u.message, /did you mean 'k'/);
});

test("L-11: defaults are evaluated once, at def time", () => {
  const r = run("n = 1\ndef f(x = n):\n    return x\nn = 2\nprint(f())");
  assert.deepEqual(r.out, ["1"]);
});

test("L-11: a name assigned anywhere in a function body is local throughout it", () => {
  const e = err("x = 1\ndef f():\n    y = x\n    x = 2\n    return y\nf()");
  assert.equal(e.code, "unbound-variable");
  assert.equal(e.at, "3:9");
  // reading a global that is never assigned locally is fine
  assert.deepEqual(run("x = 1\ndef f():\n    return x + 1\nprint(f())").out, ["2"]);
  // a for loop variable is local too
  assert.deepEqual(run("i = 10\ndef f():\n    for i in range(3):\n        pass\n    return i\nprint(f(), i)").out, ["2 10"]);
});

test("L-11: closures capture variables of enclosing functions; lambdas too", () => {
  const src = [
    "def counter():",
    "    state = {'n': 0}",
    "    def inc(by = 1):",
    "        state['n'] += by",
    "        return state['n']",
    "    return inc",
    "c = counter()",
    "c()",
    "print(c(5))",
    "def adders():",
    "    return [lambda x: x + i for i in range(3)]",
    "print([a(10) for a in adders()])",
    "def outer(v):",
    "    def mid():",
    "        def inner():",
    "            return v * 2",
    "        return inner()",
    "    return mid()",
    "print(outer(21))",
  ].join("\n");
  assert.deepEqual(run(src).out, ["6", "[12, 12, 12]", "42"]);
});

test("L-11: for over lists, tuples, dicts, strings' elems() and ranges; break and continue; tuple unpacking", () => {
  const src = [
    "out = []",
    "for x in [1, 2, 3, 4, 5]:",
    "    if x == 2:",
    "        continue",
    "    if x == 5:",
    "        break",
    "    out.append(x)",
    "for k in {'a': 1}:",
    "    out.append(k)",
    "for c in 'xy'.elems():",
    "    out.append(c)",
    "for i in range(2):",
    "    out.append(i)",
    "for a, (b, c) in [(1, (2, 3))]:",
    "    out.append(a + b + c)",
    "[p, q] = (7, 8)",
    "out.append(p * q)",
    "print(out)",
  ].join("\n");
  assert.deepEqual(run(src).out, ['[1, 3, 4, "a", "x", "y", 0, 1, 6, 56]']);
  assert.equal(err("for c in 'abc':\n    pass").code, "type-error");
  assert.equal(err("a, b = [1, 2, 3]").code, "runtime-error");
});

test("L-11: augmented assignment on names, indexes and fields", () => {
  table([["[x, d, l]", '[7, {"k": 3}, [[1, 2]]]']], "x = 5\nx += 2\nd = {'k': 1}\nd['k'] += 2\nl = [[1]]\nl[0] += [2]");
});

test("L-14: values are frozen after their module finishes; mutation is a frozen-value error", () => {
  let loaded: Map<string, import("../../src/lang/index.js").Value> | undefined;
  const lib = run("items = [1]\nconf = {'a': 1}\ndef add(x):\n    items.append(x)\n");
  assert.ok(lib.ok);
  loaded = lib.globals;
  const load = () => ({ globals: loaded! });
  for (const [src, what] of [
    ["load('lib.star', 'items')\nitems.append(2)", "append"],
    ["load('lib.star', 'conf')\nconf['b'] = 2", "insert"],
    ["load('lib.star', 'add')\nadd(3)", "append"],
  ] as const) {
    const r = run(src, { load });
    assert.equal(r.ok, false, src);
    assert.equal(r.diagnostics[0]!.code, "frozen-value", src);
    assert.match(r.diagnostics[0]!.message, new RegExp(what));
  }
  // a copy is mutable
  assert.deepEqual(run("load('lib.star', 'items')\nx = list(items)\nx.append(2)\nprint(x)", { load }).out, ["[1, 2]"]);
});

test("L-14: mutating a list or dict while iterating it is a runtime error", () => {
  const e = err("l = [1, 2]\nfor x in l:\n    l.append(x)");
  assert.equal(e.code, "runtime-error");
  assert.match(e.message, /during iteration/);
  assert.equal(e.at, "3:5");
  assert.equal(err("d = {1: 1}\nfor k in d:\n    d[k + 1] = 0").code, "runtime-error");
  assert.equal(err("l = [1]\nx = [l.append(1) for y in l]").code, "runtime-error");
  // after the loop, mutation is fine again
  assert.deepEqual(run("l = [1]\nfor x in l:\n    pass\nl.append(2)\nprint(l)").out, ["[1, 2]"]);
});

test("L-11: recursion, direct or indirect, is a runtime error with code recursion", () => {
  const e = err("def f(n):\n    return f(n - 1) if n > 0 else 0\nf(3)");
  assert.equal(e.code, "recursion");
  assert.equal(e.at, "2:12");
  assert.equal(err("def a():\n    return b()\ndef b():\n    return a()\na()").code, "recursion");
});

test("L-14: the step budget stops runaway loops with an error naming the budget", () => {
  const r = run("n = 0\nfor i in range(1000000):\n    for j in range(1000000):\n        n += 1", { stepBudget: 50_000 });
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics[0]!.code, "step-budget");
  assert.match(r.diagnostics[0]!.message, /step budget of 50,000/);
});

test("L-14: equal ints and floats are the same dict key; unhashable keys are an error", () => {
  table(
    [
      ["d", '{1: "b"}'],
      ["d[1.0]", '"b"'],
    ],
    'd = {}\nd[1] = "a"\nd[1.0] = "b"',
  );
  table([["d[(1, 'a')]", "2"]], "d = {(1, 'a'): 2}");
  assert.equal(err("x = {[1]: 2}").code, "type-error");
});

test("L-11: load binds names from the embedder's hook, with aliases; names are not re-exported", () => {
  const lib = run("def helper(x):\n    return x * 2\nvalue = 10\n_hidden = 1");
  const seen: string[] = [];
  const r = run("load('lib/util.star', 'helper', v = 'value')\nout = helper(v)", {
    load: (m) => {
      seen.push(m);
      return { globals: lib.globals };
    },
  });
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  assert.deepEqual(seen, ["lib/util.star"]);
  assert.equal(String(r.globals.get("out")), "20");
  assert.equal(r.globals.has("helper"), false);
  const miss = run("load('m.star', 'helpr')", { load: () => ({ globals: lib.globals }) });
  assert.equal(miss.diagnostics[0]!.code, "load-error");
  assert.match(miss.diagnostics[0]!.message, /did you mean 'helper'/);
  assert.equal(err("load('m.star', '_hidden')").code, "load-error");
});
