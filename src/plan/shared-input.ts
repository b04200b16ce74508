// An evaluate instance's input as a Starlark value, with its dependencies' outputs converted once
// per run. The engine hands every instance of a task the same JavaScript object for an
// unmapped dependency's output and for a mapped dependency's fold, and a `keyed` narrowing keeps
// the producer's other fields as they are; converting those again per instance made a fan-out
// that reads a producer whole quadratic. So a dependency's output — and each of its fields — is
// converted and frozen the first time any instance reads it, and every later instance reuses the
// same frozen value. The instance's own envelope (the input dict, its `inputs` dict, `key`,
// `statuses`, `feedback`) is built fresh per call and stays mutable.
//
// Cached by object identity in a WeakMap: outputs are never changed after they are recorded, and
// an entry lives exactly as long as the engine holds the output. An object is cached from its
// second conversion on: an aligned dependency's output is read by one instance only, and keeping
// a converted copy of each of those for the whole run would double a large run's memory.

import { Dict, freeze, fromJSON, type Value } from "../lang/index.js";
import { isPlainObject } from "../shared/primitives.js";

const converted = new WeakMap<object, Value>();
/** Objects converted once and not cached: a second conversion caches them. */
const seenOnce = new WeakSet<object>();

/** Caches `v` as the conversion of `x` if `x` was converted before. */
function remember(x: object, v: Value): Value {
  if (seenOnce.has(x)) converted.set(x, v);
  else seenOnce.add(x);
  return v;
}

/** `x` converted and frozen, reusing the conversion of the same object. */
function frozenValue(x: unknown): Value {
  if (typeof x !== "object" || x === null) return fromJSON(x);
  const hit = converted.get(x);
  if (hit !== undefined) return hit;
  const v = fromJSON(x);
  freeze(v);
  return remember(x, v);
}

/**
 * A dependency's output (or fold): reused when the same object was seen; otherwise a frozen dict
 * whose field values are themselves reused (a `keyed` narrowing is a fresh object per instance,
 * but every field but the narrowed one is the producer's own).
 */
function dependencyValue(x: unknown): Value {
  if (!isPlainObject(x)) return frozenValue(x);
  const hit = converted.get(x);
  if (hit !== undefined) return hit;
  const d = new Dict();
  for (const [k, v] of Object.entries(x)) d.setFresh(k, frozenValue(v));
  d.frozen = true;
  return remember(x, d);
}

/** The input dict an evaluate function receives; anything not shaped like an instance input is converted plainly. */
export function inputValue(input: unknown): Value {
  if (!isPlainObject(input) || !isPlainObject(input.inputs)) return fromJSON(input);
  const d = new Dict();
  for (const [k, v] of Object.entries(input)) {
    if (k !== "inputs" || !isPlainObject(v)) {
      d.setFresh(k, fromJSON(v));
      continue;
    }
    const inputs = new Dict();
    for (const [dep, out] of Object.entries(v)) inputs.setFresh(dep, dependencyValue(out));
    d.setFresh(k, inputs);
  }
  return d;
}
