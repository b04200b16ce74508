// Property: random and mutated source never makes the interpreter throw a JS exception (only
// diagnostics with catalogued codes, L-15) and never hangs (the step budget bounds it, L-14).

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { LANG_CODE_SET, Thread, execFile, formatDiagnostic, parseFile } from "../../src/lang/index.js";

const CORPUS = [
  "def f(a, b = 2, *args, c = 3, **kw):\n    return [a, b, args, c, kw]\nx = f(1, c = 4)\nprint(x)\n",
  "l = [i * i for i in range(10) if i % 2]\nd = {str(k): k for k in l}\nfor k, v in d.items():\n    print(k, v)\n",
  "s = 'hello %s' % 'world'\nt = '{} {x}'.format(1, x = 2)\nparts = s.split(' ')\nprint(s[::-1], t, parts, len(s))\n",
  "def outer(n):\n    acc = []\n    def add(x):\n        acc.append(x)\n    for i in range(n):\n        add(i)\n    return acc\nprint(outer(5))\n",
  "x = struct(a = 1, b = [1, 2])\ny = x.b + [3]\nz = sorted(y, reverse = True)\nw = {'k': x} | {'j': 2}\nprint(z, w, 7 // -2, -7 % 3, 1 / 4)\n",
  "if 1 < 2:\n    a = (1, 2)\nelif False:\n    a = None\nelse:\n    a = ()\nb = a[0] if a else -1\nc = [e for e in 'abc'.elems()]\n",
  "n = 0\nfor i in range(100):\n    for j in range(100):\n        if i == j:\n            continue\n        n += 1\nprint(n, max(1, 2), min([3, 4]), any([]), all([]))\n",
  "f = lambda x, y = 1: x + y\ng = [f(i) for i in range(3)]\nh = dict(zip(['a', 'b'], g))\nprint(h.get('a'), h.pop('b'), hasattr(h, 'keys'), type(h))\n",
];

const TOKENS = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ":",
  ",",
  ".",
  "=",
  "+",
  "-",
  "*",
  "/",
  "//",
  "%",
  "<",
  "==",
  "\n",
  "\n    ",
  " ",
  "def",
  "if",
  "else",
  "elif",
  "for",
  "in",
  "return",
  "lambda",
  "not",
  "and",
  "or",
  "pass",
  "break",
  "load",
  "x",
  "y",
  "f",
  "range",
  "len",
  "print",
  "fail",
  "struct",
  "'s'",
  '"""t"""',
  "1",
  "0",
  "10**",
  "1.5",
  "0x1f",
  "#c",
  "\\",
  "while",
  "*args",
  "**kw",
  "'%s' %",
  "[x for x in",
  "x * x",
  "x + x",
  "1 << 64",
];

type Mutation = { kind: "delete" | "insert" | "replace" | "dup"; at: number; len: number; token: string };

function mutate(src: string, muts: Mutation[]): string {
  let s = src;
  for (const m of muts) {
    const at = s.length === 0 ? 0 : m.at % (s.length + 1);
    switch (m.kind) {
      case "delete":
        s = s.slice(0, at) + s.slice(at + m.len);
        break;
      case "insert":
        s = s.slice(0, at) + m.token + s.slice(at);
        break;
      case "replace":
        s = s.slice(0, at) + m.token + s.slice(at + m.len);
        break;
      case "dup":
        s = s.slice(0, at) + s.slice(at, at + m.len * 8) + s.slice(at);
        break;
    }
  }
  return s;
}

const mutationArb = fc.record({
  kind: fc.constantFrom("delete", "insert", "replace", "dup") as fc.Arbitrary<Mutation["kind"]>,
  at: fc.nat(),
  len: fc.integer({ min: 1, max: 6 }),
  token: fc.constantFrom(...TOKENS),
});

const mutatedSource = fc
  .tuple(fc.constantFrom(...CORPUS), fc.array(mutationArb, { minLength: 1, maxLength: 6 }))
  .map(([s, m]) => mutate(s, m));
const tokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((t) => t.join(" "));
const anyText = fc.string({ maxLength: 80 });

// Well-formed random expressions reach the evaluator (not just the parser): operators, methods and
// built-ins applied to values of every type, so runtime errors must all be proper diagnostics.
const expr = fc.letrec((tie) => ({
  atom: fc.oneof(
    fc.constantFrom(
      "0",
      "1",
      "-3",
      "7",
      "2.5",
      "0.0",
      "1e300",
      "True",
      "None",
      "'ab'",
      "''",
      "'%s'",
      "'{}'",
      "[]",
      "{}",
      "()",
      "x",
      "d",
      "l",
      "s",
    ),
    fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }).map(String),
  ),
  expr: fc.oneof(
    { depthSize: "small" },
    tie("atom"),
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom("+", "-", "*", "/", "//", "%", "|", "&", "^", "<<", ">>", "==", "<", "in", "and", "or"),
        tie("expr"),
      )
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(fc.constantFrom("-", "not ", "~"), tie("expr")).map(([op, a]) => `(${op}${a})`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `[${a}, ${b}]`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `{${a}: ${b}}`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `${a}[${b}]`),
    fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([a, b, c]) => `${a}[${b}:${c}:-1]`),
    fc
      .tuple(
        fc.constantFrom(
          "len",
          "str",
          "repr",
          "int",
          "float",
          "bool",
          "list",
          "tuple",
          "dict",
          "sorted",
          "reversed",
          "min",
          "max",
          "any",
          "all",
          "enumerate",
          "zip",
          "range",
          "type",
          "dir",
          "hash",
          "abs",
        ),
        fc.array(tie("expr"), { maxLength: 2 }),
      )
      .map(([f, args]) => `${f}(${args.join(", ")})`),
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom(
          "split",
          "join",
          "format",
          "append",
          "pop",
          "get",
          "items",
          "keys",
          "update",
          "find",
          "replace",
          "elems",
          "index",
          "count",
          "strip",
          "upper",
          "setdefault",
          "extend",
          "insert",
          "remove",
        ),
        fc.array(tie("expr"), { maxLength: 2 }),
      )
      .map(([r, m, args]) => `${r}.${m}(${args.join(", ")})`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `[${a} for x in ${b}]`),
  ),
})).expr;

const program = fc
  .array(expr, { minLength: 1, maxLength: 4 })
  .map((es) => "x = 3\nd = {'k': [1]}\nl = [1, 'a']\ns = 'text'\n" + es.map((e, i) => `v${i} = ${e}`).join("\n") + "\n");

function checkNeverThrows(src: string): void {
  const printed: string[] = [];
  const thread = new Thread({ stepBudget: 100_000, print: (m) => printed.push(m) });
  const r = execFile("fuzz.star", src, { thread, load: () => ({ globals: new Map() }) });
  // Bounded work, measured in steps rather than wall-clock time (which depends on the machine).
  assert.ok(thread.steps <= 100_001, `evaluation took ${thread.steps} steps:\n${src}`);
  assert.equal(r.ok, r.diagnostics.length === 0);
  for (const d of r.diagnostics) {
    assert.ok(LANG_CODE_SET.has(d.code), `uncatalogued code ${d.code}: ${d.message}\n${src}`);
    assert.notEqual(d.code, "internal-error", `${d.message}\n${src}`);
    assert.ok(d.pos && d.pos.line >= 1 && d.pos.col >= 1, `diagnostic without a position: ${d.message}\n${src}`);
    assert.equal(typeof formatDiagnostic(d, () => src), "string");
  }
  parseFile("fuzz.star", src);
}

test("L-15: the corpus itself evaluates cleanly", () => {
  for (const src of CORPUS) {
    const r = execFile("corpus.star", src, { print: () => {} });
    assert.ok(r.ok, `${src}\n${r.diagnostics.map((d) => d.message).join("\n")}`);
  }
});

test("L-14/L-15: mutated, token-soup and random source only ever yields diagnostics, in bounded time", () => {
  fc.assert(fc.property(mutatedSource, checkNeverThrows), { numRuns: 250, seed: 20261202 });
  fc.assert(fc.property(tokenSoup, checkNeverThrows), { numRuns: 150 });
  fc.assert(fc.property(anyText, checkNeverThrows), { numRuns: 100 });
  fc.assert(fc.property(program, checkNeverThrows), { numRuns: 300 });
});
