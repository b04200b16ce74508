import { createHash } from "node:crypto";
import { CodedError, type ErrorDetails } from "../../shared/coded-error.js";

// Element keys (M-1): an element is a string or an integer; its key is the string itself or the
// integer's decimal text, 1–256 characters, with no NUL or control characters, unique in the list.
// The list length is checked against max_fanout before any element is read.

/** A mapped task's list that cannot give element keys (M-1 … M-3). */
export class KeyError extends CodedError {
  constructor(code: "bad-element" | "duplicate-key" | "over-max-fanout" | "over-value-not-list", message: string, details?: ErrorDetails) {
    super(code, message, details);
  }
}

// C0 controls, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The most max_fanout may be (the compiler's cap, M-1). */
const MAX_FANOUT_CAP = 10000;

/** The keys of a list's elements (M-1 … M-3): checked against max_fanout first, then each element's key, unique. */
export function elementKeys(list: unknown, where: string, maxFanout: number): string[] {
  if (!Array.isArray(list)) {
    throw new KeyError("over-value-not-list", `${where} is not a list (got ${list === null ? "null" : typeof list}) (M-1)`);
  }
  if (list.length > maxFanout) {
    throw new KeyError(
      "over-max-fanout",
      `${where} has ${list.length} elements, more than max_fanout = ${maxFanout} (M-1); ${maxFanout >= MAX_FANOUT_CAP ? `max_fanout is already at its cap of ${MAX_FANOUT_CAP}: shorten the list, or split it across tasks` : `raise max_fanout (at most ${MAX_FANOUT_CAP}) or shorten the list`}`,
    );
  }
  // Stryker disable next-line ArrayDeclaration: preallocation only; every slot is assigned in order below, so `new Array()` builds the same list
  const keys: string[] = new Array(list.length);
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    let key: string;
    if (typeof e === "string") key = e;
    // Number.isSafeInteger is false for every value that is not a number: no typeof test is needed
    else if (Number.isSafeInteger(e)) key = String(e);
    else {
      const what =
        e === null
          ? "null"
          : Array.isArray(e)
            ? "a list"
            : typeof e === "object"
              ? "an object"
              : typeof e === "number"
                ? Number.isInteger(e)
                  ? `the integer ${BigInt(e)}, beyond 2^53, which a key cannot hold exactly (write it as a string)`
                  : `the non-integer number ${e}`
                : typeof e;
      throw new KeyError("bad-element", `element ${i} of ${where} is ${what}; elements must be strings or integers (M-1)`);
    }
    if (key.length < 1 || key.length > 256) {
      throw new KeyError(
        "bad-element",
        `element ${i} of ${where} has a key of ${key.length} characters; keys are 1 to 256 characters (M-1)`,
      );
    }
    if (CONTROL.test(key)) {
      throw new KeyError("bad-element", `element ${i} of ${where} (${JSON.stringify(key)}) contains a NUL or control character (M-1)`);
    }
    if (seen.has(key)) {
      throw new KeyError("duplicate-key", `element ${i} of ${where} repeats the key ${JSON.stringify(key)}; keys must be unique (M-1)`);
    }
    seen.add(key);
    keys[i] = key;
  }
  return keys;
}

/** A file-system-safe, collision-free folder name for a key. */
export function keyDirName(key: string): string {
  if (/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}$/.test(key)) return key;
  const safe = key.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 40);
  return `~${safe}-${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
}
