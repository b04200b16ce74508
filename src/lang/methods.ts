// Attribute access and the built-in methods of strings, lists and dicts (L-13), per the Starlark
// spec. Methods are looked up by the receiver's type; `x.m(...)` calls them without allocating a
// bound method, while `f = x.m` yields a Builtin bound to x.

import { nearestName, type Position } from "./diagnostic.js";
import { checkSequenceSize, iterableToArray, toIndex } from "./ops.js";
import { SET_METHODS } from "./set-methods.js";
import { strFormat } from "./strfmt.js";
import {
  Builtin,
  DICT_ENTRY_COST,
  Dict,
  HostObject,
  StarError,
  StarList,
  StarSet,
  StringElems,
  Struct,
  Tuple,
  equals,
  repr,
  truth,
  typeName,
  unpackArgs,
  type CallContext,
  type Value,
} from "./values.js";

type Method<R> = (call: CallContext, recv: R, args: Value[], kwargs: Array<[string, Value]>) => Value;

function typeError(msg: string, hint?: string): StarError {
  return new StarError("type-error", msg, { hint });
}

/** Unpacks method arguments (positional or by name), with the method's qualified name in errors. */
function margs(call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>, params: string[]): Record<string, Value> {
  return unpackArgs(call, name, args, kwargs, params).values;
}

function noArgs(call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>): void {
  if (args.length > 0 || kwargs.length > 0) margs(call, name, args, kwargs, []);
}

function wantString(v: Value, what: string): string {
  if (typeof v !== "string") throw typeError(`${what} must be a string, not ${typeName(v)}`);
  return v;
}

function optInt(v: Value | undefined, what: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  return toIndex(v, what);
}

/** Python-style [start:end] bounds for string search methods. */
function bounds(s: string, start: Value | undefined, end: Value | undefined): [number, number] {
  const n = s.length;
  const norm = (v: number | undefined, d: number) => {
    if (v === undefined) return d;
    if (v < 0) v += n;
    return Math.min(Math.max(v, 0), n);
  };
  return [norm(optInt(start, "start"), 0), norm(optInt(end, "end"), n)];
}

const WS = /\s/;

function splitWhitespace(s: string, maxsplit: number, fromRight: boolean): string[] {
  const words: string[] = [];
  if (!fromRight) {
    let i = 0;
    while (i < s.length) {
      while (i < s.length && WS.test(s[i])) i++;
      if (i >= s.length) break;
      if (maxsplit >= 0 && words.length === maxsplit) {
        words.push(s.slice(i));
        return words;
      }
      let j = i;
      while (j < s.length && !WS.test(s[j])) j++;
      words.push(s.slice(i, j));
      i = j;
    }
    return words;
  }
  let j = s.length;
  while (j > 0) {
    while (j > 0 && WS.test(s[j - 1])) j--;
    if (j <= 0) break;
    if (maxsplit >= 0 && words.length === maxsplit) {
      words.unshift(s.slice(0, j));
      return words;
    }
    let i = j;
    while (i > 0 && !WS.test(s[i - 1])) i--;
    words.unshift(s.slice(i, j));
    j = i;
  }
  return words;
}

function splitSep(s: string, sep: string, maxsplit: number, fromRight: boolean): string[] {
  if (sep === "") throw new StarError("runtime-error", "split: empty separator");
  if (maxsplit < 0) return s.split(sep);
  const out: string[] = [];
  if (!fromRight) {
    let rest = s;
    while (out.length < maxsplit) {
      const k = rest.indexOf(sep);
      if (k < 0) break;
      out.push(rest.slice(0, k));
      rest = rest.slice(k + sep.length);
    }
    out.push(rest);
    return out;
  }
  let rest = s;
  while (out.length < maxsplit) {
    const k = rest.lastIndexOf(sep);
    if (k < 0) break;
    out.unshift(rest.slice(k + sep.length));
    rest = rest.slice(0, k);
  }
  out.unshift(rest);
  return out;
}

function stripChars(s: string, chars: Value | undefined, left: boolean, right: boolean): string {
  if (chars === undefined || chars === null) {
    let a = 0;
    let b = s.length;
    if (left) while (a < b && WS.test(s[a])) a++;
    if (right) while (b > a && WS.test(s[b - 1])) b--;
    return s.slice(a, b);
  }
  const set = wantString(chars, "strip characters");
  let a = 0;
  let b = s.length;
  if (left) while (a < b && set.includes(s[a])) a++;
  if (right) while (b > a && set.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

function prefixes(v: Value, what: string): string[] {
  if (typeof v === "string") return [v];
  if (v instanceof Tuple) return v.elems.map((e) => wantString(e, what));
  throw typeError(`${what} must be a string or a tuple of strings, not ${typeName(v)}`);
}

function allChars(s: string, re: RegExp): boolean {
  if (s.length === 0) return false;
  for (const ch of s) if (!re.test(ch)) return false;
  return true;
}

/**
 * Unicode has title-case letters (category Lt: the digraphs ǅ ǈ ǋ ǲ and Greek letters with
 * prosgegrammeni) that JS's toUpperCase skips: upper("ǉ") is "Ǉ", but its title case is "ǈ".
 * Maps every case form of such a letter to its title-case form.
 */
const TITLE_FORMS: Map<string, string> = (() => {
  const m = new Map<string, string>();
  const lt = /\p{Lt}/u;
  for (let cp = 0x100; cp < 0x2000; cp++) {
    const t = String.fromCodePoint(cp);
    if (!lt.test(t)) continue;
    for (const form of [t.toLowerCase(), t.toUpperCase()]) if ([...form].length === 1) m.set(form, t);
    m.set(t, t);
  }
  return m;
})();

function toTitle(ch: string): string {
  return TITLE_FORMS.get(ch) ?? ch.toUpperCase();
}

function isCased(ch: string): boolean {
  return ch.toLowerCase() !== ch.toUpperCase() || TITLE_FORMS.has(ch);
}

/** A cased letter after an uncased character starts a word: it becomes title case, the rest lowercase. */
function titleCase(s: string): string {
  let out = "";
  let prevCased = false;
  for (const ch of s) {
    const cased = isCased(ch);
    out += cased ? (prevCased ? ch.toLowerCase() : toTitle(ch)) : ch;
    prevCased = cased;
  }
  return out;
}

/**
 * At least one cased letter; a letter that begins a word is upper or title case ("Ǉa" and "ǈa"
 * both qualify, as in Python and Go Starlark) and every other cased letter is lowercase.
 */
function isTitle(s: string): boolean {
  let prevCased = false;
  let any = false;
  for (const ch of s) {
    const cased = isCased(ch);
    if (cased) {
      any = true;
      const lower = ch === ch.toLowerCase();
      if (prevCased === !lower) return false;
    }
    prevCased = cased;
  }
  return any;
}

function find(s: string, call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>, right: boolean): number {
  const a = margs(call, name, args, kwargs, ["sub", "start?", "end?"]);
  const sub = wantString(a.sub, `${name} argument`);
  const [lo, hi] = bounds(s, a.start, a.end);
  const region = s.slice(lo, hi);
  const k = right ? region.lastIndexOf(sub) : region.indexOf(sub);
  if (hi - lo < sub.length) return -1;
  return k < 0 ? -1 : k + lo;
}

function findOrFail(s: string, call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>, right: boolean): number {
  const i = find(s, call, name, args, kwargs, right);
  if (i < 0)
    throw new StarError(
      "runtime-error",
      `${name}: substring ${repr(margs(call, name, args, kwargs, ["sub", "start?", "end?"]).sub)} not found`,
    );
  return i;
}

const STRING_METHODS: Record<string, Method<string>> = {
  capitalize: (c, s, a, k) => (noArgs(c, "capitalize", a, k), s.length ? s[0].toUpperCase() + s.slice(1).toLowerCase() : s),
  count: (c, s, a, k) => {
    const x = margs(c, "count", a, k, ["sub", "start?", "end?"]);
    const sub = wantString(x.sub, "count argument");
    const [lo, hi] = bounds(s, x.start, x.end);
    const region = s.slice(lo, hi);
    if (sub === "") return BigInt(region.length + 1);
    let n = 0;
    for (let i = region.indexOf(sub); i >= 0; i = region.indexOf(sub, i + sub.length)) n++;
    return BigInt(n);
  },
  elems: (c, s, a, k) => (noArgs(c, "elems", a, k), new StringElems(s)),
  endswith: (c, s, a, k) => {
    const x = margs(c, "endswith", a, k, ["suffix", "start?", "end?"]);
    const [lo, hi] = bounds(s, x.start, x.end);
    const region = s.slice(lo, hi);
    return prefixes(x.suffix, "endswith argument").some((p) => region.endsWith(p));
  },
  find: (c, s, a, k) => BigInt(find(s, c, "find", a, k, false)),
  rfind: (c, s, a, k) => BigInt(find(s, c, "rfind", a, k, true)),
  index: (c, s, a, k) => BigInt(findOrFail(s, c, "index", a, k, false)),
  rindex: (c, s, a, k) => BigInt(findOrFail(s, c, "rindex", a, k, true)),
  format: (c, s, a, k) => {
    const out = strFormat(s, a, k);
    c.thread.allocString(out.length);
    return out;
  },
  isalnum: (c, s, a, k) => (noArgs(c, "isalnum", a, k), allChars(s, /[\p{L}\p{N}]/u)),
  isalpha: (c, s, a, k) => (noArgs(c, "isalpha", a, k), allChars(s, /\p{L}/u)),
  isdigit: (c, s, a, k) => (noArgs(c, "isdigit", a, k), allChars(s, /\p{Nd}/u)),
  isspace: (c, s, a, k) => (noArgs(c, "isspace", a, k), allChars(s, /\s/u)),
  islower: (c, s, a, k) => (noArgs(c, "islower", a, k), s !== s.toUpperCase() && s === s.toLowerCase()),
  isupper: (c, s, a, k) => (noArgs(c, "isupper", a, k), s !== s.toLowerCase() && s === s.toUpperCase()),
  istitle: (c, s, a, k) => (noArgs(c, "istitle", a, k), isTitle(s)),
  join: (c, s, a, k) => {
    const x = margs(c, "join", a, k, ["iterable"]);
    const parts = iterableToArray(x.iterable, c.thread);
    let size = s.length * Math.max(parts.length - 1, 0);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (typeof p !== "string")
        throw typeError(`join: element ${i} is a ${typeName(p)}, not a string`, "convert elements with str() first");
      size += p.length;
    }
    checkSequenceSize(size);
    c.thread.charge(size >> 4);
    c.thread.allocString(size);
    return (parts as string[]).join(s);
  },
  lower: (c, s, a, k) => (noArgs(c, "lower", a, k), s.toLowerCase()),
  upper: (c, s, a, k) => (noArgs(c, "upper", a, k), s.toUpperCase()),
  title: (c, s, a, k) => (noArgs(c, "title", a, k), titleCase(s)),
  strip: (c, s, a, k) => stripChars(s, margs(c, "strip", a, k, ["chars?"]).chars, true, true),
  lstrip: (c, s, a, k) => stripChars(s, margs(c, "lstrip", a, k, ["chars?"]).chars, true, false),
  rstrip: (c, s, a, k) => stripChars(s, margs(c, "rstrip", a, k, ["chars?"]).chars, false, true),
  partition: (c, s, a, k) => {
    const sep = wantString(margs(c, "partition", a, k, ["sep"]).sep, "partition separator");
    if (sep === "") throw new StarError("runtime-error", "partition: empty separator");
    const i = s.indexOf(sep);
    return i < 0 ? new Tuple([s, "", ""]) : new Tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
  },
  rpartition: (c, s, a, k) => {
    const sep = wantString(margs(c, "rpartition", a, k, ["sep"]).sep, "rpartition separator");
    if (sep === "") throw new StarError("runtime-error", "rpartition: empty separator");
    const i = s.lastIndexOf(sep);
    return i < 0 ? new Tuple(["", "", s]) : new Tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
  },
  removeprefix: (c, s, a, k) => {
    const p = wantString(margs(c, "removeprefix", a, k, ["prefix"]).prefix, "prefix");
    return p && s.startsWith(p) ? s.slice(p.length) : s;
  },
  removesuffix: (c, s, a, k) => {
    const p = wantString(margs(c, "removesuffix", a, k, ["suffix"]).suffix, "suffix");
    return p && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
  },
  replace: (c, s, a, k) => {
    const x = margs(c, "replace", a, k, ["old", "new", "count?"]);
    const old = wantString(x.old, "replace: old");
    const nw = wantString(x.new, "replace: new");
    const count = optInt(x.count, "replace: count") ?? -1;
    // An empty `old` matches before every element and at the end: "ab".replace("", "-") == "-a-b-".
    if (count < 0 && old !== "") {
      const parts = s.split(old);
      const size = s.length + (parts.length - 1) * (nw.length - old.length);
      checkSequenceSize(size);
      c.thread.allocString(size);
      return parts.join(nw);
    }
    const limit = count < 0 ? s.length + 1 : count;
    checkSequenceSize(s.length + Math.min(limit, s.length + 1) * nw.length);
    c.thread.allocString(s.length + Math.min(limit, s.length + 1) * nw.length);
    let out = "";
    let rest = s;
    for (let n = 0; n < limit; n++) {
      const i = rest.indexOf(old);
      if (i < 0) break;
      out += rest.slice(0, i) + nw;
      rest = rest.slice(i + old.length);
      if (old === "") {
        if (rest === "") return out;
        out += rest[0];
        rest = rest.slice(1);
      }
    }
    return out + rest;
  },
  split: (c, s, a, k) => {
    const x = margs(c, "split", a, k, ["sep?", "maxsplit?"]);
    const max = optInt(x.maxsplit, "maxsplit") ?? -1;
    const parts =
      x.sep === undefined || x.sep === null ? splitWhitespace(s, max, false) : splitSep(s, wantString(x.sep, "separator"), max, false);
    c.thread.alloc(parts.length);
    return new StarList(parts);
  },
  rsplit: (c, s, a, k) => {
    const x = margs(c, "rsplit", a, k, ["sep?", "maxsplit?"]);
    const max = optInt(x.maxsplit, "maxsplit") ?? -1;
    const parts =
      x.sep === undefined || x.sep === null ? splitWhitespace(s, max, true) : splitSep(s, wantString(x.sep, "separator"), max, true);
    c.thread.alloc(parts.length);
    return new StarList(parts);
  },
  splitlines: (c, s, a, k) => {
    const keepends = margs(c, "splitlines", a, k, ["keepends?"]).keepends;
    const keep = keepends !== undefined && truth(keepends);
    const out: string[] = [];
    const re = /\r\n|\r|\n/g;
    let last = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s))) {
      out.push(s.slice(last, keep ? m.index + m[0].length : m.index));
      last = m.index + m[0].length;
    }
    if (last < s.length) out.push(s.slice(last));
    c.thread.alloc(out.length);
    return new StarList(out);
  },
  startswith: (c, s, a, k) => {
    const x = margs(c, "startswith", a, k, ["prefix", "start?", "end?"]);
    const [lo, hi] = bounds(s, x.start, x.end);
    const region = s.slice(lo, hi);
    return prefixes(x.prefix, "startswith argument").some((p) => region.startsWith(p));
  },
};

const LIST_METHODS: Record<string, Method<StarList>> = {
  append: (c, l, a, k) => {
    const x = a.length === 1 && k.length === 0 ? a[0] : margs(c, "append", a, k, ["x"]).x;
    l.checkMutable("append to");
    c.thread.alloc(1);
    l.elems.push(x);
    return null;
  },
  clear: (c, l, a, k) => {
    noArgs(c, "clear", a, k);
    l.checkMutable("clear");
    l.elems.length = 0;
    return null;
  },
  extend: (c, l, a, k) => {
    const x = margs(c, "extend", a, k, ["iterable"]);
    l.checkMutable("extend");
    const add = iterableToArray(x.iterable, c.thread);
    checkSequenceSize(l.elems.length + add.length);
    c.thread.charge(add.length >> 4);
    c.thread.alloc(add.length);
    for (const e of add === l.elems ? [...add] : add) l.elems.push(e);
    return null;
  },
  index: (c, l, a, k) => {
    const x = margs(c, "index", a, k, ["x", "start?", "end?"]);
    const n = l.elems.length;
    const norm = (v: number | undefined, d: number) => (v === undefined ? d : Math.min(Math.max(v < 0 ? v + n : v, 0), n));
    const lo = norm(optInt(x.start, "start"), 0);
    const hi = norm(optInt(x.end, "end"), n);
    for (let i = lo; i < hi; i++) if (equals(l.elems[i], x.x)) return BigInt(i);
    throw new StarError("runtime-error", `index: value ${repr(x.x)} not in list`);
  },
  insert: (c, l, a, k) => {
    const x = margs(c, "insert", a, k, ["index", "x"]);
    l.checkMutable("insert into");
    const n = l.elems.length;
    let i = toIndex(x.index, "insert index");
    if (i < 0) i += n;
    i = Math.min(Math.max(i, 0), n);
    c.thread.alloc(1);
    l.elems.splice(i, 0, x.x);
    return null;
  },
  pop: (c, l, a, k) => {
    const x = margs(c, "pop", a, k, ["index?"]);
    l.checkMutable("pop from");
    const n = l.elems.length;
    let i = optInt(x.index, "pop index") ?? n - 1;
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n)
      throw new StarError("index-error", n === 0 ? "pop from empty list" : `pop index ${orig} out of range: list has ${n} elements`);
    return l.elems.splice(i, 1)[0];
  },
  remove: (c, l, a, k) => {
    const x = margs(c, "remove", a, k, ["x"]);
    l.checkMutable("remove from");
    const i = l.elems.findIndex((e) => equals(e, x.x));
    if (i < 0) throw new StarError("runtime-error", `remove: ${repr(x.x)} not in list`);
    l.elems.splice(i, 1);
    return null;
  },
};

const DICT_METHODS: Record<string, Method<Dict>> = {
  clear: (c, d, a, k) => (noArgs(c, "clear", a, k), d.clear(), null),
  get: (c, d, a, k) => {
    // The common one-argument call skips unpacking; every other form goes through it by name.
    const x = a.length === 1 && k.length === 0 ? { key: a[0] } : margs(c, "get", a, k, ["key", "default?"]);
    const v = d.get(x.key);
    return v === undefined ? (x.default ?? null) : v;
  },
  items: (c, d, a, k) => (
    noArgs(c, "items", a, k),
    c.thread.alloc(3 * d.size),
    new StarList(d.entries().map(([key, v]) => new Tuple([key, v])))
  ),
  keys: (c, d, a, k) => (noArgs(c, "keys", a, k), c.thread.alloc(d.size), new StarList(d.keys())),
  values: (c, d, a, k) => (noArgs(c, "values", a, k), c.thread.alloc(d.size), new StarList(d.values())),
  pop: (c, d, a, k) => {
    const x = margs(c, "pop", a, k, ["key", "default?"]);
    d.checkMutable("pop from");
    const v = d.delete(x.key);
    if (v !== undefined) return v;
    if ("default" in x) return x.default;
    throw new StarError("key-error", `pop: key ${repr(x.key)} not in dict`);
  },
  popitem: (c, d, a, k) => {
    noArgs(c, "popitem", a, k);
    d.checkMutable("pop from");
    const first = d.entries()[0];
    if (!first) throw new StarError("key-error", "popitem: empty dict");
    d.delete(first[0]);
    return new Tuple(first);
  },
  setdefault: (c, d, a, k) => {
    const x = margs(c, "setdefault", a, k, ["key", "default?"]);
    const v = d.get(x.key);
    if (v !== undefined) return v;
    const dv = "default" in x ? x.default : null;
    c.thread.alloc(DICT_ENTRY_COST);
    d.set(x.key, dv);
    return dv;
  },
  update: (c, d, a, k) => {
    if (a.length > 1) margs(c, "update", a, [], ["pairs?"]);
    d.checkMutable("update");
    const pairs = a.length === 1 && a[0] !== null ? pairsOf(a[0], "update", c) : [];
    c.thread.alloc(DICT_ENTRY_COST * (pairs.length + k.length));
    for (const [key, v] of pairs) d.set(key, v);
    for (const [key, v] of k) d.set(key, v);
    return null;
  },
};

/** dict(x) / d.update(x): x is a dict or an iterable of 2-element iterables. */
export function pairsOf(x: Value, fn: string, c: CallContext): Array<[Value, Value]> {
  if (x instanceof Dict) return x.entries();
  const items = iterableToArray(x, c.thread);
  return items.map((item, i) => {
    if (!(item instanceof Tuple || item instanceof StarList))
      throw typeError(`${fn}: element ${i} is a ${typeName(item)}, not a pair`, "pass a dict or a list of (key, value) pairs");
    if (item.elems.length !== 2) throw typeError(`${fn}: element ${i} has length ${item.elems.length}, want 2`);
    return [item.elems[0], item.elems[1]];
  });
}

function methodTable(v: Value): Record<string, Method<never>> | undefined {
  if (typeof v === "string") return STRING_METHODS as Record<string, Method<never>>;
  if (v instanceof StarList) return LIST_METHODS as Record<string, Method<never>>;
  if (v instanceof Dict) return DICT_METHODS as Record<string, Method<never>>;
  if (v instanceof StarSet) return SET_METHODS as Record<string, Method<never>>;
  return undefined;
}

/** Whether `v.name` is a built-in method of v's type (`"x".upper`, `[].append`, …). */
export function hasMethod(v: Value, name: string): boolean {
  const t = methodTable(v);
  return t !== undefined && Object.prototype.hasOwnProperty.call(t, name);
}

/** Calls the built-in method `name` of `recv`; the caller has checked hasMethod. */
export function callMethod(recv: Value, name: string, call: CallContext, args: Value[], kwargs: Array<[string, Value]>): Value {
  const t = methodTable(recv)!;
  return (t[name] as Method<Value>)(call, recv, args, kwargs);
}

/** The attribute names of a value, sorted, as `dir(v)` lists them. */
export function attrNames(v: Value): string[] {
  const t = methodTable(v);
  if (t) return Object.keys(t).sort();
  if (v instanceof Struct) return [...v.fields.keys()].sort();
  if (v instanceof HostObject) return [...v.attrNames()].sort();
  return [];
}

/** x.name: a struct field, a host object's attribute, or a bound method. Throws when absent. */
export function getAttr(v: Value, name: string, pos: Position): Value {
  if (hasMethod(v, name)) {
    return new Builtin(name, (call, args, kwargs) => callMethod(v, name, call, args, kwargs), v);
  }
  if (v instanceof Struct) {
    const f = v.fields.get(name);
    if (f !== undefined) return f;
  } else if (v instanceof HostObject) {
    const f = v.attr(name, pos);
    if (f !== undefined) return f;
  }
  const names = attrNames(v);
  const near = nearestName(name, names);
  const what = v instanceof Struct || v instanceof HostObject ? "field" : methodTable(v) ? "method" : "field or method";
  throw new StarError("attribute-error", `${typeName(v)} has no ${what} '${name}'${near ? ` (did you mean '${near}'?)` : ""}`, {
    pos,
    hint: !near && names.length > 0 && names.length <= 30 ? `available: ${names.join(", ")}` : undefined,
  });
}

/** For hasattr(): true when getAttr would succeed. */
export function hasAttr(v: Value, name: string, pos: Position): boolean {
  if (hasMethod(v, name)) return true;
  if (v instanceof Struct) return v.fields.has(name);
  if (v instanceof HostObject) return v.attr(name, pos) !== undefined;
  return false;
}
