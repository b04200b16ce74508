// Starlark values and the operations every layer needs on them: type names, repr/str, truth,
// equality, ordering, hashing, freezing, JSON conversion, and strict argument unpacking.
// ints are bigints (arbitrary precision), floats are JS numbers, None is null.

import { nearestName, type Position, type StackFrame } from "./diagnostic.js";
import type { FuncInfo } from "./ast.js";
import { formatFloat } from "./numfmt.js";
import { randomUUID } from "node:crypto";
import { CodedError } from "../shared/coded-error.js";
import { itemAt } from "../shared/checked-index.js";

/** A Starlark value: None, bool, int (bigint), float, string, or one of the classes below. */
export type Value =
  null | boolean | bigint | number | string | StarList | Tuple | Dict | StarSet | StarFunction | Builtin | Struct | RangeValue | HostObject;

/** A runtime error raised by built-ins or the evaluator; the evaluator attaches position and stack. */
export class StarError extends CodedError {
  stack_?: StackFrame[];
  /** For an argument error raised without a position: the argument at fault, so the caller can point at it. */
  argument?: { keyword?: string; index?: number };
}

function mutationError(what: string, v: { frozen: boolean }, verb: string): StarError {
  return v.frozen
    ? new StarError("frozen-value", `cannot ${verb} frozen ${what}`, {
        hint: "values are frozen once the module that made them finishes (L-14); make a copy, e.g. list(x) or dict(x)",
      })
    : new StarError("runtime-error", `cannot ${verb} ${what} during iteration`, {
        hint: "build a new collection instead of changing the one being iterated (L-14)",
      });
}

/** A Starlark list: mutable until frozen, and not mutable while being iterated. */
export class StarList {
  elems: Value[];
  frozen = false;
  /** Number of active iterations over this list; mutation is an error while > 0 (L-14). */
  iterating = 0;
  constructor(elems: Value[] = []) {
    this.elems = elems;
  }
  checkMutable(verb = "modify"): void {
    if (this.frozen || this.iterating > 0) throw mutationError("list", this, verb);
  }
}

/** A Starlark tuple: immutable; freezing it freezes its elements. */
export class Tuple {
  readonly elems: readonly Value[];
  /** Its elements are frozen (L-14); a tuple itself is immutable. Kept on the value, as starlark-go does, not in a process-wide set. */
  frozen = false;
  constructor(elems: readonly Value[]) {
    this.elems = elems;
  }
}

/** An insertion-ordered hash map with Starlark key semantics (1 == 1.0 are the same key). */
export class Dict {
  private readonly map = new Map<string | number | boolean | bigint | null, [Value, Value]>();
  frozen = false;
  iterating = 0;
  get size(): number {
    return this.map.size;
  }
  get(k: Value): Value | undefined {
    const e = this.map.get(hashKey(k));
    return e === undefined ? undefined : e[1];
  }
  has(k: Value): boolean {
    return this.map.has(hashKey(k));
  }
  set(k: Value, v: Value): void {
    this.checkMutable("insert into");
    const h = hashKey(k);
    const e = this.map.get(h);
    if (e) e[1] = v;
    else this.map.set(h, [k, v]);
  }
  /** Sets without the mutability check: for building fresh dicts in built-ins. */
  setFresh(k: Value, v: Value): void {
    const h = hashKey(k);
    const e = this.map.get(h);
    if (e) e[1] = v;
    else this.map.set(h, [k, v]);
  }
  delete(k: Value): Value | undefined {
    this.checkMutable("delete from");
    const h = hashKey(k);
    const e = this.map.get(h);
    if (e === undefined) return undefined;
    this.map.delete(h);
    return e[1];
  }
  clear(): void {
    this.checkMutable("clear");
    this.map.clear();
  }
  keys(): Value[] {
    const out: Value[] = [];
    for (const e of this.map.values()) out.push(e[0]);
    return out;
  }
  values(): Value[] {
    const out: Value[] = [];
    for (const e of this.map.values()) out.push(e[1]);
    return out;
  }
  entries(): Array<[Value, Value]> {
    const out: Array<[Value, Value]> = [];
    for (const e of this.map.values()) out.push([e[0], e[1]]);
    return out;
  }
  checkMutable(verb = "modify"): void {
    if (this.frozen || this.iterating > 0) throw mutationError("dict", this, verb);
  }
  static fromEntries(entries: Iterable<[Value, Value]>): Dict {
    const d = new Dict();
    for (const [k, v] of entries) d.setFresh(k, v);
    return d;
  }
}

/**
 * set(x): an insertion-ordered collection of unique hashable values, with the same key identity as
 * dicts (1 and 1.0 are one element). Mutable until frozen; unhashable itself, as in Go Starlark.
 */
export class StarSet {
  private readonly map = new Map<string | number | boolean | bigint | null, Value>();
  frozen = false;
  iterating = 0;
  constructor(elems: Iterable<Value> = []) {
    for (const e of elems) {
      const h = hashKey(e);
      if (!this.map.has(h)) this.map.set(h, e);
    }
  }
  get size(): number {
    return this.map.size;
  }
  has(v: Value): boolean {
    return this.map.has(hashKey(v));
  }
  add(v: Value): void {
    this.checkMutable("insert into");
    const h = hashKey(v);
    if (!this.map.has(h)) this.map.set(h, v);
  }
  /** Removes v; returns whether it was there. */
  delete(v: Value): boolean {
    this.checkMutable("delete from");
    return this.map.delete(hashKey(v));
  }
  clear(): void {
    this.checkMutable("clear");
    this.map.clear();
  }
  elems(): Value[] {
    return [...this.map.values()];
  }
  checkMutable(verb = "modify"): void {
    if (this.frozen || this.iterating > 0) throw mutationError("set", this, verb);
  }
}

/** struct(a = 1): an immutable record with named fields. */
export class Struct {
  readonly fields: Map<string, Value>;
  /** Its fields' values are frozen (L-14). */
  frozen = false;
  constructor(fields: Map<string, Value>) {
    this.fields = fields;
  }
}

/** range(start, stop, step): lazy and indexable. */
export class RangeValue {
  constructor(
    readonly start: bigint,
    readonly stop: bigint,
    readonly step: bigint,
  ) {}
  /** Exact length (ranges may be longer than 2^53). */
  get lengthBig(): bigint {
    const { start, stop, step } = this;
    if (step > 0n) return start < stop ? (stop - start + step - 1n) / step : 0n;
    return start > stop ? (start - stop - step - 1n) / -step : 0n;
  }
  get length(): number {
    return Number(this.lengthBig);
  }
  at(i: number): bigint {
    return this.start + BigInt(i) * this.step;
  }
}

/** Interpreter-side state of a function value; the evaluator owns its meaning. */
export interface Cell {
  v: Value | undefined;
}

/** A `def` or `lambda`. */
export class StarFunction {
  readonly name: string;
  readonly file: string;
  readonly isLambda: boolean;
  readonly isTopLevel: boolean;
  readonly pos: Position;
  /** Resolved code, defaults (evaluated at def time), captured cells, and the defining module. */
  readonly code: FuncInfo;
  readonly defaults: Value[];
  readonly freevars: Cell[];
  readonly module: ModuleState;
  /** Its defaults and captured values are frozen (L-14). */
  frozen = false;
  /** Its identity as a dict key (see identityKey). */
  identity?: string;
  constructor(code: FuncInfo, defaults: Value[], freevars: Cell[], module: ModuleState) {
    this.code = code;
    this.name = code.name;
    this.file = module.file;
    this.isLambda = code.isLambda;
    this.isTopLevel = code.isTopLevel;
    this.pos = { file: module.file, line: code.line, col: code.col };
    this.defaults = defaults;
    this.freevars = freevars;
    this.module = module;
  }
  /** Parameter names in declaration order (for error messages and the embedder). */
  get paramNames(): string[] {
    return this.code.params.map((p) => p.name);
  }
}

/** A module's global variables while it runs (and after, frozen). */
export interface ModuleState {
  file: string;
  globals: Array<Value | undefined>;
  globalNames: string[];
  predeclared: Record<string, Value>;
  /** The universe built-ins (L-13), handed in by the embedder so the evaluator need not import them. */
  universe: ReadonlyMap<string, Value>;
}

/** A built-in's implementation: gets the call's context, positional and keyword arguments. */
export type BuiltinImpl = (call: CallContext, args: Value[], kwargs: Array<[string, Value]>) => Value;

/** A built-in function or bound method, callable from Starlark. */
export class Builtin {
  readonly name: string;
  readonly impl: BuiltinImpl;
  /** For bound methods (`"x".upper`): the receiver. */
  readonly recv?: Value;
  /** Its identity as a dict key (see identityKey). */
  identity?: string;
  constructor(name: string, impl: BuiltinImpl, recv?: Value) {
    this.name = name;
    this.impl = impl;
    this.recv = recv;
  }
}

/** Base class for values that the embedder (src/plan) defines: task values, field references, questions. */
export abstract class HostObject {
  abstract readonly starType: string;
  /** x.name; undefined → error "has no field". */
  attr(_name: string, _pos: Position): Value | undefined {
    return undefined;
  }
  attrNames(): string[] {
    return [];
  }
  /** f(...) on the object; undefined (the default) means the object is not callable. */
  call?(call: CallContext, args: Value[], kwargs: Array<[string, Value]>): Value;
  truth(): boolean {
    return true;
  }
  repr(): string {
    return `<${this.starType}>`;
  }
  /** undefined → unhashable. */
  hashKey(): string | undefined {
    return undefined;
  }
  freeze(): void {}
}

/** s.elems(): an iterable view of a string's elements (UTF-16 code units), type "string.elems". */
export class StringElems extends HostObject {
  readonly starType = "string.elems";
  constructor(readonly s: string) {
    super();
  }
  elems(): string[] {
    return this.s.split("");
  }
  override truth(): boolean {
    return this.s.length > 0;
  }
  override repr(): string {
    return quoteString(this.s) + ".elems()";
  }
}

/** What a built-in is called with besides its arguments: positions for diagnostics, and the thread (budgets, stack). */
export interface CallContext {
  pos: Position;
  argPositions: Position[];
  kwargPositions: Record<string, Position>;
  thread: Thread;
}

const DEFAULT_STEP_BUDGET = 10_000_000;

/** What `load("module", ...)` calls: the module's exported globals. */
export type LoadHook = (module: string, pos: Position, thread: Thread) => Map<string, Value>;

/**
 * How many collection elements (list, tuple and set elements, dict entries as three; 16 string
 * characters count as one) one evaluation may create in all (L-14). A million small ints take about 50 MB, so the
 * default stops a runaway comprehension such as `[i for i in range(10**8)]` at a few hundred MB,
 * long before the step budget would; ordinary playbooks create far fewer.
 */
export const DEFAULT_ALLOC_BUDGET = 5_000_000;

/** A dict entry holds a key, a value and the entry itself: it counts as three elements. */
export const DICT_ENTRY_COST = 3;

/** One execution's state: step and allocation budgets, the call stack, active functions (no recursion), and the embedder's slot. */
export class Thread {
  /** Free slot for the embedder (src/plan stores its compilation context here). */
  local = new Map<string, unknown>();
  /** Live frames, outermost first; each frame's pos is its current call site while it calls. */
  readonly callStack: StackFrame[] = [];
  stepBudget: number;
  steps = 0;
  allocBudget: number;
  /** Collection elements created so far (see DEFAULT_ALLOC_BUDGET). */
  allocated = 0;
  print: (msg: string) => void;
  /** Functions currently executing, for the no-recursion rule. */
  readonly active = new Set<FuncInfo>();
  /**
   * Resolves `load` for the file executing on this thread (set by the evaluator around each
   * file, as starlark-go keeps Thread.Load), so two threads never share a loader.
   */
  load: LoadHook | undefined;
  constructor(opts?: { stepBudget?: number; allocBudget?: number; print?: (msg: string) => void }) {
    this.stepBudget = opts?.stepBudget ?? DEFAULT_STEP_BUDGET;
    this.allocBudget = opts?.allocBudget ?? DEFAULT_ALLOC_BUDGET;
    this.print = opts?.print ?? ((msg) => process.stdout.write(msg + "\n"));
  }
  /** Charges n steps of the budget (L-14). */
  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.stepBudget) throw budgetError(this.stepBudget);
  }
  /** Counts n new collection elements against the allocation budget (L-14). */
  alloc(n: number): void {
    this.allocated += n;
    if (this.allocated > this.allocBudget) throw allocBudgetError(this.allocBudget);
  }
  /** Counts a new string of the given length (16 characters as one element). */
  allocString(length: number): void {
    if (length >= 16) this.alloc(length >> 4);
  }
}

function allocBudgetError(budget: number): StarError {
  return new StarError(
    "alloc-budget",
    `evaluation created more than ${budget.toLocaleString("en-US")} list, tuple, dict and set elements`,
    { hint: "look for a comprehension or loop that builds far larger collections than intended" },
  );
}

/** The error for a run that used up its step budget (L-14), with a hint to look for a runaway loop. */
export function budgetError(budget: number): StarError {
  return new StarError("step-budget", `evaluation exceeded the step budget of ${budget.toLocaleString("en-US")} operations (L-14)`, {
    hint: "look for a loop or comprehension that runs far more often than intended",
  });
}

// ---------------------------------------------------------------------------------------------
// Type names, truth, repr, str

/** The Starlark type name of a value (`int`, `list`, `NoneType`, …), as `type(v)` returns it. */
export function typeName(v: Value): string {
  if (v === null) return "NoneType";
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "string":
      return "string";
  }
  if (v instanceof StarList) return "list";
  if (v instanceof Tuple) return "tuple";
  if (v instanceof Dict) return "dict";
  if (v instanceof StarSet) return "set";
  if (v instanceof StarFunction) return "function";
  if (v instanceof Builtin) return "builtin_function_or_method";
  if (v instanceof Struct) return "struct";
  if (v instanceof RangeValue) return "range";
  return (v as HostObject).starType;
}

/** A value's truth: None, False, 0, 0.0, "" and empty containers are false. */
export function truth(v: Value): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case "boolean":
      return v;
    case "bigint":
      return v !== 0n;
    case "number":
      return v !== 0;
    case "string":
      return v.length > 0;
  }
  if (v instanceof StarList) return v.elems.length > 0;
  if (v instanceof Tuple) return v.elems.length > 0;
  if (v instanceof Dict) return v.size > 0;
  if (v instanceof StarSet) return v.size > 0;
  if (v instanceof RangeValue) return v.length > 0;
  if (v instanceof HostObject) return v.truth();
  return true;
}

function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + '"';
}

/** A value's Starlark representation (`repr(v)`); cyclic values print `[...]` instead of recursing. */
export function repr(v: Value): string {
  return reprInto(v, new Set());
}

function reprInto(v: Value, seen: Set<object>): string {
  if (v === null) return "None";
  switch (typeof v) {
    case "boolean":
      return v ? "True" : "False";
    case "bigint":
      return v.toString();
    case "number":
      return formatFloat(v);
    case "string":
      return quoteString(v);
  }
  if (seen.has(v)) return v instanceof StarList ? "[...]" : v instanceof Dict ? "{...}" : "...";
  if (v instanceof StarList) {
    seen.add(v);
    const s = "[" + v.elems.map((e) => reprInto(e, seen)).join(", ") + "]";
    seen.delete(v);
    return s;
  }
  if (v instanceof Tuple) {
    seen.add(v);
    const inner = v.elems.map((e) => reprInto(e, seen));
    seen.delete(v);
    return inner.length === 1 ? `(${inner[0]},)` : `(${inner.join(", ")})`;
  }
  if (v instanceof Dict) {
    seen.add(v);
    const s =
      "{" +
      v
        .entries()
        .map(([k, x]) => `${reprInto(k, seen)}: ${reprInto(x, seen)}`)
        .join(", ") +
      "}";
    seen.delete(v);
    return s;
  }
  if (v instanceof StarSet) {
    if (v.size === 0) return "set()";
    seen.add(v);
    const s =
      "set([" +
      v
        .elems()
        .map((e) => reprInto(e, seen))
        .join(", ") +
      "])";
    seen.delete(v);
    return s;
  }
  if (v instanceof Struct) {
    seen.add(v);
    const s = "struct(" + [...v.fields].map(([k, x]) => `${k} = ${reprInto(x, seen)}`).join(", ") + ")";
    seen.delete(v);
    return s;
  }
  if (v instanceof StarFunction) return v.isLambda ? "<function lambda>" : `<function ${v.name}>`;
  if (v instanceof Builtin)
    return v.recv !== undefined ? `<built-in method ${v.name} of ${typeName(v.recv)} value>` : `<built-in function ${v.name}>`;
  if (v instanceof RangeValue) return v.step === 1n ? `range(${v.start}, ${v.stop})` : `range(${v.start}, ${v.stop}, ${v.step})`;
  return (v as HostObject).repr();
}

/** str(x): like repr, except a string is itself. */
export function str(v: Value): string {
  return typeof v === "string" ? v : repr(v);
}

// ---------------------------------------------------------------------------------------------
// Equality, ordering, hashing

/** Starlark `==`: ints and floats compare by value, containers element-wise. */
export function equals(a: Value, b: Value): boolean {
  if (a === b) return true;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === "bigint" || ta === "number") {
    if (tb === "bigint" || tb === "number") return numCompare(a as bigint | number, b as bigint | number) === 0;
    return false;
  }
  if (a === null || b === null || ta !== "object" || tb !== "object") return false;
  if (a instanceof StarList && b instanceof StarList) return seqEquals(a.elems, b.elems);
  if (a instanceof Tuple && b instanceof Tuple) return seqEquals(a.elems, b.elems);
  if (a instanceof Dict && b instanceof Dict) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !equals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof StarSet && b instanceof StarSet) {
    if (a.size !== b.size) return false;
    for (const e of a.elems()) if (!b.has(e)) return false;
    return true;
  }
  if (a instanceof Struct && b instanceof Struct) {
    if (a.fields.size !== b.fields.size) return false;
    for (const [k, v] of a.fields) {
      const w = b.fields.get(k);
      if (w === undefined || !equals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof RangeValue && b instanceof RangeValue) {
    const n = a.length;
    if (n !== b.length) return false;
    if (n === 0) return true;
    return a.start === b.start && (n === 1 || a.step === b.step);
  }
  if (a instanceof HostObject && b instanceof HostObject) {
    const ha = a.hashKey();
    return ha !== undefined && ha === b.hashKey() && a.starType === b.starType;
  }
  return false;
}

function seqEquals(a: readonly Value[], b: readonly Value[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!equals(itemAt(a, i), itemAt(b, i))) return false;
  return true;
}

/** Compares an int or float with an int or float exactly (big ints do not lose precision). */
function numCompare(a: bigint | number, b: bigint | number): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) {
      // Starlark orders NaN above every other float and equal to itself, for a total order.
      if (Number.isNaN(a) && Number.isNaN(b)) return 0;
      return Number.isNaN(a) ? 1 : -1;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }
  // mixed: compare exactly
  const [i, f, sign] =
    typeof a === "bigint" && typeof b === "number" ? [a, b, 1] : typeof b === "bigint" && typeof a === "number" ? [b, a, -1] : [0n, NaN, 1];
  if (Number.isNaN(f)) return -sign;
  if (f === Infinity) return -sign;
  if (f === -Infinity) return sign;
  const fi = Math.trunc(f);
  const bf = BigInt(fi);
  if (i < bf) return -sign;
  if (i > bf) return sign;
  const frac = f - fi;
  return frac > 0 ? -sign : frac < 0 ? sign : 0;
}

/** Ordering for <, <=, sorted, min, max. Throws for values of unlike or unordered types. */
export function compare(a: Value, b: Value): number {
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) return numCompare(a, b);
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof StarList && b instanceof StarList) return seqCompare(a.elems, b.elems);
  if (a instanceof Tuple && b instanceof Tuple) return seqCompare(a.elems, b.elems);
  throw new StarError("type-error", `unsupported comparison: ${typeName(a)} vs ${typeName(b)}`, {
    hint:
      typeName(a) === typeName(b)
        ? `values of type ${typeName(a)} are not ordered`
        : "only values of the same type (or int and float) can be ordered",
  });
}

function seqCompare(a: readonly Value[], b: readonly Value[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = itemAt(a, i);
    const y = itemAt(b, i);
    if (!equals(x, y)) return compare(x, y);
  }
  return a.length - b.length;
}

type HashKey = string | number | boolean | bigint | null;

/** The identity used for dict keys; throws for unhashable values (lists, dicts). */
export function hashKey(v: Value): HashKey {
  if (v === null) return null;
  switch (typeof v) {
    case "boolean":
      return v;
    case "bigint":
      return v;
    case "number":
      // 1.0 and 1 are equal, so they must be the same key.
      if (Number.isInteger(v)) return BigInt(v);
      return Number.isNaN(v) ? "f:nan" : v;
    case "string":
      return "s:" + v;
  }
  return "o:" + objectHash(v);
}

/**
 * A function's hash is its identity (as starlark-go hashes a function by its address): a token
 * kept on the value itself, made when it is first hashed. Not a process-wide counter, so threads
 * share no state; the token is never observable (hash() takes strings, dicts keep insertion order).
 */
function identityKey(f: StarFunction | Builtin): string {
  return (f.identity ??= randomUUID());
}

function objectHash(v: Value): string {
  if (v instanceof Tuple) return "(" + v.elems.map((e) => subHash(e)).join(",") + ")";
  if (v instanceof StarFunction || v instanceof Builtin) return "fn#" + identityKey(v);
  if (v instanceof Struct) return "struct(" + [...v.fields].map(([k, x]) => k + "=" + subHash(x)).join(",") + ")";
  if (v instanceof HostObject) {
    const h = v.hashKey();
    if (h !== undefined) return v.starType + ":" + h;
  }
  throw new StarError("type-error", `unhashable type: ${typeName(v)}`, {
    hint: "dict keys and set elements must be hashable (not list or dict); a tuple of hashable values works",
  });
}

function subHash(v: Value): string {
  const h = hashKey(v);
  return typeof h === "bigint" ? "i" + h : typeof h === "number" ? "f" + h : String(h);
}

// ---------------------------------------------------------------------------------------------
// Freezing and JSON

/** Freezes a value and everything it reaches (L-14), iteratively, so depth cannot overflow the JS stack. */
export function freeze(root: Value): void {
  // Iterative, so arbitrarily deep values cannot overflow the JS stack; each object is queued at
  // most once, so a list holding one value ten million times does not queue it ten million times.
  const work: object[] = [];
  const queued = new Set<object>();
  const push = (e: Value | undefined) => {
    if (e !== null && e !== undefined && typeof e === "object" && !queued.has(e)) {
      queued.add(e);
      work.push(e);
    }
  };
  push(root);
  while (work.length > 0) {
    const v = work.pop()!;
    if (v instanceof StarList) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.elems) push(e);
    } else if (v instanceof Dict) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const [k, x] of v.entries()) {
        push(k);
        push(x);
      }
    } else if (v instanceof StarSet) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.elems()) push(e);
    } else if (v instanceof Tuple) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.elems) push(e);
    } else if (v instanceof Struct) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.fields.values()) push(e);
    } else if (v instanceof StarFunction) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const d of v.defaults) push(d);
      for (const c of v.freevars) push(c.v);
    } else if (v instanceof HostObject) {
      v.freeze();
    }
  }
}

const MAX_JSON_DEPTH = 1000;

/** out[k] = v, also for k = "__proto__" (which plain assignment would treat as the prototype). */
function setOwn(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

/** A value as JSON data: ints beyond the safe-integer range, and functions, are errors, not silent losses. */
export function toJSON(v: Value, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH)
    throw new StarError("type-error", `value is nested more than ${MAX_JSON_DEPTH} levels deep; it cannot be converted to JSON`);
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER))
      throw new StarError("type-error", `int ${v} is too large to convert to JSON`);
    return Number(v);
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new StarError("type-error", `float ${formatFloat(v)} cannot be converted to JSON`);
    return v;
  }
  if (v instanceof StarList || v instanceof Tuple) return v.elems.map((e) => toJSON(e, depth + 1));
  if (v instanceof StarSet) return v.elems().map((e) => toJSON(e, depth + 1));
  if (v instanceof Dict) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.entries()) {
      if (typeof k !== "string") throw new StarError("type-error", `dict key ${repr(k)} is not a string; only string keys convert to JSON`);
      setOwn(out, k, toJSON(x, depth + 1));
    }
    return out;
  }
  if (v instanceof Struct) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.fields) setOwn(out, k, toJSON(x, depth + 1));
    return out;
  }
  throw new StarError("type-error", `a value of type ${typeName(v)} cannot be converted to JSON`);
}

/** JSON data as a Starlark value: whole numbers become ints, objects dicts, arrays lists. */
export function fromJSON(x: unknown): Value {
  if (x === null || x === undefined) return null;
  if (typeof x === "boolean" || typeof x === "string") return x;
  if (typeof x === "number") return Number.isInteger(x) ? BigInt(x) : x;
  if (typeof x === "bigint") return x;
  if (Array.isArray(x)) return new StarList(x.map(fromJSON));
  if (typeof x === "object") {
    const d = new Dict();
    for (const [k, v] of Object.entries(x)) d.setFresh(k, fromJSON(v));
    return d;
  }
  return str(String(x));
}

// ---------------------------------------------------------------------------------------------
// Argument unpacking for built-ins

/**
 * The values of a built-in's parameters by name: a required name (no "?") is always present once
 * unpackArgs has returned, an optional one ("name?") may be absent.
 */
export type ArgValues<P extends readonly string[]> = { [K in P[number] as K extends `${string}?` ? never : K]: Value } & {
  [K in P[number] as K extends `${infer N}?` ? N : never]?: Value;
};

/** Strict argument unpacking: see /tmp/lang-api.md. params: names in order, suffix "?" = optional. */
export function unpackArgs<const P extends readonly string[]>(
  call: CallContext,
  fnName: string,
  args: readonly Value[],
  kwargs: ReadonlyArray<readonly [string, Value]>,
  params: P,
): { values: ArgValues<P>; positions: Record<string, Position> } {
  const values: Record<string, Value> = {};
  const positions: Record<string, Position> = {};
  const n = params.length;
  if (args.length > n) {
    throw new StarError(
      "too-many-arguments",
      n === 0
        ? `${fnName}() takes no arguments (${args.length} given)`
        : `${fnName}() accepts at most ${n} positional argument${n === 1 ? "" : "s"} (${args.length} given)`,
      {
        pos: call.argPositions[n] ?? call.pos,
        hint: n > 0 ? `it accepts: ${paramNames(params).join(", ")}; pass the others by name` : undefined,
      },
    );
  }
  for (const [i, v] of args.entries()) {
    const name = paramName(params[i] ?? "");
    values[name] = v;
    positions[name] = call.argPositions[i] ?? call.pos;
  }
  for (const [key, v] of kwargs) {
    const kpos = call.kwargPositions[key] ?? call.pos;
    let found = false;
    for (const p of params) {
      if (p === key || (p.length === key.length + 1 && p.charCodeAt(key.length) === 63 && p.startsWith(key))) {
        found = true;
        break;
      }
    }
    if (!found) {
      if (n === 0)
        throw new StarError("unknown-argument", `${fnName}() got an unexpected keyword argument '${key}'; it takes no arguments`, {
          pos: kpos,
        });
      const names = paramNames(params);
      const near = nearestName(key, names);
      throw new StarError(
        "unknown-argument",
        `${fnName}() got an unexpected keyword argument '${key}'${near ? ` (did you mean '${near}'?)` : ""}; it accepts: ${names.join(", ")}`,
        { pos: kpos },
      );
    }
    if (key in values) throw new StarError("duplicate-argument", `${fnName}() got multiple values for argument '${key}'`, { pos: kpos });
    values[key] = v;
    positions[key] = kpos;
  }
  for (const p of params.slice(args.length)) {
    if (p.charCodeAt(p.length - 1) !== 63 && !(p in values)) {
      throw new StarError("missing-argument", `${fnName}() missing required argument '${p}'`, { pos: call.pos });
    }
  }
  // The loop above checked every required name is present: the one place that promise is made.
  return { values: values as ArgValues<P>, positions };
}

/** For built-ins whose arguments are positional only (range, zip, the set methods taking *others). */
export function rejectKwargs(call: CallContext, fnName: string, kwargs: Array<[string, Value]>): void {
  const first = kwargs[0];
  if (first === undefined) return;
  const [key] = first;
  throw new StarError("unknown-argument", `${fnName}() got an unexpected keyword argument '${key}'; its arguments are positional only`, {
    pos: call.kwargPositions[key] ?? call.pos,
    hint: `pass the value without '${key} ='`,
  });
}

function paramName(p: string): string {
  return p.charCodeAt(p.length - 1) === 63 ? p.slice(0, -1) : p;
}

function paramNames(params: readonly string[]): string[] {
  return params.map(paramName);
}
