// Error reporting (L-15): codes, positions, all independent static errors at once, call stacks.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, formatDiagnostic, parseFile } from "../../src/lang/index.js";
import { err, run } from "./helpers.js";

function codesAt(src: string): string[] {
  const r = run(src);
  return r.diagnostics.map((d) => `${d.code}@${d.pos?.line}:${d.pos?.col}`);
}

test("L-15: every undefined name in a file is reported before execution, with did-you-mean", () => {
  const src = [
    'print("side effect")',
    "value = 1",
    "def f():",
    "    return valu + 1",
    "if False:",
    "    x = lenn([1])",
    "print(undefined_thing)",
  ].join("\n");
  const r = run(src);
  assert.equal(r.ok, false);
  assert.deepEqual(r.out, [], "nothing runs when resolution fails");
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.code}@${d.pos?.line}:${d.pos?.col}`),
    ["undefined-name@4:12", "undefined-name@6:9", "undefined-name@7:7"],
  );
  assert.match(r.diagnostics[0]!.message, /undefined name 'valu' \(did you mean 'value'\?\)/);
  assert.match(r.diagnostics[1]!.message, /did you mean 'len'/);
});

test("L-15: several independent syntax and lexical errors are all reported", () => {
  const src = ["x = 1 +", "y = 2", "def f(:", "    pass", 'z = "unterminated', "w = 0777", "ok = 1", "v = 1 +* 2"].join("\n");
  const got = codesAt(src);
  assert.ok(got.length >= 4, got.join(", "));
  assert.ok(got.includes("syntax-error@1:8"), got.join(", "));
  assert.ok(got.includes("syntax-error@3:6"), got.join(", ")); // the '(' that was never closed
  assert.ok(got.includes("lex-error@5:5"), got.join(", "));
  assert.ok(got.includes("lex-error@6:5"), got.join(", "));
  assert.ok(got.includes("syntax-error@8:8"), got.join(", "));
});

test("L-10: implicit string concatenation is a syntax error", () => {
  const e = err('x = "a" "b"');
  assert.equal(e.code, "syntax-error");
  assert.equal(e.at, "1:9");
  assert.match(e.message, /implicit string concatenation/);
});

test("L-11: while, class, import and other Python-only keywords are rejected with a hint", () => {
  const e = err("while True:\n    pass");
  assert.equal(e.code, "lex-error");
  assert.equal(e.at, "1:1");
  assert.match(e.all[0]!.hint ?? "", /no while loops/);
  assert.equal(err("import os").code, "lex-error");
  assert.equal(err("x = 2 ** 3").code, "syntax-error");
});

test("L-10: lexical details — invalid escapes, leading zeros, unterminated strings, bad indentation", () => {
  assert.deepEqual(codesAt('x = "\\d"'), ["lex-error@1:6"]);
  assert.deepEqual(codesAt("x = 012"), ["lex-error@1:5"]);
  assert.deepEqual(codesAt("x = 'abc"), ["lex-error@1:5"]);
  assert.deepEqual(codesAt("if True:\n        x = 1\n    y = 2"), ["lex-error@3:5"]);
  assert.deepEqual(codesAt("x = 1\n  y = 2"), ["syntax-error@2:1"]);
  assert.deepEqual(codesAt("x = 1 $ 2"), ["lex-error@1:7"]);
});

test("L-11: static rules — break outside loop, return at top level, load inside a function, bad params", () => {
  assert.deepEqual(codesAt("break"), ["syntax-error@1:1"]);
  assert.deepEqual(codesAt("return 1"), ["syntax-error@1:1"]);
  assert.deepEqual(codesAt("def f():\n    load('a.star', 'b')"), ["syntax-error@2:5"]);
  assert.deepEqual(codesAt("def f(a, a):\n    pass"), ["syntax-error@1:10"]);
  assert.deepEqual(codesAt("def f(a = 1, b):\n    pass"), ["syntax-error@1:14"]);
  assert.deepEqual(codesAt("def f(*):\n    pass"), ["syntax-error@1:7"]);
  assert.deepEqual(
    codesAt("f(a = 1, 2)"),
    ["syntax-error@1:10"],
    "names in a statement that failed to parse are not also reported as undefined",
  );
  assert.deepEqual(codesAt("1 = x"), ["syntax-error@1:3"]);
  assert.deepEqual(codesAt("x = 1 < 2 < 3"), ["syntax-error@1:11"]);
  assert.deepEqual(codesAt("len = 3"), ["reassign-builtin@1:1"]);
});

test("L-15: runtime errors carry the failing expression's position and a call stack, outermost first", () => {
  const src = ["def inner(d):", "    return d['missing']", "def outer():", "    return inner({})", "x = outer()"].join("\n");
  const r = run(src);
  assert.equal(r.ok, false);
  const d = r.diagnostics[0];
  assert.equal(d!.code, "key-error");
  assert.deepEqual([d!.pos?.line, d!.pos?.col], [2, 13]);
  assert.deepEqual(
    d!.stack?.map((f) => `${f.name}@${f.pos.line}:${f.pos.col}`),
    ["<toplevel>@5:5", "outer@4:12", "inner@2:13"],
  );
  const text = formatDiagnostic(d!, () => src);
  assert.equal(
    text,
    [
      'test.star:2:13: error[key-error]: key "missing" not in dict',
      "2 |     return d['missing']",
      "  |             ^",
      "call stack (most recent call last):",
      "  test.star:5:5: in <toplevel>",
      "  test.star:4:12: in outer",
      "  test.star:2:13: in inner",
      "help: use d.get(key, default) for optional keys",
    ].join("\n"),
  );
});

test("L-15: runtime error positions point at the operator, index, attribute or argument at fault", () => {
  assert.equal(err("x = 1\ny = x + 'a'").at, "2:7");
  assert.equal(err("x = [1]\ny = x[5]").at, "2:6");
  assert.equal(err("x = 1 // 0").at, "1:7");
  assert.equal(err("s = struct(a = 1)\ny = s.b").at, "2:7");
  assert.equal(err("y = len(1)").at, "1:5");
  assert.equal(err("y = 1\ny()").at, "2:1");
  assert.equal(err("def f(a):\n    pass\nf(1, 2)").code, "too-many-arguments");
  assert.equal(err("x = undefined_later\nundefined_later = 1").code, "unbound-variable");
});

test("L-15: a runtime error stops the file: later statements do not run", () => {
  const r = run('print("a")\nx = 1 // 0\nprint("b")');
  assert.deepEqual(r.out, ["a"]);
  assert.equal(r.diagnostics.length, 1);
});

test("parseFile reports syntax and resolution errors without running, honouring predeclared names", () => {
  const src = "command(name = 'x')\nprint(nope)\n";
  assert.deepEqual(
    parseFile("p.star", src, ["command"]).diagnostics.map((d) => d.code),
    ["undefined-name"],
  );
  assert.equal(parseFile("p.star", src).diagnostics.length, 2);
  const printed: string[] = [];
  assert.equal(execFile("p.star", 'print("x")', { print: (m) => printed.push(m) }).ok, true);
  assert.deepEqual(printed, ["x"]);
});

test("L-15: syntax errors say what would be right (missing comma, = in a condition, unclosed bracket)", () => {
  const r = run("x = [1 2]\nif x = 1:\n    pass\ny = f(1,\nz = 2\ndef g():\n    pass\n");
  const byLine = new Map(r.diagnostics.map((d) => [d.pos?.line, d]));
  assert.equal(byLine.get(1)?.hint, "is a ',' missing before it?");
  assert.equal(byLine.get(2)?.hint, "use == to compare values");
  assert.equal(byLine.get(4)?.message, "'(' was never closed");
  assert.equal(byLine.get(4)?.pos?.col, 6);
});

test("L-10: a byte-order mark is ignored; number literals have no underscores", () => {
  assert.deepEqual(run("\uFEFFx = 1\nprint(x)").out, ["1"]);
  assert.equal(err("\uFEFFx = y").at, "1:5");
  assert.equal(err("x = 1_000").code, "lex-error");
});

test("L-14/L-15: deeply nested and very large values end in diagnostics, never a JS exception", () => {
  // freezing a 100,000-deep value at module end must not overflow the JS stack
  const deep = run("x = []\nfor i in range(100000):\n    x = [x]\nprint(len(x))");
  assert.equal(deep.ok, true, JSON.stringify(deep.diagnostics));
  const e = err("x = []\nfor i in range(100000):\n    x = [x]\ny = str(x)");
  assert.equal(e.code, "runtime-error");
  assert.equal(e.at, "4:5");
  assert.match(e.message, /nested too deeply/);
  assert.match(err("x = list(range(1 << 40))").message, /too large/);
  assert.match(err("x = 'ab' * (1 << 40)").message, /repetition/);
  assert.match(err("x = 1 << 2000000").message, /int result too large/);
  assert.deepEqual(run("print(len(range(1 << 62)), range(1 << 62)[-1])").out, ["4611686018427387904 4611686018427387903"]);
});
