// Which diagnostics mean the command was pointed at the wrong thing (exit 2, §12) rather than a
// playbook or config that is wrong (exit 1): the codes a catalog marks `usage`. Only the plan's,
// the decision layer's and the library API's catalogs mark any (test/shared/start-up-modules.test.ts holds
// this against every catalog), so `check`, `compile` and `run` read these three catalogs here,
// not every layer's (cli/codes.ts), which would load the run engine and the lab to print a
// compile error.

import type { Diagnostic } from "../lang/diagnostic.js";
import { API_CODES } from "../api/codes.js";
import { DECIDE_CODES } from "../decide/codes.js";
import { PLAN_CODES } from "../plan/codes.js";
import { EXIT_FAILED, EXIT_USAGE } from "./exit-status.js";

/** The codes marked `usage` in the catalogs. */
export const USAGE_CODES: ReadonlySet<string> = new Set(
  [...PLAN_CODES, ...DECIDE_CODES, ...API_CODES].flatMap((e) => (e.usage ? [e.code] : [])),
);

/** 2 when a diagnostic means the command was pointed at the wrong thing or the config is wrong, else 1. */
export function exitForDiagnostics(diagnostics: readonly Diagnostic[]): number {
  return diagnostics.some((d) => USAGE_CODES.has(d.code)) ? EXIT_USAGE : EXIT_FAILED;
}
