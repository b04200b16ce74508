// The methods of set values, as the Starlark spec defines them. Unlike the |, &, -, ^ operators
// (which need a set on both sides), the methods accept any iterable as their other operands.

import { iterableToArray } from "./ops.js";
import { StarError, StarSet, rejectKwargs, repr, unpackArgs, type CallContext, type Value } from "./values.js";

type Method = (call: CallContext, recv: StarSet, args: Value[], kwargs: Array<[string, Value]>) => Value;

/** set.m(*others): no keyword arguments; each positional argument is an iterable. */
function others(call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>): StarSet[] {
  rejectKwargs(call, name, kwargs);
  return args.map((a) => charged(call, a instanceof StarSet ? a : new StarSet(iterableToArray(a, call.thread))));
}

/** Counts an operand's elements against the allocation budget (they may all join the result). */
function charged(call: CallContext, s: StarSet): StarSet {
  call.thread.alloc(s.size);
  return s;
}

/** set.m(x): exactly one iterable, positional or by name. */
function one(call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>): StarSet {
  const x = unpackArgs(call, name, args, kwargs, ["x"]).values.x;
  return charged(call, x instanceof StarSet ? x : new StarSet(iterableToArray(x, call.thread)));
}

function elem(call: CallContext, name: string, args: Value[], kwargs: Array<[string, Value]>): Value {
  return unpackArgs(call, name, args, kwargs, ["x"]).values.x;
}

/** Replaces s's elements with `keep` (already in s's order) — the in-place forms. */
function replaceWith(s: StarSet, keep: Value[], verb: string): void {
  s.checkMutable(verb);
  s.clear();
  for (const e of keep) s.add(e);
}

/** The built-in methods of `set` values, by name. */
export const SET_METHODS: Record<string, Method> = {
  add: (c, s, a, k) => {
    const x = elem(c, "add", a, k);
    c.thread.alloc(1);
    s.add(x);
    return null;
  },
  clear: (c, s, a, k) => {
    unpackArgs(c, "clear", a, k, []);
    s.clear();
    return null;
  },
  difference: (c, s, a, k) => {
    const os = others(c, "difference", a, k);
    return new StarSet(s.elems().filter((e) => !os.some((o) => o.has(e))));
  },
  difference_update: (c, s, a, k) => {
    const os = others(c, "difference_update", a, k);
    replaceWith(
      s,
      s.elems().filter((e) => !os.some((o) => o.has(e))),
      "update",
    );
    return null;
  },
  discard: (c, s, a, k) => {
    const x = elem(c, "discard", a, k);
    s.checkMutable("delete from");
    if (s.has(x)) s.delete(x);
    return null;
  },
  intersection: (c, s, a, k) => {
    const os = others(c, "intersection", a, k);
    return new StarSet(s.elems().filter((e) => os.every((o) => o.has(e))));
  },
  intersection_update: (c, s, a, k) => {
    const os = others(c, "intersection_update", a, k);
    replaceWith(
      s,
      s.elems().filter((e) => os.every((o) => o.has(e))),
      "update",
    );
    return null;
  },
  isdisjoint: (c, s, a, k) => {
    const o = one(c, "isdisjoint", a, k);
    return !s.elems().some((e) => o.has(e));
  },
  issubset: (c, s, a, k) => {
    const o = one(c, "issubset", a, k);
    return s.elems().every((e) => o.has(e));
  },
  issuperset: (c, s, a, k) => {
    const o = one(c, "issuperset", a, k);
    return o.elems().every((e) => s.has(e));
  },
  pop: (c, s, a, k) => {
    unpackArgs(c, "pop", a, k, []);
    s.checkMutable("pop from");
    const first = s.elems()[0];
    if (first === undefined) throw new StarError("key-error", "pop: empty set");
    s.delete(first);
    return first;
  },
  remove: (c, s, a, k) => {
    const x = elem(c, "remove", a, k);
    s.checkMutable("delete from");
    if (!s.delete(x))
      throw new StarError("key-error", `remove: ${repr(x)} not in set`, { hint: "use s.discard(x) to ignore a missing element" });
    return null;
  },
  symmetric_difference: (c, s, a, k) => {
    const o = one(c, "symmetric_difference", a, k);
    return new StarSet([...s.elems().filter((e) => !o.has(e)), ...o.elems().filter((e) => !s.has(e))]);
  },
  symmetric_difference_update: (c, s, a, k) => {
    const o = one(c, "symmetric_difference_update", a, k);
    replaceWith(s, [...s.elems().filter((e) => !o.has(e)), ...o.elems().filter((e) => !s.has(e))], "update");
    return null;
  },
  union: (c, s, a, k) => {
    const os = others(c, "union", a, k);
    return new StarSet([...s.elems(), ...os.flatMap((o) => o.elems())]);
  },
  update: (c, s, a, k) => {
    const os = others(c, "update", a, k);
    s.checkMutable("update");
    for (const o of os) for (const e of o.elems()) s.add(e);
    return null;
  },
};
