// Reading the arguments of the playbook built-ins strictly (C-2): every problem is reported at the
// argument's own position and the call goes on with a default, so one pass finds every mistake.

import { nearestName, type Position } from "../lang/diagnostic.js";
import { Dict, StarError, StarList, Tuple, typeName, unpackArgs, type CallContext, type Value } from "../lang/values.js";
import type { CompileContext } from "./context.js";
import type { DeclRef, DeclTask } from "./declared.js";
import { CodedError } from "../shared/coded-error.js";
import { itemAt } from "../shared/checked-index.js";
import { parseDurationSeconds } from "../shared/primitives.js";
import { FieldRefValue, holds, isBroken, TaskValue } from "./values.js";
import { isOneOf } from "../shared/primitives.js";

/** A built-in's arguments by name, with where each was written, as the argument readers consume them. */
export interface Args {
  values: Record<string, Value>;
  positions: Record<string, Position>;
  /**
   * Set when a dropped argument may have been the task's gate and named fields of these tasks
   * only: then only their coverage is unknown, not every route's (G-8).
   */
  gatesOn?: DeclTask[];
}

/**
 * unpackArgs, but an argument error does not stop the call: it is recorded, the offending argument
 * dropped (or required ones relaxed), and unpacking retried, so the other arguments are still read.
 */
export function unpack(
  ctx: CompileContext,
  call: CallContext,
  fn: string,
  args: Value[],
  kwargs: Array<[string, Value]>,
  params: string[],
  broken: Set<string>,
): Args {
  // Only a compilation with a failed load has unknown values to leave out.
  let { pos, kw } = ctx.unknownValues ? leaveOutUnknown(args, kwargs, params, broken) : { pos: args, kw: kwargs };
  // A required argument that was left out as unknown is not missing.
  let ps = params.map((p) => (broken.has(p) ? p + "?" : p));
  // The tasks a dropped argument that may have been the gate refers to; undefined: any route.
  let gatesOn: Set<DeclTask> | undefined = broken.has("when") ? undefined : new Set();
  const mayHaveGated = (v: Value) => {
    const refs = fieldRefsIn(v);
    if (refs.length === 0) gatesOn = undefined;
    for (const r of refs) {
      const producer = r.ref?.producer ?? r.producer;
      if (producer) gatesOn?.add(producer);
      else gatesOn = undefined;
    }
  };
  for (let attempt = 0; attempt < 64; attempt++) {
    try {
      const a = unpackArgs(call, fn, pos, kw, ps);
      // None for an optional argument means "not given", so helpers can pass `over = over` through.
      for (const p of params) {
        if (p.endsWith("?") && a.values[p.slice(0, -1)] === null) delete a.values[p.slice(0, -1)];
      }
      return broken.has("when") && gatesOn ? { ...a, gatesOn: [...gatesOn] } : a;
    } catch (e) {
      if (!(e instanceof StarError)) throw e;
      ctx.report(e.code, e.message, e.pos ?? call.pos, e.hint);
      if (e.code === "missing-argument") {
        const m = /'([^']+)'/.exec(e.message);
        if (m?.[1] !== undefined) broken.add(m[1]);
        ps = ps.map((p) => (p.endsWith("?") ? p : p + "?"));
      } else if (e.code === "too-many-arguments") {
        for (const v of pos.slice(ps.length).filter(mayBeGate)) {
          broken.add("when");
          mayHaveGated(v);
        }
        pos = pos.slice(0, ps.length);
        broken.add("all");
      } else {
        const idx = kw.findIndex(([k]) => samePos(call.kwargPositions[k], e.pos));
        const at = idx >= 0 ? idx : kw.findIndex(([k]) => e.message.includes(`'${k}'`));
        if (at < 0) break;
        const [name, value] = itemAt(kw, at);
        // The argument it was probably meant to be is unknown now: skip rules that need it. With
        // no close name, the task's other arguments are still good; only a field reference could
        // have been a gate, and only then is the coverage of gates unknown (G-8).
        const near = nearestName(
          name,
          ps.map((p) => p.replace("?", "")),
        );
        broken.add(near ?? "all");
        if (near === "when" || (near === undefined && mayBeGate(value))) {
          broken.add("when");
          mayHaveGated(value);
        }
        kw = kw.filter((_, i) => i !== at);
      }
    }
  }
  broken.add("all");
  broken.add("when");
  return { values: {}, positions: {} };
}

/**
 * Values loaded from a module with errors are unknown (the module's errors are reported there):
 * an argument that is such a value is left out, and one holding some (in a list or dict) keeps
 * only its known parts; either way the argument is marked broken, so the rules that need it are
 * skipped and no follow-on problem is invented. An unknown argument name is kept, to be reported.
 */
function leaveOutUnknown(
  args: Value[],
  kwargs: Array<[string, Value]>,
  params: string[],
  broken: Set<string>,
): { pos: Value[]; kw: Array<[string, Value]> } {
  if (!args.some((a) => holds(a, isBroken)) && !kwargs.some(([, v]) => holds(v, isBroken))) return { pos: args, kw: kwargs };
  const names = params.map((p) => p.replace("?", ""));
  // Positional arguments become keywords, so that an unknown one can be left out.
  const given: Array<[string, Value]> = [...args.slice(0, names.length).map((v, i): [string, Value] => [itemAt(names, i), v]), ...kwargs];
  const kw: Array<[string, Value]> = [];
  for (const [name, v] of given) {
    if (!names.includes(name) || !holds(v, isBroken)) kw.push([name, v]);
    else {
      broken.add(name);
      const known = knownPart(v);
      if (known !== undefined) kw.push([name, known]);
    }
  }
  return { pos: args.slice(names.length), kw };
}

/** The elements (entries) of a list (dict) that hold no unknown value; undefined for anything else. */
function knownPart(v: Value): Value | undefined {
  if (v instanceof StarList || v instanceof Tuple) return new StarList(v.elems.filter((x) => !holds(x, isBroken)));
  if (v instanceof Dict) {
    const d = new Dict();
    for (const [k, x] of v.entries()) if (!holds(k, isBroken) && !holds(x, isBroken)) d.setFresh(k, x);
    return d;
  }
  return undefined;
}

/** A dropped argument could have been a `when` only if it holds a field reference. */
function mayBeGate(v: Value): boolean {
  return fieldRefsIn(v).length > 0;
}

function fieldRefsIn(v: Value): FieldRefValue[] {
  if (v instanceof FieldRefValue) return [v];
  return (listItems(v) ?? []).filter((x): x is FieldRefValue => x instanceof FieldRefValue);
}

function samePos(a: Position | undefined, b: Position | undefined): boolean {
  return a !== undefined && b !== undefined && a.line === b.line && a.col === b.col && a.file === b.file;
}

/** Typed reads of unpacked arguments; a wrong type is reported and the default used. */
export class Reader {
  constructor(
    readonly ctx: CompileContext,
    readonly fn: string,
    readonly a: Args,
    readonly callPos: Position,
    readonly broken: Set<string>,
  ) {}

  has(name: string): boolean {
    return name in this.a.values;
  }
  /** The value of an argument the caller knows was given (after `has(name)`). */
  value(name: string): Value {
    const v = this.a.values[name];
    if (v === undefined) throw new CodedError("internal-error", `${this.fn}() argument '${name}' was read before checking it was given`);
    return v;
  }
  pos(name: string): Position {
    return this.a.positions[name] ?? this.callPos;
  }
  wrong(name: string, expected: string, v: Value, hint?: string): undefined {
    this.ctx.report("wrong-type", `${this.fn}() argument '${name}' must be ${expected}, got ${describe(v)}`, this.pos(name), hint);
    this.broken.add(name);
    return undefined;
  }
  invalid(name: string, message: string, hint?: string): undefined {
    this.ctx.report("invalid-value", `${this.fn}() argument '${name}': ${message}`, this.pos(name), hint);
    this.broken.add(name);
    return undefined;
  }
  string(name: string): string | undefined {
    const v = this.a.values[name];
    if (v === undefined) return undefined;
    return typeof v === "string" ? v : this.wrong(name, "a string", v);
  }
  optString(name: string): string | undefined {
    const v = this.a.values[name];
    return v === null ? undefined : this.string(name);
  }
  oneOf<T extends string>(name: string, allowed: readonly T[], def: T): T {
    const s = this.string(name);
    if (s === undefined) return def;
    if (!isOneOf(allowed, s)) {
      const near = nearestName(s, allowed);
      this.invalid(
        name,
        `${JSON.stringify(s)} is not one of ${allowed.map((x) => JSON.stringify(x)).join(", ")}`,
        near ? `did you mean "${near}"?` : undefined,
      );
      return def;
    }
    return s;
  }
  int(name: string, def: number, min: number, max: number): number {
    const v = this.a.values[name];
    if (v === undefined) return def;
    if (typeof v !== "bigint") return this.wrong(name, "an int", v) ?? def;
    if (v < BigInt(min) || v > BigInt(max)) return this.invalid(name, `${v} is outside ${min} … ${max}`) ?? def;
    return Number(v);
  }
  /** An int kept as written, so range errors come from the rule that owns the range. */
  rawInt(name: string): number | undefined {
    const v = this.a.values[name];
    if (v === undefined) return undefined;
    if (typeof v !== "bigint") return this.wrong(name, "an int", v);
    return v > 1_000_000_000n ? 1_000_000_001 : v < -1_000_000_000n ? -1_000_000_001 : Number(v);
  }
  number(name: string): number | undefined {
    const v = this.a.values[name];
    if (v === undefined) return undefined;
    if (v === null) return undefined;
    if (typeof v === "bigint") return Number(v);
    if (typeof v === "number") return v;
    return this.wrong(name, "a number", v);
  }
  bool(name: string, def: boolean): boolean {
    const v = this.a.values[name];
    if (v === undefined) return def;
    return typeof v === "boolean" ? v : (this.wrong(name, "True or False", v) ?? def);
  }
  stringList(name: string): string[] | undefined {
    const v = this.a.values[name];
    if (v === undefined) return undefined;
    const items = listItems(v);
    if (!items) return this.wrong(name, "a list of strings", v);
    const strings: string[] = [];
    for (const x of items) {
      if (typeof x !== "string") return this.wrong(name, "a list of strings", v);
      strings.push(x);
    }
    return strings;
  }
  /** A string or a list of strings (answers, drop). */
  labels(name: string): string[] | undefined {
    const v = this.a.values[name];
    if (v === undefined) return undefined;
    if (typeof v === "string") return [v];
    return this.stringList(name);
  }
  stringDict(name: string): Record<string, string> | undefined {
    const v = this.a.values[name];
    if (v === undefined) return undefined;
    if (!(v instanceof Dict)) return this.wrong(name, "a dict of strings", v);
    const out: Record<string, string> = {};
    for (const [k, x] of v.entries()) {
      if (typeof k !== "string" || typeof x !== "string") return this.wrong(name, "a dict of strings to strings", v);
      out[k] = x;
    }
    return out;
  }
  duration(name: string, def: number): number {
    const s = this.string(name);
    if (s === undefined) return def;
    const secs = parseDurationSeconds(s);
    if (secs === undefined) {
      this.ctx.report(
        "invalid-duration",
        `${this.fn}() argument '${name}': ${JSON.stringify(s)} is not a duration`,
        this.pos(name),
        'write numbers with units ms, s, m or h, e.g. "90s", "1.5s", "10m", "1h30m"',
      );
      this.broken.add(name);
      return def;
    }
    return secs;
  }
  /** A field reference; an erroneous reference (already reported) marks the argument broken. */
  ref(name: string, v: Value | undefined = this.a.values[name]): DeclRef | undefined {
    if (v === undefined) return undefined;
    if (v instanceof FieldRefValue) {
      if (!v.ref) this.broken.add(name);
      return v.ref ? { ...v.ref } : undefined;
    }
    if (v instanceof TaskValue) return this.wrong(name, "a field reference (task.field)", v, `write ${v.decl.name}.FIELD`);
    return this.wrong(name, "a field reference (task.field)", v);
  }
}

/** The elements of a list or tuple; undefined for any other value. */
export function listItems(v: Value): readonly Value[] | undefined {
  if (v instanceof StarList || v instanceof Tuple) return v.elems;
  return undefined;
}

/** A value named for an error message: its type, and a short excerpt of a string or the task a reference points at. */
export function describe(v: Value): string {
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  if (v instanceof TaskValue) return `task '${v.decl.name}'`;
  if (v instanceof FieldRefValue) return v.ref ? `field reference ${v.ref.producer.name}.${v.ref.field}` : "a field reference";
  return typeName(v);
}
