// The embedder API (src/plan builds on it): predeclared built-ins with call positions, strict
// argument unpacking, host objects, calling Starlark functions back, threads and JSON conversion.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Builtin,
  DiagnosticError,
  Dict,
  HostObject,
  StarError,
  StarFunction,
  StarList,
  Thread,
  Tuple,
  callFunction,
  execFile,
  fromJSON,
  repr,
  toJSON,
  unpackArgs,
  type CallContext,
  type Position,
  type Value,
} from "../../src/lang/index.js";

class TaskValue extends HostObject {
  readonly starType = "task";
  constructor(readonly name: string) {
    super();
  }
  override attr(name: string, pos: Position): Value | undefined {
    if (name === "name") return this.name;
    if (name === "output") return new FieldRef(this.name, "output", pos);
    return undefined;
  }
  override attrNames(): string[] {
    return ["name", "output"];
  }
  override repr(): string {
    return `<task ${this.name}>`;
  }
  override hashKey(): string {
    return this.name;
  }
}

class FieldRef extends HostObject {
  readonly starType = "field";
  constructor(
    readonly task: string,
    readonly field: string,
    readonly pos: Position,
  ) {
    super();
  }
}

function embedder() {
  const calls: Array<{ values: Record<string, Value>; positions: Record<string, Position>; pos: Position; stack: string[] }> = [];
  const command = new Builtin("command", (call: CallContext, args, kwargs) => {
    const { values, positions } = unpackArgs(call, "command", args, kwargs, ["name", "depends_on?", "run?"]);
    calls.push({ values, positions, pos: call.pos, stack: call.thread.callStack.map((f) => f.name) });
    const n = (call.thread.local.get("count") as number | undefined) ?? 0;
    call.thread.local.set("count", n + 1);
    return new TaskValue(values.name as string);
  });
  return { calls, predeclared: { command } };
}

test("embedder built-ins get the call position, each argument's position, and the call stack", () => {
  const { calls, predeclared } = embedder();
  const src = ["def mk(n):", "    return command(name = n, run = 'x')", "a = mk('a')", "b = command('b', depends_on = [a])"].join("\n");
  const thread = new Thread();
  const r = execFile("pb.star", src, { predeclared, thread });
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[0].pos, { file: "pb.star", line: 2, col: 12 });
  assert.deepEqual(calls[0].positions.name, { file: "pb.star", line: 2, col: 20 });
  assert.deepEqual(calls[0].positions.run, { file: "pb.star", line: 2, col: 30 });
  assert.deepEqual(calls[0].stack, ["<toplevel>", "mk"]);
  assert.deepEqual(calls[1].positions.name, { file: "pb.star", line: 4, col: 13 });
  assert.equal(thread.local.get("count"), 2);
  assert.equal(repr(r.globals.get("b")!), "<task b>");
});

test("unpackArgs: unknown argument names what is accepted and the nearest name, at the argument", () => {
  const { predeclared } = embedder();
  const r = execFile("pb.star", "x = command(\n    name = 'a',\n    dependson = [],\n)", { predeclared });
  assert.equal(r.ok, false);
  const d = r.diagnostics[0];
  assert.equal(d.code, "unknown-argument");
  assert.equal(
    d.message,
    "command() got an unexpected keyword argument 'dependson' (did you mean 'depends_on'?); it accepts: name, depends_on, run",
  );
  assert.deepEqual([d.pos?.line, d.pos?.col], [3, 5]);
  assert.ok(d.stack && d.stack.length === 1);
});

test("unpackArgs: missing, duplicate and too many arguments", () => {
  const { predeclared } = embedder();
  const codes = (src: string) => {
    const r = execFile("pb.star", src, { predeclared });
    return `${r.diagnostics[0]?.code}@${r.diagnostics[0]?.pos?.line}:${r.diagnostics[0]?.pos?.col} ${r.diagnostics[0]?.message}`;
  };
  assert.equal(codes("command(run = 'x')"), "missing-argument@1:1 command() missing required argument 'name'");
  assert.equal(codes("command('a', name = 'b')"), "duplicate-argument@1:14 command() got multiple values for argument 'name'");
  assert.match(codes("command('a', [], 'r', 4)"), /^too-many-arguments@1:23 /);
});

test("host objects: attribute access passes the name's position; missing fields suggest names; hashable keys", () => {
  const { predeclared } = embedder();
  const ok = execFile(
    "pb.star",
    "t = command(name = 'a')\nref = t.output\nd = {t: 1}\nn = t.name\nty = type(t)\nh = hasattr(t, 'nope')\nds = dir(t)",
    { predeclared },
  );
  assert.ok(ok.ok, JSON.stringify(ok.diagnostics));
  const ref = ok.globals.get("ref") as FieldRef;
  assert.deepEqual(ref.pos, { file: "pb.star", line: 2, col: 9 });
  assert.equal(ok.globals.get("n"), "a");
  assert.equal(ok.globals.get("ty"), "task");
  assert.equal(ok.globals.get("h"), false);
  assert.equal(repr(ok.globals.get("ds")!), '["name", "output"]');
  const bad = execFile("pb.star", "t = command(name = 'a')\nx = t.outptu", { predeclared });
  assert.equal(bad.diagnostics[0].code, "attribute-error");
  assert.equal(bad.diagnostics[0].message, "task has no field 'outptu' (did you mean 'output'?)");
  assert.deepEqual([bad.diagnostics[0].pos?.line, bad.diagnostics[0].pos?.col], [2, 7]);
});

test("StarFunction metadata: isTopLevel only for module-level defs; callFunction runs it later", () => {
  const src = [
    "def summarize(input):",
    "    return {'n': len(input['items']), 'first': input['items'][0]}",
    "def outer():",
    "    def inner():",
    "        return 1",
    "    return inner",
    "nested = outer()",
    "lam = lambda x: x",
    "def broken(x):",
    "    return x['missing']",
  ].join("\n");
  const r = execFile("fns.star", src);
  assert.ok(r.ok);
  const summarize = r.globals.get("summarize") as StarFunction;
  assert.equal(summarize.isTopLevel, true);
  assert.equal(summarize.name, "summarize");
  assert.equal(summarize.file, "fns.star");
  assert.deepEqual(summarize.pos, { file: "fns.star", line: 1, col: 1 });
  assert.equal((r.globals.get("nested") as StarFunction).isTopLevel, false);
  assert.equal((r.globals.get("lam") as StarFunction).isLambda, true);
  assert.equal((r.globals.get("lam") as StarFunction).isTopLevel, false);
  const out = callFunction(summarize, [fromJSON({ items: ["x", "y"] })]);
  assert.deepEqual(toJSON(out), { n: 2, first: "x" });
  assert.throws(
    () => callFunction(r.globals.get("broken") as StarFunction, [new Dict()]),
    (e: unknown) =>
      e instanceof DiagnosticError &&
      e.diagnostics[0].code === "key-error" &&
      e.diagnostics[0].pos?.line === 10 &&
      e.diagnostics[0].stack?.[0].name === "broken",
  );
  assert.throws(
    () => callFunction(summarize, []),
    (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0].code === "missing-argument",
  );
});

test("toJSON / fromJSON convert between Starlark values and JSON", () => {
  const v = fromJSON({ a: [1, 2.5, "s", null, true], b: { c: 3 } });
  assert.equal(repr(v), '{"a": [1, 2.5, "s", None, True], "b": {"c": 3}}');
  assert.deepEqual(toJSON(v), { a: [1, 2.5, "s", null, true], b: { c: 3 } });
  assert.deepEqual(toJSON(new Tuple([1n, new StarList([])])), [1, []]);
  const bad = new Dict();
  bad.set(1n, "x");
  assert.throws(() => toJSON(bad), StarError);
  assert.throws(() => toJSON(1n << 80n), StarError);
  const cyclic = new StarList([]);
  cyclic.elems.push(cyclic);
  assert.throws(() => toJSON(cyclic), StarError);
  const proto = new Dict();
  proto.set("__proto__", 1n);
  assert.equal(JSON.stringify(toJSON(proto)), '{"__proto__":1}');
});

test("a shared thread shares the step budget across files; a fresh one starts at zero", () => {
  const thread = new Thread({ stepBudget: 2_000 });
  const loop = "n = 0\nfor i in range(600):\n    n += 1";
  assert.equal(execFile("a.star", loop, { thread }).ok, true);
  const second = execFile("b.star", loop, { thread });
  assert.equal(second.ok, false);
  assert.equal(second.diagnostics[0].code, "step-budget");
  assert.equal(execFile("c.star", loop, { stepBudget: 2_000 }).ok, true);
});

test("predeclared names cannot be reassigned at top level, but may be shadowed by locals", () => {
  const { predeclared } = embedder();
  const r = execFile("pb.star", "command = 1", { predeclared });
  assert.equal(r.diagnostics[0].code, "reassign-builtin");
  assert.equal(execFile("pb.star", "def f():\n    command = 1\n    return command\nx = f()", { predeclared }).ok, true);
});

test("a builtin may call back into Starlark via sorted(key=...) and errors inside keep their stack", () => {
  const r = execFile("k.star", "def key(x):\n    return x['k']\ny = sorted([{'k': 2}, {'j': 1}], key = key)");
  assert.equal(r.diagnostics[0].code, "key-error");
  assert.deepEqual(
    r.diagnostics[0].stack?.map((f) => `${f.name}@${f.pos.line}`),
    ["<toplevel>@3", "key@2"],
  );
});

class Callable extends HostObject {
  readonly starType = "callable_host";
  seen: Value[][] = [];
  override call(_call: CallContext, args: Value[], kwargs: Array<[string, Value]>): Value {
    this.seen.push([...args, ...kwargs.map(([, v]) => v)]);
    return "called";
  }
}

test("a host object with call() is callable, by name or as any expression; one without is not", () => {
  const f = new Callable();
  const r = execFile("pb.star", "x = f(1, k = 'v')\ny = [f][0](2)\n", { predeclared: { f } });
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  assert.equal(r.globals.get("x"), "called");
  assert.deepEqual(f.seen, [[1n, "v"], [2n]]);
  const bad = execFile("pb.star", "x = t()\n", { predeclared: { t: new TaskValue("a") } });
  assert.equal(bad.ok, false);
  assert.match(bad.diagnostics[0].message, /task value is not callable/);
});
