// check(path) and compile(path): the checks and the plan of a pack, playbook or plan .toml, as
// `switchyard check --json` and `switchyard compile` give them.

import type { Diagnostic } from "../lang/diagnostic.js";
import { DiagnosticError } from "../lang/diagnostic.js";
import { compilePath, writePlanToml, type Plan } from "../plan/index.js";

/** Which playbook of a pack with several (as `--playbook`). */
export interface CompileOptions {
  playbook?: string;
}

/** What `check` finds: whether the playbook compiles, its name and size, and every diagnostic (the `check --json` shape). */
export interface CheckResult {
  ok: boolean;
  playbook: string | null;
  tasks: number | null;
  diagnostics: Diagnostic[];
}

/** A compiled playbook: its plan, the plan as TOML (`switchyard compile`), its warnings, and the pack folder. */
export interface Compiled {
  plan: Plan;
  toml: string;
  diagnostics: Diagnostic[];
  packRoot: string;
}

/** Checks a pack folder, .star playbook or plan .toml and returns every diagnostic; never throws for a mistake in it. */
export function check(path: string, opts: CompileOptions = {}): CheckResult {
  const result = compilePath(path, opts);
  return {
    ok: !result.diagnostics.some((d) => d.severity === "error"),
    playbook: result.plan?.playbook ?? null,
    tasks: result.plan?.tasks.length ?? null,
    diagnostics: result.diagnostics,
  };
}

/** Compiles a pack folder, .star playbook or plan .toml; throws a DiagnosticError (its `diagnostics` listed) when it has errors. */
export function compile(path: string, opts: CompileOptions = {}): Compiled {
  const result = compilePath(path, opts);
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (!result.plan || errors.length > 0)
    throw new DiagnosticError(errors.length > 0 ? errors : result.diagnostics, (f) => result.sources.get(f));
  return { plan: result.plan, toml: writePlanToml(result.plan), diagnostics: result.diagnostics, packRoot: result.packRoot };
}
