// JSON text of instance inputs with each dependency's output serialised once per run.
// Every instance of a task receives the same object for an unmapped dependency's output and for
// a mapped dependency's fold, and a `keyed` narrowing keeps the producer's other fields as they
// are; serialising those again for every instance (a command's input file, a route's state, a
// prompt placeholder) made reading a producer whole quadratic. Text is cached by object identity
// in a WeakMap: outputs are never changed once recorded, and an entry lives as long as the
// output does. An object is cached from its second serialisation on, so the output of an aligned
// dependency, read by one instance only, does not keep a second copy of itself as text. The result is exactly the text the plain serialiser gives for the whole value.

import type { InstanceInput } from "./context.js";
import { isPlainObject, stableStringify } from "../values/index.js";

class SharedText {
  private readonly cache = new WeakMap<object, string>();
  private readonly seenOnce = new WeakSet<object>();
  constructor(
    private readonly serialise: (v: unknown) => string,
    /** Whether object keys are written sorted (the route state's deterministic form, R-21). */
    private readonly sorted: boolean,
  ) {}

  /** `x` as text, reusing the text of the same object. */
  value(x: unknown): string {
    if (typeof x !== "object" || x === null) return this.serialise(x);
    const hit = this.cache.get(x);
    if (hit !== undefined) return hit;
    return this.remember(x, this.serialise(x));
  }

  /** A dependency's output: reused whole, or built from its fields' reused text (a `keyed` narrowing). */
  dependency(x: unknown): string {
    if (!isPlainObject(x)) return this.value(x);
    const hit = this.cache.get(x);
    if (hit !== undefined) return hit;
    return this.remember(
      x,
      this.object(x, (v) => this.value(v)),
    );
  }

  private remember(x: object, text: string): string {
    if (this.seenOnce.has(x)) this.cache.set(x, text);
    else this.seenOnce.add(x);
    return text;
  }

  /** An instance input (or a route state built on one): its `inputs` entries as dependencies. */
  input(input: InstanceInput | Record<string, unknown>): string {
    return this.object(input as Record<string, unknown>, (v, k) =>
      k === "inputs" && isPlainObject(v) ? this.object(v, (out) => this.dependency(out)) : this.serialise(v),
    );
  }

  private object(x: Record<string, unknown>, part: (v: unknown, k: string) => string): string {
    const keys = this.sorted ? Object.keys(x).sort() : Object.keys(x);
    let text = "{";
    for (const k of keys) {
      const v = x[k];
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      text += (text.length > 1 ? "," : "") + JSON.stringify(k) + ":" + part(v, k);
    }
    return text + "}";
  }
}

/** `JSON.stringify` of inputs and prompt values (command input files, agent prompts, T-1, T-2). */
export const inputJson = new SharedText((v) => JSON.stringify(v) ?? "null", false);

/** The stable serialisation of a route's state, equal to `stableStringify(state)`. */
export const stateJson = new SharedText(stableStringify, true);
