// Seams for the untrusted-file reader's second locks. Those checks only matter when a file or a
// folder is swapped between two system calls, a race no test can win by waiting. Node offers an
// exact seam instead: a function of node:fs or node:fs/promises replaced on the module's CommonJS
// object and published to every ES module's named import by syncBuiltinESMExports. A hook runs the
// real system call and does a real swap on the real file system just before or just after it, on
// the first call that names the given path; nothing is faked. The same seam loads a second copy of
// the reader that finds no /proc, as on macOS, to test the paths taken there.

import { readdirSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import type * as Reader from "../../src/run/process/untrusted-file.js";

const load = createRequire(import.meta.url);
type Module = Record<string, unknown>;
const modules: Record<"fs" | "fs/promises", Module> = { fs: load("node:fs") as Module, "fs/promises": load("node:fs/promises") as Module };

/** When a hook's swap happens: just before the real call, or just after it returned. */
export type When = "before" | "after";

/** A swap done once, around the first call of `fn` (of `mod`) whose first argument is `path` (or passes it). */
export interface Hook {
  mod: "fs" | "fs/promises";
  fn: string;
  path: string | ((arg: unknown) => boolean);
  when: When;
  swap: () => void;
}

/** Runs `body` with the hooks in place (one must fire); every function is put back afterwards, however body ends. */
export async function withHooks<T>(hooks: readonly Hook[], body: () => Promise<T> | T): Promise<T> {
  const saved: Array<() => void> = [];
  let fired = false;
  for (const h of hooks) {
    const m = modules[h.mod];
    const real = m[h.fn];
    if (typeof real !== "function") throw new TypeError(`node:${h.mod} has no function ${h.fn}`);
    saved.push(() => (m[h.fn] = real));
    // One swap per test: the hooks of one list are alternatives (whichever call looks first).
    const hooked = function (this: unknown, ...args: unknown[]): unknown {
      const mine = !fired && (typeof h.path === "string" ? args[0] === h.path : h.path(args[0]));
      if (mine) fired = true;
      if (mine && h.when === "before") h.swap();
      const out: unknown = Reflect.apply(real, this, args);
      if (mine && h.when === "after") {
        if (out instanceof Promise) return out.then((v: unknown) => (h.swap(), v));
        h.swap();
      }
      return out;
    };
    m[h.fn] = hooked;
  }
  syncBuiltinESMExports();
  let out: T;
  try {
    out = await body();
  } finally {
    for (const restore of saved) restore();
    syncBuiltinESMExports();
  }
  // A hook that never fired swapped nothing: the test would check an ordinary read.
  if (!fired) throw new TypeError(`no hook fired: ${hooks.map((h) => `${h.mod}.${h.fn}`).join(", ")} never saw its path`);
  return out;
}

/**
 * A second copy of the reader, loaded while `existsSync("/proc/self/fd")` says false: the paths
 * taken where there is no /proc (the query string makes it a module of its own).
 */
export async function readerWithoutProc(): Promise<typeof Reader> {
  const url = new URL("../../src/run/process/untrusted-file.js?without-proc", import.meta.url).href;
  const realExists = modules.fs.existsSync;
  if (typeof realExists !== "function") throw new TypeError("node:fs has no existsSync");
  modules.fs.existsSync = (p: unknown): unknown => (p === "/proc/self/fd" ? false : Reflect.apply(realExists, undefined, [p]));
  syncBuiltinESMExports();
  try {
    return (await import(url)) as typeof Reader;
  } finally {
    modules.fs.existsSync = realExists;
    syncBuiltinESMExports();
  }
}

/** How many descriptors this process holds open (Linux): a read must leave it as it found it. */
export function openDescriptors(): number {
  return readdirSync("/proc/self/fd").length;
}
