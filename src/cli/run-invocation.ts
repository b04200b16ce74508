// How a run was started (its --config and --decide), kept beside the run so that `resume` asks
// the same agent runners and models without the flags being typed again. It is not part of the
// event log: the machine config is the person's, and `resume --config`/`--decide` may change it.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readInvocation, writeInvocation, type Store } from "../run/index.js";
import type { RunFlags } from "./run-wiring.js";
import { isPlainObject, parseJson } from "../shared/primitives.js";

interface Invocation {
  config: string | null;
  decide: string[];
}

// Kept in the state database (so a deleted run folder does not make a resume silently use
// another machine config), and as invocation.json in the run folder for people and older runs.
function file(stateDir: string, run: string): string {
  return join(stateDir, "runs", run, "invocation.json");
}

/** Keeps a run's --config and --decide beside it, for `resume` to reuse. */
export function rememberInvocation(store: Store, run: string, flags: RunFlags): void {
  const inv: Invocation = { config: flags.config ? resolve(flags.config) : null, decide: flags.decide };
  writeInvocation(store, run, inv.config, JSON.stringify(inv.decide));
  writeFileSync(file(store.stateDir, run), JSON.stringify(inv, null, 2) + "\n");
}

/** A list of strings, or undefined when `v` is anything else. */
function stringList(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const x of v) if (typeof x === "string") out.push(x);
  return out.length === v.length ? out : undefined;
}

/** A note of how a run was started, checked (null when it is not one: a damaged note only loses the convenience). */
function invocationOf(v: unknown): Invocation | null {
  if (!isPlainObject(v)) return null;
  const decide = stringList(v.decide);
  const config = v.config;
  if (!decide || (config !== null && typeof config !== "string")) return null;
  return { config, decide };
}

function stored(store: Store, run: string): Invocation | null {
  try {
    const row = readInvocation(store, run);
    const decide = row ? stringList(parseJson(row.decide)) : undefined;
    if (row && decide) return { config: row.config, decide };
  } catch {
    // a read-only database: the file below may still say
  }
  const path = file(store.stateDir, run);
  if (!existsSync(path)) return null;
  try {
    return invocationOf(parseJson(readFileSync(path, "utf8")));
  } catch {
    return null; // a damaged note only loses the convenience; the flags still work
  }
}

/**
 * Fills in --config and --decide from the run's own invocation where the resume command gave
 * none. Returns a note for the user naming what was reused, or null.
 */
export function recallInvocation(store: Store, run: string, flags: RunFlags): string | null {
  const inv = stored(store, run);
  if (!inv) return null;
  const reused: string[] = [];
  if (flags.config === undefined && inv.config) {
    flags.config = inv.config;
    reused.push(`--config ${inv.config}`);
  }
  if (flags.decide.length === 0 && inv.decide.length > 0) {
    flags.decide = [...inv.decide];
    reused.push(...inv.decide.map((d) => `--decide ${d}`));
  }
  return reused.length ? `resuming with the run's own ${reused.join(" ")} (pass the flag to change it)` : null;
}
