// The universe: built-in names present in every file (L-13): None True False len str repr int
// float bool list dict tuple range enumerate zip sorted reversed min max any all hasattr getattr
// dir type print fail struct, plus abs, hash and set from the Starlark spec.

import { itemAt } from "../shared/checked-index.js";
import { callValue } from "./eval.js";
import { attrNames, getAttr, hasAttr, pairsOf } from "./methods.js";
import { iterableToArray, seqLength, toFloat, toIndex } from "./ops.js";
import {
  Builtin,
  DICT_ENTRY_COST,
  Dict,
  RangeValue,
  StarError,
  StarList,
  StarSet,
  Struct,
  Tuple,
  compare,
  rejectKwargs,
  repr,
  str,
  truth,
  typeName,
  unpackArgs,
  type ArgValues,
  type CallContext,
  type Value,
} from "./values.js";

function typeError(msg: string, hint?: string): StarError {
  return new StarError("type-error", msg, { hint });
}

function args<const P extends readonly string[]>(
  call: CallContext,
  name: string,
  a: Value[],
  k: Array<[string, Value]>,
  params: P,
): ArgValues<P> {
  return unpackArgs(call, name, a, k, params).values;
}

function callKey(call: CallContext, key: Value, x: Value): Value {
  return callValue(key, [x], [], call.thread, () => call);
}

/** print/fail message: str() of each argument joined by sep; other keyword arguments print as name=value. */
function joinArgs(call: CallContext, name: string, a: Value[], k: Array<[string, Value]>): string {
  let sep = " ";
  const parts = a.map((v) => str(v));
  for (const [key, v] of k) {
    if (key === "sep") {
      if (typeof v !== "string") throw typeError(`${name}: sep must be a string, not ${typeName(v)}`);
      sep = v;
    } else parts.push(`${key}=${str(v)}`);
  }
  return parts.join(sep);
}

function parseIntString(s: string, base: number): bigint | undefined {
  let t = s;
  let neg = false;
  if (t.startsWith("+") || t.startsWith("-")) {
    neg = t[0] === "-";
    t = t.slice(1);
  }
  const prefix = t.slice(0, 2).toLowerCase();
  const pb = prefix === "0x" ? 16 : prefix === "0o" ? 8 : prefix === "0b" ? 2 : 0;
  if (base === 0) {
    if (pb) {
      base = pb;
      t = t.slice(2);
    } else {
      if (t.length > 1 && t[0] === "0" && /[^0]/.test(t)) return undefined;
      base = 10;
    }
  } else if (pb && pb === base) t = t.slice(2);
  if (t === "") return undefined;
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, base);
  let v = 0n;
  const b = BigInt(base);
  for (const ch of t.toLowerCase()) {
    const d = digits.indexOf(ch);
    if (d < 0) return undefined;
    v = v * b + BigInt(d);
  }
  return neg ? -v : v;
}

function minMax(call: CallContext, name: "min" | "max", a: Value[], k: Array<[string, Value]>): Value {
  let key: Value = null;
  for (const [kk, v] of k) {
    if (kk !== "key") unpackArgs(call, name, [], [[kk, v]], ["key?"]);
    key = v;
  }
  if (a.length === 0) throw new StarError("missing-argument", `${name}() requires at least one argument`);
  const [only] = a;
  const items = a.length === 1 && only !== undefined ? iterableToArray(only, call.thread) : a;
  const [first, ...rest] = items;
  if (first === undefined) throw new StarError("runtime-error", `${name}() of an empty sequence`);
  let best = first;
  let bestKey = key === null ? best : callKey(call, key, best);
  for (const item of rest) {
    const kv = key === null ? item : callKey(call, key, item);
    const c = compare(kv, bestKey);
    if (name === "min" ? c < 0 : c > 0) {
      best = item;
      bestKey = kv;
    }
  }
  return best;
}

/** A fresh array of `items`, counted against the allocation budget. */
function copied(call: CallContext, items: readonly Value[]): Value[] {
  call.thread.alloc(items.length);
  return [...items];
}

/** A string result, counted against the allocation budget. */
function charged(call: CallContext, s: string): string {
  call.thread.allocString(s.length);
  return s;
}

function javaStringHash(s: string): bigint {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return BigInt(h);
}

const defs: Record<string, (call: CallContext, a: Value[], k: Array<[string, Value]>) => Value> = {
  abs: (c, a, k) => {
    const x = args(c, "abs", a, k, ["x"]).x;
    if (typeof x === "bigint") return x < 0n ? -x : x;
    if (typeof x === "number") return Math.abs(x);
    throw typeError(`abs: want int or float, got ${typeName(x)}`);
  },
  all: (c, a, k) => iterableToArray(args(c, "all", a, k, ["x"]).x, c.thread).every(truth),
  any: (c, a, k) => iterableToArray(args(c, "any", a, k, ["x"]).x, c.thread).some(truth),
  bool: (c, a, k) => {
    const x = args(c, "bool", a, k, ["x?"]);
    return x.x !== undefined ? truth(x.x) : false;
  },
  dict: (c, a, k) => {
    if (a.length > 1) throw new StarError("too-many-arguments", `dict() accepts at most 1 positional argument (${a.length} given)`);
    const d = new Dict();
    const pairs = a[0] !== undefined ? pairsOf(a[0], "dict", c) : [];
    c.thread.alloc(DICT_ENTRY_COST * (pairs.length + k.length));
    for (const [key, v] of pairs) d.setFresh(key, v);
    for (const [key, v] of k) d.setFresh(key, v);
    return d;
  },
  dir: (c, a, k) => new StarList(attrNames(args(c, "dir", a, k, ["x"]).x)),
  enumerate: (c, a, k) => {
    const x = args(c, "enumerate", a, k, ["x", "start?"]);
    let i = x.start === undefined ? 0n : x.start;
    if (typeof i !== "bigint") throw typeError(`enumerate: start must be an int, not ${typeName(i)}`);
    const out: Value[] = [];
    const items = iterableToArray(x.x, c.thread);
    c.thread.alloc(3 * items.length);
    for (const e of items) out.push(new Tuple([i++, e]));
    return new StarList(out);
  },
  fail: (c, a, k) => {
    const msg = joinArgs(c, "fail", a, k);
    throw new StarError("fail", msg);
  },
  float: (c, a, k) => {
    const x = args(c, "float", a, k, ["x?"]);
    const v = x.x;
    if (v === undefined) return 0;
    if (typeof v === "number") return v;
    if (typeof v === "bigint") return toFloat(v);
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v === "string") {
      const t = v.toLowerCase();
      if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
      if (/^[+-]?nan$/.test(t)) return NaN;
      if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) {
        const f = Number(t);
        if (!Number.isFinite(f)) throw new StarError("runtime-error", `float: ${repr(v)} is out of range`);
        return f;
      }
      throw new StarError("runtime-error", `float: invalid syntax ${repr(v)}`);
    }
    throw typeError(`float: cannot convert ${typeName(v)} to float`);
  },
  getattr: (c, a, k) => {
    const x = args(c, "getattr", a, k, ["x", "name", "default?"]);
    if (typeof x.name !== "string") throw typeError(`getattr: name must be a string, not ${typeName(x.name)}`);
    if (x.default !== undefined && !hasAttr(x.x, x.name, c.pos)) return x.default;
    return getAttr(x.x, x.name, c.pos);
  },
  hasattr: (c, a, k) => {
    const x = args(c, "hasattr", a, k, ["x", "name"]);
    if (typeof x.name !== "string") throw typeError(`hasattr: name must be a string, not ${typeName(x.name)}`);
    return hasAttr(x.x, x.name, c.pos);
  },
  hash: (c, a, k) => {
    const x = args(c, "hash", a, k, ["x"]).x;
    if (typeof x !== "string") throw typeError(`hash: want string, got ${typeName(x)}`);
    return javaStringHash(x);
  },
  int: (c, a, k) => {
    // The spec's int(x[, base]) has no zero-argument form (unlike float(), bool(), str()).
    const x = args(c, "int", a, k, ["x", "base?"]);
    const v = x.x;
    if (x.base !== undefined) {
      if (typeof v !== "string") throw typeError("int: can't convert non-string with explicit base");
      const base = toIndex(x.base, "int base");
      if (base !== 0 && (base < 2 || base > 36))
        throw new StarError("runtime-error", `int: base must be 0 or between 2 and 36, not ${base}`);
      const r = parseIntString(v, base);
      if (r === undefined) throw new StarError("runtime-error", `int: invalid literal with base ${base}: ${repr(v)}`);
      return r;
    }
    if (typeof v === "bigint") return v;
    if (typeof v === "boolean") return v ? 1n : 0n;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new StarError("runtime-error", `int: cannot convert ${str(v)} to int`);
      return BigInt(Math.trunc(v));
    }
    if (typeof v === "string") {
      const r = parseIntString(v, 10);
      if (r === undefined)
        throw new StarError("runtime-error", `int: invalid literal with base 10: ${repr(v)}`, {
          hint: "use int(s, 0) to accept 0x/0o/0b prefixes",
        });
      return r;
    }
    throw typeError(`int: cannot convert ${typeName(v)} to int`);
  },
  len: (c, a, k) => {
    const x = args(c, "len", a, k, ["x"]).x;
    if (x instanceof RangeValue) return x.lengthBig;
    if (x instanceof StarSet) return BigInt(x.size);
    const n = seqLength(x);
    if (n === undefined) throw typeError(`len: value of type ${typeName(x)} has no len`);
    return BigInt(n);
  },
  list: (c, a, k) => {
    const x = args(c, "list", a, k, ["x?"]);
    return new StarList(x.x !== undefined ? copied(c, iterableToArray(x.x, c.thread)) : []);
  },
  max: (c, a, k) => minMax(c, "max", a, k),
  min: (c, a, k) => minMax(c, "min", a, k),
  print: (c, a, k) => {
    c.thread.print(joinArgs(c, "print", a, k));
    return null;
  },
  range: (c, a, k) => {
    rejectKwargs(c, "range", k);
    if (a.length < 1 || a.length > 3)
      throw new StarError(a.length ? "too-many-arguments" : "missing-argument", `range() takes 1 to 3 arguments (${a.length} given)`);
    const ints = a.map((v) => {
      if (typeof v !== "bigint") throw typeError(`range: arguments must be ints, got ${typeName(v)}`);
      return v;
    });
    const [start = 0n, stop = 0n, step = 1n] = ints.length === 1 ? [0n, ...ints] : ints;
    if (step === 0n) throw new StarError("runtime-error", "range: step argument must not be zero");
    return new RangeValue(start, stop, step);
  },
  repr: (c, a, k) => charged(c, repr(args(c, "repr", a, k, ["x"]).x)),
  reversed: (c, a, k) => new StarList(copied(c, iterableToArray(args(c, "reversed", a, k, ["x"]).x, c.thread)).reverse()),
  set: (c, a, k) => {
    const x = args(c, "set", a, k, ["x?"]);
    return new StarSet(x.x !== undefined ? copied(c, iterableToArray(x.x, c.thread)) : []);
  },
  sorted: (c, a, k) => {
    // key and reverse are named parameters only (the spec's "optional named parameter").
    if (a.length > 1)
      throw new StarError("too-many-arguments", `sorted() accepts 1 positional argument (${a.length} given)`, {
        pos: c.argPositions[1] ?? c.pos,
        hint: "pass key and reverse by name: sorted(x, key = f, reverse = True)",
      });
    const x = args(c, "sorted", a, k, ["x", "key?", "reverse?"]);
    const items = copied(c, iterableToArray(x.x, c.thread));
    const key = x.key ?? null;
    const keyed = items.map((v) => ({ key: key === null ? v : callKey(c, key, v), v }));
    const rev = truth(x.reverse ?? false);
    c.thread.charge(items.length);
    keyed.sort((p, q) => (rev ? compare(q.key, p.key) : compare(p.key, q.key)));
    return new StarList(keyed.map((p) => p.v));
  },
  str: (c, a, k) => charged(c, str(args(c, "str", a, k, ["x"]).x)),
  struct: (c, a, k) => {
    if (a.length > 0) throw new StarError("too-many-arguments", "struct() accepts only keyword arguments", { pos: c.argPositions[0] });
    const fields = new Map<string, Value>();
    for (const [key, v] of [...k].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) fields.set(key, v);
    return new Struct(fields);
  },
  tuple: (c, a, k) => {
    const x = args(c, "tuple", a, k, ["x?"]);
    if (x.x === undefined) return new Tuple([]);
    return x.x instanceof Tuple ? x.x : new Tuple(copied(c, iterableToArray(x.x, c.thread)));
  },
  type: (c, a, k) => typeName(args(c, "type", a, k, ["x"]).x),
  zip: (c, a, k) => {
    rejectKwargs(c, "zip", k);
    const seqs = a.map((v) => iterableToArray(v, c.thread));
    const n = seqs.length ? Math.min(...seqs.map((s) => s.length)) : 0;
    c.thread.alloc(n * (seqs.length + 1));
    const out: Value[] = [];
    for (let i = 0; i < n; i++) out.push(new Tuple(seqs.map((s) => itemAt(s, i))));
    return new StarList(out);
  },
};

/** The universe: the names every Starlark module sees without declaring them (`None`, `True`, `False`, `len`, `sorted`, …). */
export const UNIVERSE: ReadonlyMap<string, Value> = new Map<string, Value>([
  ["None", null],
  ["True", true],
  ["False", false],
  ...Object.entries(defs).map(([name, impl]): [string, Value] => [name, new Builtin(name, impl)]),
]);

/** The universe's names, for the resolver (a name found here resolves to the universe). */
export const UNIVERSE_NAMES: Set<string> = new Set(UNIVERSE.keys());
