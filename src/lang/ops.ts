// Operators with Starlark semantics (L-12): arithmetic with floored // and %, mixed int/float
// arithmetic, sequence repetition and concatenation, `in`, comparisons, dict union, indexing and
// slicing (negative steps included). Errors are StarErrors without a position; the evaluator adds it.

import { itemAt } from "../shared/checked-index.js";
import type { BinaryOp } from "./ast.js";
import { formatString } from "./strfmt.js";
import {
  DICT_ENTRY_COST,
  Dict,
  RangeValue,
  StarError,
  StarList,
  StarSet,
  StringElems,
  Tuple,
  compare,
  equals,
  hashKey,
  repr,
  truth,
  typeName,
  type Thread,
  type Value,
} from "./values.js";

/** Largest sequence a single operation may build; guards memory against `"x" * 10**12`. */
const MAX_SEQUENCE = 10_000_000;

/** Largest int, in bits, that arithmetic may produce: keeps `x = x * x` loops from exhausting memory. */
const MAX_INT_BITS = 1_000_000;
const BIG = 1n << 64n;

function bitLength(x: bigint): number {
  if (x < 0n) x = -x;
  if (x < BIG) return 64;
  return x.toString(16).length * 4;
}

function checkIntSize(bits: number): void {
  if (bits > MAX_INT_BITS)
    throw new StarError("runtime-error", `int result too large (more than ${MAX_INT_BITS.toLocaleString("en-US")} bits)`);
}

/** Throws when a sequence of n elements would exceed MAX_SEQUENCE. */
export function checkSequenceSize(n: number): void {
  if (n > MAX_SEQUENCE)
    throw new StarError(
      "runtime-error",
      `sequence too large: ${n.toLocaleString("en-US")} elements (the limit is ${MAX_SEQUENCE.toLocaleString("en-US")})`,
    );
}

function typeError(msg: string, hint?: string): StarError {
  return new StarError("type-error", msg, { hint });
}

function unsupported(op: string, x: Value, y: Value): StarError {
  return typeError(`unsupported operand types for ${op}: ${typeName(x)} and ${typeName(y)}`);
}

function isNum(v: Value): v is bigint | number {
  return typeof v === "bigint" || typeof v === "number";
}

/** An int or float as a float; an int too large for a float is a runtime error, never Infinity. */
export function toFloat(v: bigint | number): number {
  if (typeof v === "number") return v;
  const f = Number(v);
  if (!Number.isFinite(f)) throw new StarError("runtime-error", "int too large to convert to float");
  return f;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function floorMod(a: bigint, b: bigint): bigint {
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}

function floatMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

function repeatCount(n: bigint, unit: number, thread?: Thread): number {
  if (n <= 0n) return 0;
  if (n * BigInt(Math.max(unit, 1)) > BigInt(MAX_SEQUENCE))
    throw new StarError("runtime-error", `repetition makes a sequence of more than ${MAX_SEQUENCE.toLocaleString("en-US")} elements`);
  thread?.charge(Math.floor((Number(n) * Math.max(unit, 1)) / 16));
  return Number(n);
}

/** Big-int arithmetic costs time in proportion to size: bound the size and charge the budget. */
function bigIntCost(op: BinaryOp, x: bigint, y: bigint, thread?: Thread): void {
  let bits: number;
  if (op === "*") bits = bitLength(x) + bitLength(y);
  else if (op === "<<") bits = bitLength(x) + Number(y > 10_000_000n ? 10_000_000n : y < 0n ? 0n : y);
  else bits = Math.max(bitLength(x), bitLength(y));
  checkIntSize(bits);
  thread?.charge(bits >> 6);
}

/** Applies a binary operator to two values, with Starlark's types and errors; big-int work is charged to the thread's budget. */
// eslint-disable-next-line max-lines-per-function -- a dispatch: one case per binary operator and operand types, as the Starlark spec tables them
export function binaryOp(op: BinaryOp, x: Value, y: Value, thread?: Thread): Value {
  if (typeof x === "bigint" && typeof y === "bigint" && (x >= BIG || x <= -BIG || y >= BIG || y <= -BIG || (op === "<<" && y >= 64n))) {
    bigIntCost(op, x, y, thread);
  }
  switch (op) {
    case "+":
      if (typeof x === "bigint" && typeof y === "bigint") return x + y;
      if (isNum(x) && isNum(y)) return toFloat(x) + toFloat(y);
      if (typeof x === "string" && typeof y === "string") {
        if (x.length + y.length > MAX_SEQUENCE) throw new StarError("runtime-error", "string too long");
        return x + y;
      }
      if (x instanceof StarList && y instanceof StarList) {
        checkSequenceSize(x.elems.length + y.elems.length);
        thread?.alloc(concatCost(x.elems.length, y.elems.length));
        return new StarList([...x.elems, ...y.elems]);
      }
      if (x instanceof Tuple && y instanceof Tuple) {
        checkSequenceSize(x.elems.length + y.elems.length);
        thread?.alloc(concatCost(x.elems.length, y.elems.length));
        return new Tuple([...x.elems, ...y.elems]);
      }
      throw unsupported("+", x, y);
    case "-":
      if (typeof x === "bigint" && typeof y === "bigint") return x - y;
      if (isNum(x) && isNum(y)) return toFloat(x) - toFloat(y);
      if (x instanceof StarSet && y instanceof StarSet) return chargedSetOp("-", x, y, thread);
      throw unsupported("-", x, y);
    case "*":
      if (typeof x === "bigint" && typeof y === "bigint") return x * y;
      if (isNum(x) && isNum(y)) return toFloat(x) * toFloat(y);
      if (typeof y === "bigint" && (typeof x === "string" || x instanceof StarList || x instanceof Tuple)) return repeat(x, y, thread);
      if (typeof x === "bigint" && (typeof y === "string" || y instanceof StarList || y instanceof Tuple)) return repeat(y, x, thread);
      throw unsupported("*", x, y);
    case "/": {
      if (!isNum(x) || !isNum(y)) throw unsupported("/", x, y);
      const d = toFloat(y);
      if (d === 0) throw new StarError("runtime-error", "division by zero");
      return toFloat(x) / d;
    }
    case "//":
      if (typeof x === "bigint" && typeof y === "bigint") {
        if (y === 0n) throw new StarError("runtime-error", "integer division by zero");
        return floorDiv(x, y);
      }
      if (isNum(x) && isNum(y)) {
        const d = toFloat(y);
        if (d === 0) throw new StarError("runtime-error", "floored division by zero");
        return Math.floor(toFloat(x) / d);
      }
      throw unsupported("//", x, y);
    case "%":
      if (typeof x === "string") {
        const s = formatString(x, y);
        thread?.allocString(s.length);
        return s;
      }
      if (typeof x === "bigint" && typeof y === "bigint") {
        if (y === 0n) throw new StarError("runtime-error", "integer modulo by zero");
        return floorMod(x, y);
      }
      if (isNum(x) && isNum(y)) {
        const d = toFloat(y);
        if (d === 0) throw new StarError("runtime-error", "float modulo by zero");
        return floatMod(toFloat(x), d);
      }
      throw unsupported("%", x, y);
    case "|":
      if (typeof x === "bigint" && typeof y === "bigint") return x | y;
      if (x instanceof Dict && y instanceof Dict) {
        thread?.alloc(DICT_ENTRY_COST * concatCost(x.size, y.size));
        const d = new Dict();
        for (const [k, v] of x.entries()) d.setFresh(k, v);
        for (const [k, v] of y.entries()) d.setFresh(k, v);
        return d;
      }
      if (x instanceof StarSet && y instanceof StarSet) return chargedSetOp("|", x, y, thread);
      throw unsupported("|", x, y);
    case "&":
      if (typeof x === "bigint" && typeof y === "bigint") return x & y;
      if (x instanceof StarSet && y instanceof StarSet) return chargedSetOp("&", x, y, thread);
      throw unsupported("&", x, y);
    case "^":
      if (typeof x === "bigint" && typeof y === "bigint") return x ^ y;
      if (x instanceof StarSet && y instanceof StarSet) return chargedSetOp("^", x, y, thread);
      throw unsupported("^", x, y);
    case "<<":
    case ">>":
      if (typeof x === "bigint" && typeof y === "bigint") {
        if (y < 0n) throw new StarError("runtime-error", `negative shift count: ${y}`);
        if (op === ">>") return x >> y;
        return x << y;
      }
      throw unsupported(op, x, y);
    case "==":
      return equals(x, y);
    case "!=":
      return !equals(x, y);
    case "<":
      return compare(x, y) < 0;
    case "<=":
      return compare(x, y) <= 0;
    case ">":
      return compare(x, y) > 0;
    case ">=":
      return compare(x, y) >= 0;
    case "in":
      return contains(y, x);
    case "not in":
      return !contains(y, x);
    case "and":
      return truth(x) ? y : x;
    case "or":
      return truth(x) ? x : y;
  }
}

/**
 * Set union, intersection, difference and symmetric difference as a new set. Elements keep their
 * order: those from the left operand first, then those only in the right one.
 */
export function setOp(op: "|" | "&" | "-" | "^", x: StarSet, y: StarSet): StarSet {
  const left = x.elems();
  const right = y.elems();
  switch (op) {
    case "|":
      return new StarSet([...left, ...right]);
    case "&":
      return new StarSet(left.filter((e) => y.has(e)));
    case "-":
      return new StarSet(left.filter((e) => !y.has(e)));
    case "^":
      return new StarSet([...left.filter((e) => !y.has(e)), ...right.filter((e) => !x.has(e))]);
  }
}

/**
 * What `x + y` counts against the allocation budget: the smaller side and one, so `l = l + [v]` in
 * a loop counts each new element once (the old list is garbage) while `big + big` counts in full.
 */
function concatCost(a: number, b: number): number {
  return Math.min(a, b) + 1;
}

function chargedSetOp(op: "|" | "&" | "-" | "^", x: StarSet, y: StarSet, thread?: Thread): StarSet {
  thread?.alloc(concatCost(x.size, y.size));
  return setOp(op, x, y);
}

function repeat(x: string | StarList | Tuple, n: bigint, thread?: Thread): Value {
  if (typeof x === "string") {
    const count = repeatCount(n, x.length, thread);
    thread?.allocString(count * x.length);
    return x.repeat(count);
  }
  const count = repeatCount(n, x.elems.length, thread);
  thread?.alloc(count * x.elems.length);
  const out: Value[] = [];
  for (let i = 0; i < count; i++) out.push(...x.elems);
  return x instanceof StarList ? new StarList(out) : new Tuple(out);
}

/** `x in container` for strings (substring), lists, tuples, dicts (keys), sets and ranges. */
export function contains(container: Value, x: Value): boolean {
  if (typeof container === "string") {
    if (typeof x !== "string") throw typeError(`'in <string>' requires a string as left operand, not ${typeName(x)}`);
    return container.includes(x);
  }
  if (container instanceof StarList || container instanceof Tuple) {
    for (const e of container.elems) if (equals(e, x)) return true;
    return false;
  }
  if (container instanceof Dict || container instanceof StarSet) {
    hashKey(x);
    return container.has(x);
  }
  if (container instanceof RangeValue) {
    if (typeof x !== "bigint" && typeof x !== "number")
      throw typeError(`'in <range>' requires a number as left operand, not ${typeName(x)}`);
    if (typeof x === "number" && !Number.isInteger(x)) return false;
    const v = BigInt(x);
    const { start, stop, step } = container;
    if (step > 0n ? v < start || v >= stop : v > start || v <= stop) return false;
    return (v - start) % step === 0n;
  }
  throw typeError(`'in' is not supported on ${typeName(container)}`, "use 'in' with a string, list, tuple, dict, set, or range");
}

/** Applies `-`, `+`, `~` or `not` to a value. */
export function unaryOp(op: "-" | "+" | "~" | "not", x: Value): Value {
  switch (op) {
    case "not":
      return !truth(x);
    case "-":
      if (typeof x === "bigint") return -x;
      if (typeof x === "number") return -x;
      break;
    case "+":
      if (typeof x === "bigint" || typeof x === "number") return x;
      break;
    case "~":
      if (typeof x === "bigint") return ~x;
      break;
  }
  throw typeError(`unsupported operand type for unary ${op}: ${typeName(x)}`);
}

// ---------------------------------------------------------------------------------------------
// Indexing and slicing

/** An int index as a JS number, clamped to the safe-integer range; any other type is an error naming `what`. */
export function toIndex(v: Value, what: string): number {
  if (typeof v !== "bigint") throw typeError(`${what} must be an int, not ${typeName(v)}`);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (v < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(v);
}

/** The length of a string, list, tuple, dict or range; undefined for values that have none. */
export function seqLength(x: Value): number | undefined {
  if (typeof x === "string") return x.length;
  if (x instanceof StarList || x instanceof Tuple) return x.elems.length;
  if (x instanceof Dict) return x.size;
  if (x instanceof RangeValue) return x.length;
  return undefined;
}

/** `x[key]`: a dict lookup, or a sequence index (negative counts from the end); out of range is an error with a hint. */
export function index(x: Value, key: Value): Value {
  if (x instanceof Dict) {
    const v = x.get(key);
    if (v === undefined)
      throw new StarError("key-error", `key ${repr(key)} not in dict`, {
        hint:
          x.size > 0 && x.size <= 20
            ? `keys: ${x.keys().map(repr).join(", ")}; use d.get(key, default) for optional keys`
            : "use d.get(key, default) for optional keys",
      });
    return v;
  }
  if (x instanceof RangeValue) {
    if (typeof key !== "bigint") throw typeError(`range index must be an int, not ${typeName(key)}`);
    const n = x.lengthBig;
    const i = key < 0n ? key + n : key;
    if (i < 0n || i >= n) throw new StarError("index-error", `index ${key} out of range: range has ${n} element${n === 1n ? "" : "s"}`);
    return x.start + i * x.step;
  }
  const n = seqLength(x);
  if (n === undefined) throw typeError(`${typeName(x)} value is not indexable`);
  let i = toIndex(key, `${typeName(x)} index`);
  const orig = i;
  if (i < 0) i += n;
  if (i < 0 || i >= n)
    throw new StarError("index-error", `index ${orig} out of range: ${typeName(x)} has ${n} element${n === 1 ? "" : "s"}`);
  if (typeof x === "string") return x.charAt(i);
  if (!(x instanceof StarList || x instanceof Tuple)) throw typeError(`${typeName(x)} value is not indexable`);
  return itemAt(x.elems, i);
}

/** `x[key] = v` on a dict or a list; a frozen value, or one being iterated, is an error (L-14). */
export function setIndex(x: Value, key: Value, v: Value): void {
  if (x instanceof Dict) {
    x.set(key, v);
    return;
  }
  if (x instanceof StarList) {
    x.checkMutable("assign to element of");
    let i = toIndex(key, "list index");
    const orig = i;
    if (i < 0) i += x.elems.length;
    if (i < 0 || i >= x.elems.length) throw new StarError("index-error", `index ${orig} out of range: list has ${x.elems.length} elements`);
    x.elems[i] = v;
    return;
  }
  throw typeError(
    `${typeName(x)} value does not support item assignment`,
    typeName(x) === "tuple" || typeName(x) === "string" ? `a ${typeName(x)} is immutable` : undefined,
  );
}

/** Python/Starlark slice index computation: returns the selected indices' start, count and step. */
function sliceIndices(n: number, lo: Value, hi: Value, stepV: Value): { start: number; step: number; count: number } {
  let step = 1;
  if (stepV !== null) {
    step = toIndex(stepV, "slice step");
    if (step === 0) throw new StarError("runtime-error", "slice step cannot be zero");
  }
  const clamp = (v: Value, dflt: number, what: string): number => {
    if (v === null) return dflt;
    let i = toIndex(v, what);
    if (i < 0) i += n;
    if (step > 0) return Math.min(Math.max(i, 0), n);
    return Math.min(Math.max(i, -1), n - 1);
  };
  const start = clamp(lo, step > 0 ? 0 : n - 1, "slice start");
  const stop = clamp(hi, step > 0 ? n : -1, "slice end");
  let count = 0;
  if (step > 0 && start < stop) count = Math.ceil((stop - start) / step);
  else if (step < 0 && start > stop) count = Math.ceil((start - stop) / -step);
  return { start, step, count };
}

/** `x[lo:hi:step]` on a string, list, tuple or range, with Python's clamping of out-of-range bounds. */
export function slice(x: Value, lo: Value, hi: Value, step: Value): Value {
  if (x instanceof RangeValue) {
    const r = sliceIndices(x.length, lo, hi, step);
    const start = x.at(r.start);
    const st = x.step * BigInt(r.step);
    return new RangeValue(start, start + st * BigInt(r.count), st);
  }
  const n = seqLength(x);
  if (n === undefined || x instanceof Dict) throw typeError(`${typeName(x)} value cannot be sliced`);
  const r = sliceIndices(n, lo, hi, step);
  if (typeof x === "string") {
    if (r.step === 1) return x.slice(r.start, r.start + r.count);
    let s = "";
    for (let k = 0, i = r.start; k < r.count; k++, i += r.step) s += x.charAt(i);
    return s;
  }
  if (!(x instanceof StarList || x instanceof Tuple)) throw typeError(`${typeName(x)} value cannot be sliced`);
  const elems = x.elems;
  const out: Value[] = [];
  for (let k = 0, i = r.start; k < r.count; k++, i += r.step) out.push(itemAt(elems, i));
  return x instanceof StarList ? new StarList(out) : new Tuple(out);
}

/** The elements an iterable yields, as an array (dict: its keys). Strings are not iterable in Starlark. */
export function iterableToArray(v: Value, thread?: Thread): readonly Value[] {
  if (v instanceof StarList || v instanceof Tuple) return v.elems;
  if (v instanceof Dict) return v.keys();
  if (v instanceof StarSet) return v.elems();
  if (v instanceof RangeValue) {
    const n = v.length;
    if (n > MAX_SEQUENCE) throw new StarError("runtime-error", `range of ${n} elements is too large to materialize`);
    thread?.charge(n);
    thread?.alloc(n);
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = v.at(i);
    return out;
  }
  if (v instanceof StringElems) {
    // A string may be longer than a list may be (join, str of a large list): check before splitting.
    checkSequenceSize(v.s.length);
    thread?.charge(v.s.length >> 4);
    thread?.alloc(v.s.length);
    return v.elems();
  }
  if (typeof v === "string") throw typeError("string is not iterable", "use s.elems() to iterate over its characters");
  throw typeError(`${typeName(v)} value is not iterable`);
}

export { compare, equals };
