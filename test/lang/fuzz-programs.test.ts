// L-14, L-15: a fuzz target for the scanner, parser and evaluator with generated
// *programs* — statements, blocks, functions, loops, comprehensions, calls of every built-in and
// method — not only mutated text. Whatever the program, evaluation ends (the step budget, L-14)
// with either success or diagnostics that carry a catalogued code and a position (L-15); never a
// JavaScript exception, never `internal-error`. A failure prints the shrunk program.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { LANG_CODE_SET, Thread, execFile, formatDiagnostic, parseFile } from "../../src/lang/index.js";

const NAMES = ["a", "b", "x", "l", "d", "s", "f", "g"];
const BUILTINS = [
  "len",
  "str",
  "repr",
  "int",
  "float",
  "bool",
  "list",
  "tuple",
  "dict",
  "set",
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
  "getattr",
  "hasattr",
  "struct",
  "fail",
  "print",
];
const METHODS = [
  "append",
  "extend",
  "insert",
  "pop",
  "remove",
  "index",
  "clear",
  "get",
  "items",
  "keys",
  "values",
  "update",
  "setdefault",
  "popitem",
  "split",
  "rsplit",
  "join",
  "format",
  "replace",
  "find",
  "rfind",
  "count",
  "strip",
  "lstrip",
  "startswith",
  "endswith",
  "partition",
  "upper",
  "lower",
  "title",
  "capitalize",
  "elems",
  "splitlines",
  "removeprefix",
  "isalpha",
  "istitle",
  "add",
  "discard",
  "union",
  "intersection",
  "difference",
  "symmetric_difference",
  "issubset",
  "update",
];
const KEYWORDS = ["x", "key", "default", "sep", "start", "end", "sub", "count", "maxsplit", "index", "chars", "reverse", "base", "zzz"];

const name = fc.constantFrom(...NAMES);

const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
  atom: fc.oneof(
    name,
    fc.constantFrom(
      "0",
      "1",
      "-1",
      "3",
      "1.5",
      "-0.0",
      "1e308",
      "float('nan')",
      "True",
      "False",
      "None",
      "''",
      "'ab'",
      "'%s %d'",
      "'{} {x}'",
      "'a,b'",
    ),
    fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }).map(String),
    fc.constantFrom("[]", "{}", "()", "set()", "range(5)", "(1,)", "[1, 'a']", "{'k': 1}", "struct(a = 1)", "'xy'.elems()"),
  ),
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("atom"),
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom("+", "-", "*", "/", "//", "%", "|", "&", "^", "<<", ">>", "==", "!=", "<", ">=", "in", "not in", "and", "or"),
        tie("expr"),
      )
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(fc.constantFrom("-", "not ", "~", "+"), tie("expr")).map(([op, a]) => `(${op}${a})`),
    fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([a, b, c]) => `(${a} if ${b} else ${c})`),
    fc.array(tie("expr"), { maxLength: 3 }).map((es) => `[${es.join(", ")}]`),
    fc.array(tie("expr"), { maxLength: 2 }).map((es) => (es.length === 1 ? `(${es[0]},)` : `(${es.join(", ")})`)),
    fc.array(fc.tuple(tie("expr"), tie("expr")), { maxLength: 2 }).map((kv) => `{${kv.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `${a}[${b}]`),
    fc
      .tuple(tie("expr"), fc.option(tie("expr")), fc.option(tie("expr")), fc.option(tie("expr")))
      .map(([a, lo, hi, st]) => `${a}[${lo ?? ""}:${hi ?? ""}${st ? `:${st}` : ""}]`),
    fc
      .tuple(
        fc.constantFrom(...BUILTINS),
        fc.array(tie("expr"), { maxLength: 3 }),
        fc.option(fc.tuple(fc.constantFrom(...KEYWORDS), tie("expr"))),
      )
      .map(([f, args, kw]) => `${f}(${[...args, ...(kw ? [`${kw[0]} = ${kw[1]}`] : [])].join(", ")})`),
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom(...METHODS),
        fc.array(tie("expr"), { maxLength: 3 }),
        fc.option(fc.tuple(fc.constantFrom(...KEYWORDS), tie("expr"))),
      )
      .map(([r, m, args, kw]) => `(${r}).${m}(${[...args, ...(kw ? [`${kw[0]} = ${kw[1]}`] : [])].join(", ")})`),
    fc
      .tuple(tie("expr"), name, tie("expr"), fc.option(tie("expr")))
      .map(([body, v, it, cond]) => `[${body} for ${v} in ${it}${cond ? ` if ${cond}` : ""}]`),
    fc.tuple(tie("expr"), tie("expr"), name, tie("expr")).map(([k, v, n, it]) => `{${k}: ${v} for ${n} in ${it}}`),
    fc.tuple(name, tie("expr")).map(([p, body]) => `(lambda ${p}: ${body})`),
    fc.tuple(name, fc.array(tie("expr"), { maxLength: 2 })).map(([f, args]) => `${f}(${args.join(", ")})`),
    fc.tuple(tie("expr"), name).map(([x, attr]) => `(${x}).${attr}`),
    fc.tuple(tie("expr"), tie("expr")).map(([f, a]) => `${f} % ${a}`),
  ),
})).expr as fc.Arbitrary<string>;

const target = fc.oneof(
  name,
  fc.tuple(name, name).map(([a, b]) => `${a}, ${b}`),
  fc.tuple(name, name).map(([a, b]) => `[${a}, (${b})]`),
  fc.tuple(name, expr).map(([a, i]) => `${a}[${i}]`),
  fc.constant("()"),
);

/** A block of statements at the given indentation (depth bounds nesting). */
function block(indent: string, depth: number, inLoop: boolean, inDef: boolean): fc.Arbitrary<string> {
  const simple: Array<fc.Arbitrary<string>> = [
    fc.tuple(target, expr).map(([t, e]) => `${indent}${t} = ${e}`),
    fc.tuple(name, fc.constantFrom("+=", "-=", "*=", "|=", "//=", "%=", "<<="), expr).map(([n, op, e]) => `${indent}${n} ${op} ${e}`),
    expr.map((e) => `${indent}${e}`),
    fc.constant(`${indent}pass`),
  ];
  if (inLoop) simple.push(fc.constantFrom(`${indent}break`, `${indent}continue`));
  if (inDef) simple.push(expr.map((e) => `${indent}return ${e}`));
  if (depth <= 0) return fc.array(fc.oneof(...simple), { minLength: 1, maxLength: 3 }).map((ls) => ls.join("\n"));
  const inner = indent + "    ";
  const compound: Array<fc.Arbitrary<string>> = [
    fc
      .tuple(expr, block(inner, depth - 1, inLoop, inDef), fc.option(block(inner, depth - 1, inLoop, inDef)))
      .map(([c, t, e]) => `${indent}if ${c}:\n${t}${e ? `\n${indent}else:\n${e}` : ""}`),
    fc.tuple(target, expr, block(inner, depth - 1, true, inDef)).map(([t, it, b]) => `${indent}for ${t} in ${it}:\n${b}`),
    fc
      .tuple(
        fc.constantFrom("f", "g"),
        fc.constantFrom("", "a", "a, b = 1", "*args, **kw", "a, *, b = 2"),
        block(inner, depth - 1, false, true),
      )
      .map(([n, params, b]) => `${indent}def ${n}(${params}):\n${b}`),
  ];
  return fc.array(fc.oneof(...simple, ...compound), { minLength: 1, maxLength: 4 }).map((ls) => ls.join("\n"));
}

const PRELUDE =
  "a = 1\nb = [2]\nx = 'text'\nl = [1, 'a', None]\nd = {'k': [1], 2: 'v'}\ns = set([1, 2])\ndef f(a = 0, *args, **kw):\n    return [a, args, kw]\ng = lambda v = 1: v\n";

const program = block("", 2, false, false).map((body) => PRELUDE + body + "\n");

const BUDGET = 20_000;
// FUZZ_RUNS=100000 node --test dist/test/lang/fuzz-programs.test.js fuzzes longer, with a fresh seed.
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.FUZZ_RUNS ? Date.now() % 1_000_000 : 11_2026;

function evaluatesCleanly(src: string): void {
  // FUZZ_LOG=FILE keeps the program being evaluated, to find one that kills the process.
  if (process.env.FUZZ_LOG) writeFileSync(process.env.FUZZ_LOG, src);
  const thread = new Thread({ stepBudget: BUDGET, print: () => {} });
  const r = execFile("fuzz.star", src, { thread, load: () => ({ globals: new Map() }) });
  assert.equal(r.ok, r.diagnostics.length === 0);
  // The budget bounds the work: a generated loop stops at the budget rather than running on.
  assert.ok(thread.steps <= BUDGET + 1, `steps ${thread.steps} over the budget`);
  for (const d of r.diagnostics) {
    assert.ok(LANG_CODE_SET.has(d.code), `uncatalogued code ${d.code}: ${d.message}`);
    assert.notEqual(d.code, "internal-error", d.message);
    assert.ok(d.pos && d.pos.line >= 1 && d.pos.col >= 1, `diagnostic without a position: ${d.code} ${d.message}`);
    assert.equal(typeof formatDiagnostic(d, () => src), "string");
  }
  for (const d of parseFile("fuzz.star", src).diagnostics) assert.notEqual(d.code, "internal-error", d.message);
}

test(
  "L-14/L-15: generated programs only ever end in success or positioned, catalogued diagnostics, within the step budget",
  { timeout: 600_000 },
  () => {
    fc.assert(fc.property(program, evaluatesCleanly), { numRuns: RUNS, seed: SEED });
  },
);

test("the generated programs reach the evaluator and its errors, not only the parser", () => {
  const samples = fc.sample(program, { numRuns: 200, seed: 11_2026 });
  let ran = 0;
  let runtimeErrors = 0;
  let syntaxErrors = 0;
  const why = new Map<string, number>();
  for (const src of samples) {
    const r = execFile("fuzz.star", src, { stepBudget: BUDGET, print: () => {} });
    if (r.ok) ran++;
    else if (r.diagnostics.some((d) => ["syntax-error", "lex-error", "undefined-name"].includes(d.code))) {
      syntaxErrors++;
      const d = r.diagnostics[0];
      why.set(d.message, (why.get(d.message) ?? 0) + 1);
    } else runtimeErrors++;
  }
  // Most generated programs are well-formed, so the fuzzing exercises evaluation.
  assert.ok(syntaxErrors < samples.length / 4, `${syntaxErrors} of ${samples.length} did not compile: ${JSON.stringify([...why])}`);
  assert.ok(ran > 10 && runtimeErrors > 10, `ran ${ran}, runtime errors ${runtimeErrors}`);
});
