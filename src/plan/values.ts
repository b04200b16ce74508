// The playbook's own Starlark values: tasks, field references and questions (T-10, §7).
// Each wraps the declared data (declared.ts) the checks read later.

import { nearestName, type Position } from "../lang/diagnostic.js";
import { Dict, HostObject, StarList, Tuple, type CallContext, type Value } from "../lang/values.js";
import type { DeclQuestion, DeclRef, DeclTask } from "./declared.js";

/** Records a problem without stopping evaluation (so every independent problem is reported). */
export interface ProblemSink {
  report(code: string, message: string, pos: Position, hint?: string): void;
  /**
   * True when `pos` is the name of a written `x.name` (not a hasattr/getattr probe, which must
   * simply answer "no such field" without an error).
   */
  isAttributeSyntax(pos: Position, name: string): boolean;
}

/** A task value: what `command(...)`, `agent(...)` etc. return. `task.field` is a field reference. */
export class TaskValue extends HostObject {
  readonly starType = "task";
  constructor(
    readonly decl: DeclTask,
    private readonly sink: ProblemSink,
  ) {
    super();
  }
  override attr(name: string, pos: Position): Value | undefined {
    const t = this.decl;
    if (name in t.emits) return new FieldRefValue({ producer: t, field: name, pos });
    if (!this.sink.isAttributeSyntax(pos, name)) return undefined;
    // A task whose emits could not be read has unknown fields: no follow-on error.
    if (!t.broken.has("emits") && !t.broken.has("questions") && !t.broken.has("all")) {
      const fields = Object.keys(t.emits);
      const near = nearestName(name, fields);
      const what = t.kind === "route" ? "question" : "field";
      this.sink.report(
        "undeclared-field",
        `${t.name}.${name}: '${t.name}' declares no ${what} '${name}' (declared: ${fields.length ? fields.join(", ") : "none"})`,
        pos,
        near
          ? `did you mean ${t.name}.${near}?`
          : t.kind === "route"
            ? "a route's fields are its question names"
            : `declare ${name} in ${t.name}'s emits`,
      );
    }
    return new FieldRefValue(undefined, t);
  }
  override attrNames(): string[] {
    return Object.keys(this.decl.emits);
  }
  override repr(): string {
    return `<${this.decl.kind} ${this.decl.name}>`;
  }
  override hashKey(): string {
    return `task#${this.decl.id}`;
  }
}

/** `producer.field`. `ref` is undefined when the reference itself was an error (already reported). */
export class FieldRefValue extends HostObject {
  readonly starType = "field_ref";
  constructor(
    readonly ref: DeclRef | undefined,
    /** With no `ref`: the task whose field could not be resolved. */
    readonly producer?: DeclTask,
  ) {
    super();
  }
  override repr(): string {
    return this.ref ? `<field ${this.ref.producer.name}.${this.ref.field}>` : "<field ?>";
  }
  override hashKey(): string | undefined {
    return this.ref ? `ref#${this.ref.producer.id}.${this.ref.field}` : undefined;
  }
}

/** `choice(...)`, `noul(...)`, `score(...)`: a question waiting for its name (the key in `questions`). */
export class QuestionValue extends HostObject {
  readonly starType = "question";
  constructor(readonly question: Omit<DeclQuestion, "name">) {
    super();
  }
  override repr(): string {
    return `<${this.question.kind} question>`;
  }
}

let inertCount = 0;

/** Values of the inert mode (run-time re-execution for `evaluate`): they declare nothing. */
export class InertValue extends HostObject {
  readonly starType: string;
  private readonly id = inertCount++;
  constructor(kind: string) {
    super();
    this.starType = kind;
  }
  override attr(): Value {
    return new InertValue("field_ref");
  }
  override hashKey(): string {
    return `inert#${this.id}`;
  }
}

/**
 * The type name of a BrokenValue. A run-time error that names it follows from the module's own
 * errors (already reported there), so the compiler does not report it again.
 */
export const BROKEN_TYPE = "unknown_from_module_with_errors";

let brokenCount = 0;

/**
 * A name loaded from a module that has errors (or that could not be loaded). Its value is
 * unknown, so the playbook goes on with a stand-in: reading a field of it or calling it gives
 * another stand-in, and a task argument holding one is left unchecked (the task is marked broken
 * there), so the rest of the playbook is still checked and nothing is reported twice.
 */
export class BrokenValue extends HostObject {
  readonly starType = BROKEN_TYPE;
  private readonly id = brokenCount++;
  constructor(
    /** Pack-relative path of the module with errors. */
    readonly module: string,
    /** Told the arguments of every call: a broken helper may have declared tasks with them. */
    private readonly onCall: (args: Value[]) => void,
  ) {
    super();
  }
  override attr(): Value {
    return this;
  }
  override call(_call: CallContext, args: Value[], kwargs: Array<[string, Value]>): Value {
    this.onCall([...args, ...kwargs.map(([, v]) => v)]);
    return this;
  }
  override repr(): string {
    return `<unknown value from ${this.module}>`;
  }
  override hashKey(): string {
    return `broken#${this.id}`;
  }
}

/** True when `v` passes `test`, or holds (in a list, tuple or dict) a value that does. */
export function holds(v: Value, test: (x: Value) => boolean, seen = new Set<Value>()): boolean {
  if (test(v)) return true;
  if (v instanceof StarList || v instanceof Tuple) {
    if (seen.has(v)) return false;
    seen.add(v);
    return v.elems.some((x) => holds(x, test, seen));
  }
  if (v instanceof Dict) {
    if (seen.has(v)) return false;
    seen.add(v);
    return [...v.entries()].some(([k, x]) => holds(k, test, seen) || holds(x, test, seen));
  }
  return false;
}

/** Whether a value stands for an argument already reported as wrong, so that nothing downstream reports it again. */
export const isBroken = (v: Value): boolean => v instanceof BrokenValue;
