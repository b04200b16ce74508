// Indexed access the compiler cannot prove in range (`noUncheckedIndexedAccess` types `xs[i]` as
// possibly undefined). For an index the caller has proved in range — a loop bounded by the length,
// an index taken from the same array — a miss is a bug in switchyard, not in any input: it throws
// an internal error that names the index instead of letting `undefined` travel on. (For arrays
// whose elements are never undefined, which is every array this is used on.)
import { CodedError } from "./coded-error.js";

/** `xs[i]`, for an `i` the caller knows is in range. */
export function itemAt<T>(xs: ArrayLike<T>, i: number): T {
  const x = xs[i];
  if (x === undefined) throw new CodedError("internal-error", `index ${i} is outside 0..${xs.length - 1}`);
  return x;
}

/** `map.get(key)`, for a key the caller knows is present (`what` names the map in the internal error a miss throws). */
export function entryOf<K, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const v = map.get(key);
  if (v === undefined) throw new CodedError("internal-error", `${what} has no entry ${String(key)}`);
  return v;
}
