// How a run was started (its --config and --decide), kept beside the run so that `resume` asks
// the same agent runners and models without the flags being typed again. It is not part of the
// event log: the machine config is the person's, and `resume --config`/`--decide` may change it.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RunFlags } from "./run-wiring.js";

interface Invocation {
  config: string | null;
  decide: string[];
}

function file(stateDir: string, run: string): string {
  return join(stateDir, "runs", run, "invocation.json");
}

export function rememberInvocation(stateDir: string, run: string, flags: RunFlags): void {
  const inv: Invocation = { config: flags.config ? resolve(flags.config) : null, decide: flags.decide };
  writeFileSync(file(stateDir, run), JSON.stringify(inv, null, 2) + "\n");
}

/**
 * Fills in --config and --decide from the run's own invocation where the resume command gave
 * none. Returns a note for the user naming what was reused, or null.
 */
export function recallInvocation(stateDir: string, run: string, flags: RunFlags): string | null {
  const path = file(stateDir, run);
  if (!existsSync(path)) return null;
  let inv: Invocation;
  try {
    inv = JSON.parse(readFileSync(path, "utf8")) as Invocation;
  } catch {
    return null; // a damaged note only loses the convenience; the flags still work
  }
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
