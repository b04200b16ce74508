// The evaluator: walks the resolved tree. Locals live in slot arrays (captured ones in Cells), so
// names are never looked up by string at run time. Every statement, loop iteration and call is
// charged to the thread's step budget (L-14); recursion is refused (L-11); runtime errors get the
// position of the failing expression and a snapshot of the call stack (L-15).

import { nearestName, type Position, type StackFrame } from "./diagnostic.js";
import type { Arg, CallExpr, Comprehension, Expr, FileAST, FuncInfo, Stmt } from "./ast.js";
import { binaryOp, checkSequenceSize, index, iterableToArray, setIndex, setOp, slice, unaryOp } from "./ops.js";
import { getAttr, callMethod, hasMethod } from "./methods.js";
import {
  Builtin,
  DICT_ENTRY_COST,
  Dict,
  HostObject,
  RangeValue,
  StarError,
  StarFunction,
  StarList,
  StarSet,
  Tuple,
  budgetError,
  freeze,
  truth,
  typeName,
  type CallContext,
  type Cell,
  type LoadHook,
  type ModuleState,
  type Thread,
  type Value,
} from "./values.js";

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
const RETURN = 3;

interface Frame {
  locals: Array<Value | Cell | undefined>;
  fn: StarFunction | null;
  module: ModuleState;
  thread: Thread;
  ret: Value;
}

/** Runs a resolved file's top level. Returns normally or throws StarError (with pos and stack). */
export function execModule(ast: FileAST, module: ModuleState, thread: Thread, load: LoadHook | undefined): void {
  const top = ast.toplevel;
  const fr: Frame = { locals: new Array(top.numLocals), fn: null, module, thread, ret: null };
  for (const s of top.cellSlots) fr.locals[s] = { v: undefined };
  const frameInfo: StackFrame = { name: "<toplevel>", pos: { file: module.file, line: 1, col: 1 } };
  thread.callStack.push(frameInfo);
  const savedLoad = thread.load;
  thread.load = load;
  try {
    execBlock(ast.stmts, fr);
  } catch (e) {
    throw annotate(e, fr, { line: frameInfo.pos.line, col: frameInfo.pos.col });
  } finally {
    thread.load = savedLoad;
    thread.callStack.pop();
  }
  for (const g of module.globals) if (g !== undefined) freeze(g);
}

// ---------------------------------------------------------------------------------------------
// Errors

function posOf(fr: Frame, line: number, col: number): Position {
  return { file: fr.module.file, line, col };
}

/** Gives an error its position (if it has none) and a snapshot of the call stack (once). */
function annotate(e: unknown, fr: Frame, at: { line: number; col: number }): unknown {
  if (e instanceof StarError) {
    if (!e.pos) e.pos = posOf(fr, at.line, at.col);
    if (!e.stack_) {
      const stack = fr.thread.callStack.map((f) => ({ name: f.name, pos: f.pos }));
      if (stack.length > 0) stack[stack.length - 1] = { name: stack[stack.length - 1].name, pos: e.pos };
      e.stack_ = stack;
    }
  } else if (e instanceof RangeError) {
    // The JS engine's limits: recursion depth (deeply nested values) or allocation size.
    const msg = /call stack/i.test(e.message) ? "value or expression nested too deeply" : `value too large (${e.message})`;
    return annotate(new StarError("runtime-error", msg), fr, at);
  }
  return e;
}

function step(thread: Thread): void {
  if (++thread.steps > thread.stepBudget) throw budgetError(thread.stepBudget);
}

// ---------------------------------------------------------------------------------------------
// Statements

function execBlock(stmts: Stmt[], fr: Frame): number {
  for (let i = 0; i < stmts.length; i++) {
    let c: number;
    try {
      c = execStmt(stmts[i], fr);
    } catch (e) {
      throw annotate(e, fr, stmts[i]);
    }
    if (c !== NORMAL) return c;
  }
  return NORMAL;
}

function execStmt(s: Stmt, fr: Frame): number {
  step(fr.thread);
  switch (s.kind) {
    case "expr":
      evalExpr(s.x, fr);
      return NORMAL;
    case "assign":
      assign(s.lhs, evalExpr(s.rhs, fr), fr);
      return NORMAL;
    case "augassign":
      augAssign(s, fr);
      return NORMAL;
    case "if":
      return execBlock(truth(evalExpr(s.cond, fr)) ? s.then : s.else_, fr);
    case "for":
      return execFor(s, fr);
    case "break":
      return BREAK;
    case "continue":
      return CONTINUE;
    case "pass":
      return NORMAL;
    case "return":
      fr.ret = s.x ? evalExpr(s.x, fr) : null;
      return RETURN;
    case "def":
      assign(s.name, makeFunction(s.func, fr), fr);
      return NORMAL;
    case "load":
      execLoad(s, fr);
      return NORMAL;
  }
}

function execLoad(s: Extract<Stmt, { kind: "load" }>, fr: Frame): void {
  const pos = posOf(fr, s.moduleLine, s.moduleCol);
  const top = fr.thread.callStack[fr.thread.callStack.length - 1];
  if (top) top.pos = pos;
  const load = fr.thread.load;
  if (!load) throw new StarError("load-error", `cannot load ${JSON.stringify(s.module)}: load is not available here`, { pos });
  let globals: Map<string, Value>;
  try {
    globals = load(s.module, pos, fr.thread);
  } catch (e) {
    if (e instanceof StarError && !e.pos) e.pos = pos;
    throw e;
  }
  for (const [id, orig, at] of s.names) {
    const v = globals.get(orig);
    if (v === undefined) {
      const near = nearestName(
        orig,
        [...globals.keys()].filter((k) => !k.startsWith("_")),
      );
      throw new StarError(
        "load-error",
        `module ${JSON.stringify(s.module)} has no symbol '${orig}'${near ? ` (did you mean '${near}'?)` : ""}`,
        { pos: posOf(fr, at.line, at.col) },
      );
    }
    assign(id, v, fr);
  }
}

function execFor(s: Extract<Stmt, { kind: "for" }>, fr: Frame): number {
  const it = evalExpr(s.iter, fr);
  const thread = fr.thread;
  if (it instanceof RangeValue) {
    const n = it.length;
    for (let i = 0; i < n; i++) {
      step(thread);
      assign(s.vars, it.at(i), fr);
      const c = execBlock(s.body, fr);
      if (c === BREAK) break;
      if (c === RETURN) return c;
    }
    return NORMAL;
  }
  const lockable = it instanceof StarList || it instanceof Dict || it instanceof StarSet ? it : undefined;
  let elems: readonly Value[];
  try {
    elems = iterableToArray(it, thread);
  } catch (e) {
    throw annotate(e, fr, s.iter);
  }
  if (lockable) lockable.iterating++;
  try {
    for (let i = 0; i < elems.length; i++) {
      step(thread);
      assign(s.vars, elems[i], fr);
      const c = execBlock(s.body, fr);
      if (c === BREAK) break;
      if (c === RETURN) return c;
    }
  } finally {
    if (lockable) lockable.iterating--;
  }
  return NORMAL;
}

function assign(lhs: Expr, v: Value, fr: Frame): void {
  switch (lhs.kind) {
    case "ident": {
      const b = lhs.binding;
      switch (b.kind) {
        case "local":
          fr.locals[b.index] = v;
          return;
        case "cell":
          (fr.locals[b.index] as Cell).v = v;
          return;
        case "free":
          fr.fn!.freevars[b.index].v = v;
          return;
        case "global":
          fr.module.globals[b.index] = v;
          return;
        default:
          throw new StarError("runtime-error", `cannot assign to '${lhs.name}'`, { pos: posOf(fr, lhs.line, lhs.col) });
      }
    }
    case "paren":
      assign(lhs.x, v, fr);
      return;
    case "tuple":
    case "list": {
      let elems: readonly Value[];
      try {
        if (typeof v === "string")
          throw new StarError("type-error", "cannot unpack a string", { hint: "use s.elems() to unpack its characters" });
        elems = iterableToArray(v, fr.thread);
      } catch (e) {
        throw annotate(e, fr, lhs);
      }
      if (elems.length !== lhs.elems.length)
        throw annotate(
          new StarError(
            "runtime-error",
            `${elems.length < lhs.elems.length ? "not enough" : "too many"} values to unpack (got ${elems.length}, want ${lhs.elems.length})`,
          ),
          fr,
          lhs,
        );
      for (let i = 0; i < elems.length; i++) assign(lhs.elems[i], elems[i], fr);
      return;
    }
    case "index": {
      const x = evalExpr(lhs.x, fr);
      const k = evalExpr(lhs.index, fr);
      try {
        if (x instanceof Dict) fr.thread.alloc(DICT_ENTRY_COST);
        setIndex(x, k, v);
      } catch (e) {
        throw annotate(e, fr, lhs);
      }
      return;
    }
    case "dot": {
      const x = evalExpr(lhs.x, fr);
      throw annotate(
        new StarError("type-error", `cannot set field '${lhs.name}' of a ${typeName(x)} value`, {
          hint: typeName(x) === "struct" ? "structs are immutable; build a new one with struct(...)" : undefined,
        }),
        fr,
        { line: lhs.nameLine, col: lhs.nameCol },
      );
    }
    default:
      throw annotate(new StarError("runtime-error", "invalid assignment target"), fr, lhs);
  }
}

function augAssign(s: Extract<Stmt, { kind: "augassign" }>, fr: Frame): void {
  const lhs = s.lhs;
  const at = { line: s.line, col: s.col };
  if (lhs.kind === "index") {
    const x = evalExpr(lhs.x, fr);
    const k = evalExpr(lhs.index, fr);
    try {
      const old = index(x, k);
      const nv = augmented(s.op, old, evalExpr(s.rhs, fr), fr.thread);
      setIndex(x, k, nv);
    } catch (e) {
      throw annotate(e, fr, at);
    }
    return;
  }
  const old = evalExpr(lhs, fr);
  const rhs = evalExpr(s.rhs, fr);
  let nv: Value;
  try {
    nv = augmented(s.op, old, rhs, fr.thread);
  } catch (e) {
    throw annotate(e, fr, at);
  }
  if (nv !== old) assign(lhs, nv, fr);
}

/** x op= y: for lists, += extends in place and for dicts |= updates in place (Starlark semantics); otherwise x = x op y. */
function augmented(op: Parameters<typeof binaryOp>[0], old: Value, rhs: Value, thread: Thread): Value {
  if (op === "+" && old instanceof StarList) {
    old.checkMutable("extend");
    const add = iterableToArray(rhs, thread);
    if (!(rhs instanceof StarList || rhs instanceof Tuple)) {
      throw new StarError("type-error", `unsupported operand types for +=: list and ${typeName(rhs)}`);
    }
    checkSequenceSize(old.elems.length + add.length);
    thread.alloc(add.length);
    for (const e of add) old.elems.push(e);
    return old;
  }
  if (old instanceof StarSet && rhs instanceof StarSet && (op === "|" || op === "&" || op === "-" || op === "^")) {
    // s |= t (and &=, -=, ^=) changes s in place, like the matching set methods.
    old.checkMutable("update");
    const result = setOp(op, old, rhs).elems();
    thread.alloc(rhs.size);
    old.clear();
    for (const e of result) old.add(e);
    return old;
  }
  if (op === "|" && old instanceof Dict && rhs instanceof Dict) {
    old.checkMutable("update");
    thread.alloc(DICT_ENTRY_COST * rhs.size);
    for (const [k, v] of rhs.entries()) old.set(k, v);
    return old;
  }
  return binaryOp(op, old, rhs, thread);
}

// ---------------------------------------------------------------------------------------------
// Expressions

// eslint-disable-next-line max-lines-per-function -- a parser's dispatch: one case per expression kind, clearest side by side
function evalExpr(x: Expr, fr: Frame): Value {
  switch (x.kind) {
    case "literal":
      return x.value;
    case "ident":
      return lookup(x, fr);
    case "binary": {
      if (x.op === "and") {
        const l = evalExpr(x.x, fr);
        return truth(l) ? evalExpr(x.y, fr) : l;
      }
      if (x.op === "or") {
        const l = evalExpr(x.x, fr);
        return truth(l) ? l : evalExpr(x.y, fr);
      }
      const l = evalExpr(x.x, fr);
      const r = evalExpr(x.y, fr);
      try {
        return binaryOp(x.op, l, r, fr.thread);
      } catch (e) {
        throw annotate(e, fr, { line: x.opLine, col: x.opCol });
      }
    }
    case "call":
      return evalCall(x, fr);
    case "dot": {
      const v = evalExpr(x.x, fr);
      try {
        return getAttr(v, x.name, posOf(fr, x.nameLine, x.nameCol));
      } catch (e) {
        throw annotate(e, fr, { line: x.nameLine, col: x.nameCol });
      }
    }
    case "index": {
      const v = evalExpr(x.x, fr);
      const k = evalExpr(x.index, fr);
      try {
        return index(v, k);
      } catch (e) {
        throw annotate(e, fr, x);
      }
    }
    case "slice": {
      const v = evalExpr(x.x, fr);
      const lo = x.lo ? evalExpr(x.lo, fr) : null;
      const hi = x.hi ? evalExpr(x.hi, fr) : null;
      const st = x.step ? evalExpr(x.step, fr) : null;
      try {
        const out = slice(v, lo, hi, st);
        if (typeof out === "string") fr.thread.allocString(out.length);
        else if (out instanceof StarList || out instanceof Tuple) fr.thread.alloc(out.elems.length);
        return out;
      } catch (e) {
        throw annotate(e, fr, x);
      }
    }
    case "list": {
      allocAt(fr, x, x.elems.length);
      const out: Value[] = new Array(x.elems.length);
      for (let i = 0; i < x.elems.length; i++) out[i] = evalExpr(x.elems[i], fr);
      return new StarList(out);
    }
    case "tuple": {
      allocAt(fr, x, x.elems.length);
      const out: Value[] = new Array(x.elems.length);
      for (let i = 0; i < x.elems.length; i++) out[i] = evalExpr(x.elems[i], fr);
      return new Tuple(out);
    }
    case "dict": {
      allocAt(fr, x, DICT_ENTRY_COST * x.entries.length);
      const d = new Dict();
      for (const [kx, vx] of x.entries) {
        const k = evalExpr(kx, fr);
        const v = evalExpr(vx, fr);
        try {
          if (d.has(k))
            throw new StarError("runtime-error", `duplicate key ${typeof k === "string" ? JSON.stringify(k) : String(k)} in dict literal`);
          d.setFresh(k, v);
        } catch (e) {
          throw annotate(e, fr, kx);
        }
      }
      return d;
    }
    case "paren":
      return evalExpr(x.x, fr);
    case "unary": {
      const v = evalExpr(x.x, fr);
      try {
        return unaryOp(x.op, v);
      } catch (e) {
        throw annotate(e, fr, x);
      }
    }
    case "cond":
      return truth(evalExpr(x.cond, fr)) ? evalExpr(x.then, fr) : evalExpr(x.else_, fr);
    case "comprehension":
      return evalComprehension(x, fr);
    case "lambda":
      return makeFunction(x.func, fr);
  }
}

function lookup(x: Extract<Expr, { kind: "ident" }>, fr: Frame): Value {
  const b = x.binding;
  let v: Value | Cell | undefined;
  switch (b.kind) {
    case "local":
      v = fr.locals[b.index] as Value | undefined;
      break;
    case "cell":
      v = (fr.locals[b.index] as Cell).v;
      break;
    case "free":
      v = fr.fn!.freevars[b.index].v;
      break;
    case "global":
      v = fr.module.globals[b.index];
      if (v === undefined)
        throw annotate(
          new StarError("unbound-variable", `global variable '${x.name}' is used before it is assigned`, {
            hint: "move the assignment above this use",
          }),
          fr,
          x,
        );
      return v;
    case "predeclared":
      return fr.module.predeclared[x.name];
    case "universal":
      return fr.module.universe.get(x.name)!;
    case "unresolved":
      throw annotate(new StarError("undefined-name", `undefined name '${x.name}'`), fr, x);
  }
  if (v === undefined)
    throw annotate(
      new StarError("unbound-variable", `local variable '${x.name}' is used before it is assigned`, {
        hint: "a name assigned anywhere in a function is local to the whole function",
      }),
      fr,
      x,
    );
  return v as Value;
}

function evalComprehension(c: Comprehension, fr: Frame): Value {
  if (c.dict) {
    const d = new Dict();
    compLoop(c, 0, fr, (frame) => {
      const k = evalExpr(c.key!, frame);
      const v = evalExpr(c.body, frame);
      try {
        d.setFresh(k, v);
      } catch (e) {
        throw annotate(e, frame, c.key!);
      }
      allocAt(frame, c, DICT_ENTRY_COST);
    });
    return d;
  }
  const out: Value[] = [];
  compLoop(c, 0, fr, (frame) => {
    const v = evalExpr(c.body, frame);
    allocAt(frame, c, 1);
    out.push(v);
  });
  return new StarList(out);
}

/** Counts n new elements made by the expression `at`; a budget error points at it. */
function allocAt(fr: Frame, at: { line: number; col: number }, n: number): void {
  try {
    fr.thread.alloc(n);
  } catch (e) {
    throw annotate(e, fr, at);
  }
}

function compLoop(c: Comprehension, i: number, fr: Frame, emit: (fr: Frame) => void): void {
  if (i === c.clauses.length) {
    emit(fr);
    return;
  }
  const cl = c.clauses[i];
  if (cl.kind === "if") {
    if (truth(evalExpr(cl.cond, fr))) compLoop(c, i + 1, fr, emit);
    return;
  }
  const it = evalExpr(cl.iter, fr);
  const thread = fr.thread;
  if (it instanceof RangeValue) {
    const n = it.length;
    for (let k = 0; k < n; k++) {
      step(thread);
      assign(cl.vars, it.at(k), fr);
      compLoop(c, i + 1, fr, emit);
    }
    return;
  }
  let elems: readonly Value[];
  try {
    elems = iterableToArray(it, thread);
  } catch (e) {
    throw annotate(e, fr, cl.iter);
  }
  const lockable = it instanceof StarList || it instanceof Dict || it instanceof StarSet ? it : undefined;
  if (lockable) lockable.iterating++;
  try {
    for (let k = 0; k < elems.length; k++) {
      step(thread);
      assign(cl.vars, elems[k], fr);
      compLoop(c, i + 1, fr, emit);
    }
  } finally {
    if (lockable) lockable.iterating--;
  }
}

function makeFunction(info: FuncInfo, fr: Frame): StarFunction {
  const defaults: Array<Value | undefined> = new Array(info.paramNames.length);
  for (const p of info.params) {
    if (p.default) defaults[info.paramNames.indexOf(p.name)] = evalExpr(p.default, fr);
  }
  const free: Cell[] = info.freevars.map((b) =>
    b.kind === "cell" ? (fr.locals[b.index] as Cell) : fr.fn!.freevars[(b as { index: number }).index],
  );
  return new StarFunction(info, defaults as Value[], free, fr.module);
}

// ---------------------------------------------------------------------------------------------
// Calls

function evalCall(x: CallExpr, fr: Frame): Value {
  const thread = fr.thread;
  // Method calls on built-in values skip creating a bound-method object.
  let recv: Value | undefined;
  let methodName: string | undefined;
  let fn: Value | undefined;
  if (x.fn.kind === "dot") {
    const r = evalExpr(x.fn.x, fr);
    if (hasMethod(r, x.fn.name)) {
      recv = r;
      methodName = x.fn.name;
    } else {
      try {
        fn = getAttr(r, x.fn.name, posOf(fr, x.fn.nameLine, x.fn.nameCol));
      } catch (e) {
        throw annotate(e, fr, { line: x.fn.nameLine, col: x.fn.nameCol });
      }
    }
  } else fn = evalExpr(x.fn, fr);

  const args: Value[] = [];
  let kwargs: Array<[string, Value]> = EMPTY_KWARGS;
  let dynamicPositions = false;
  for (const a of x.args) {
    switch (a.kind) {
      case "pos":
        args.push(evalExpr(a.value, fr));
        break;
      case "named":
        if (kwargs === EMPTY_KWARGS) kwargs = [];
        kwargs.push([a.name!, evalExpr(a.value, fr)]);
        break;
      case "star": {
        dynamicPositions = true;
        const v = evalExpr(a.value, fr);
        let elems: readonly Value[];
        try {
          if (!(v instanceof StarList || v instanceof Tuple || v instanceof RangeValue || v instanceof Dict || v instanceof StarSet))
            throw new StarError("type-error", `argument after * must be iterable, not ${typeName(v)}`);
          elems = iterableToArray(v, thread);
        } catch (e) {
          throw annotate(e, fr, a);
        }
        for (const e of elems) args.push(e);
        break;
      }
      case "starstar": {
        dynamicPositions = true;
        const v = evalExpr(a.value, fr);
        if (!(v instanceof Dict))
          throw annotate(new StarError("type-error", `argument after ** must be a dict, not ${typeName(v)}`), fr, a);
        if (kwargs === EMPTY_KWARGS) kwargs = [];
        for (const [k, val] of v.entries()) {
          if (typeof k !== "string") throw annotate(new StarError("type-error", `keywords must be strings, not ${typeName(k)}`), fr, a);
          if (kwargs.some(([n]) => n === k))
            throw annotate(new StarError("duplicate-argument", `got multiple values for keyword argument '${k}'`), fr, a);
          kwargs.push([k, val]);
        }
        break;
      }
    }
  }

  const top = thread.callStack[thread.callStack.length - 1];
  const callPos = callPosition(x, fr);
  if (top) top.pos = callPos;
  step(thread);
  try {
    if (methodName !== undefined) return callMethod(recv!, methodName, makeContext(x, fr, callPos, dynamicPositions), args, kwargs);
    return callValue(fn!, args, kwargs, thread, () => makeContext(x, fr, callPos, dynamicPositions));
  } catch (e) {
    if (e instanceof StarError && !e.pos && e.argument && !dynamicPositions) {
      // A bad argument to a def or lambda: point at that argument rather than at the callee.
      const { keyword, index } = e.argument;
      const a =
        keyword !== undefined
          ? x.args.find((g) => g.kind === "named" && g.name === keyword)
          : x.args.filter((g) => g.kind === "pos")[index!];
      if (a) e.pos = posOf(fr, a.line, a.col);
    }
    throw annotate(e, fr, x);
  }
}

const EMPTY_KWARGS: Array<[string, Value]> = [];

interface CallPosCache {
  pos?: Position;
  argPositions?: Position[];
  kwargPositions?: Record<string, Position>;
}

// A syntax tree belongs to one execution of one file, so positions can be cached on its nodes.
function callPosition(x: CallExpr, fr: Frame): Position {
  const c = x as CallExpr & CallPosCache;
  if (!c.pos) c.pos = posOf(fr, x.line, x.col);
  return c.pos;
}

function makeContext(x: CallExpr, fr: Frame, pos: Position, dynamic: boolean): CallContext {
  const c = x as CallExpr & CallPosCache;
  if (!dynamic && c.argPositions) {
    return { pos, argPositions: c.argPositions, kwargPositions: c.kwargPositions!, thread: fr.thread };
  }
  const argPositions: Position[] = [];
  const kwargPositions: Record<string, Position> = {};
  for (const a of x.args as Arg[]) {
    if (a.kind === "pos") argPositions.push(posOf(fr, a.line, a.col));
    else if (a.kind === "named") kwargPositions[a.name!] = posOf(fr, a.line, a.col);
  }
  if (!dynamic) {
    c.argPositions = argPositions;
    c.kwargPositions = kwargPositions;
  }
  return { pos, argPositions, kwargPositions, thread: fr.thread };
}

/** Calls any callable value. `ctx` builds the CallContext for built-ins (positions). */
export function callValue(fn: Value, args: Value[], kwargs: Array<[string, Value]>, thread: Thread, ctx: () => CallContext): Value {
  if (fn instanceof StarFunction) return callStarFunction(fn, args, kwargs, thread);
  if (fn instanceof Builtin) {
    const v = fn.impl(ctx(), args, kwargs);
    return v === undefined ? null : v; // an embedder built-in that returns nothing returns None
  }
  if (fn instanceof HostObject && fn.call) return fn.call(ctx(), args, kwargs);
  throw new StarError("type-error", `${typeName(fn)} value is not callable`);
}

function argumentError(e: StarError, argument: StarError["argument"]): StarError {
  e.argument = argument;
  return e;
}

/** Calls a Starlark function: binds arguments to parameters (L-11: no recursion), runs the body in a fresh frame, returns its value. */
// eslint-disable-next-line max-lines-per-function -- binding arguments to parameters is one rule of the Starlark spec, kept in one place
export function callStarFunction(fn: StarFunction, args: Value[], kwargs: Array<[string, Value]>, thread: Thread): Value {
  const code = fn.code;
  if (thread.active.has(code)) {
    throw new StarError("recursion", `function ${fn.name} called recursively`, {
      hint: "Starlark does not allow recursion (L-11); rewrite it with a loop over a bounded range",
    });
  }
  const locals: Array<Value | Cell | undefined> = new Array(code.numLocals);
  const np = code.numPositional;
  const nParams = code.paramNames.length;
  const name = fn.name;
  if (args.length > np) {
    if (code.varargsSlot < 0)
      throw argumentError(
        new StarError(
          "too-many-arguments",
          `${name}() accepts ${np === 0 ? "no" : `at most ${np}`} positional argument${np === 1 ? "" : "s"} (${args.length} given)`,
        ),
        { index: np },
      );
    locals[code.varargsSlot] = new Tuple(args.slice(np));
    for (let i = 0; i < np; i++) locals[i] = args[i];
  } else {
    for (let i = 0; i < args.length; i++) locals[i] = args[i];
    if (code.varargsSlot >= 0) locals[code.varargsSlot] = new Tuple([]);
  }
  let extra: Dict | undefined;
  if (code.kwargsSlot >= 0) {
    extra = new Dict();
    locals[code.kwargsSlot] = extra;
  }
  for (let k = 0; k < kwargs.length; k++) {
    const [key, v] = kwargs[k];
    const idx = code.paramNames.indexOf(key);
    if (idx >= 0) {
      if (locals[idx] !== undefined)
        throw argumentError(new StarError("duplicate-argument", `${name}() got multiple values for parameter '${key}'`), { keyword: key });
      locals[idx] = v;
    } else if (extra) {
      if (extra.has(key))
        throw argumentError(new StarError("duplicate-argument", `${name}() got multiple values for keyword argument '${key}'`), {
          keyword: key,
        });
      extra.setFresh(key, v);
    } else {
      const near = nearestName(key, code.paramNames);
      throw argumentError(
        new StarError(
          "unknown-argument",
          `${name}() got an unexpected keyword argument '${key}'${near ? ` (did you mean '${near}'?)` : ""}`,
          { hint: `it accepts: ${code.paramNames.join(", ") || "no keyword arguments"}` },
        ),
        { keyword: key },
      );
    }
  }
  for (let i = 0; i < nParams; i++) {
    if (locals[i] === undefined) {
      const d = fn.defaults[i] as Value | undefined;
      if (d === undefined) {
        const kind = i < np ? "argument" : "keyword-only argument";
        throw new StarError("missing-argument", `${name}() missing required ${kind} '${code.paramNames[i]}'`);
      }
      locals[i] = d;
    }
  }
  const cells = code.cellSlots;
  for (let i = 0; i < cells.length; i++) locals[cells[i]] = { v: locals[cells[i]] as Value | undefined };
  const fr: Frame = { locals, fn, module: fn.module, thread, ret: null };
  const frameInfo: StackFrame = { name: fn.isLambda ? "lambda" : name, pos: fn.pos };
  thread.callStack.push(frameInfo);
  thread.active.add(code);
  try {
    if (code.expr !== undefined) return evalExpr(code.expr, fr);
    const c = execBlock(code.body, fr);
    return c === RETURN ? fr.ret : null;
  } finally {
    thread.active.delete(code);
    thread.callStack.pop();
  }
}
