// `switchyard check PATH`: report every problem of a playbook (C-1 … C-9), sorted by file and
// line; exit 1 if any is an error, 0 when clean (§8, §12). Warnings include the estimated size of
// each model-decided route's state (R-22), whose limit `--state-warn-tokens` sets.

import type { Command } from "commander";
import type { Diagnostic } from "../lang/diagnostic.js";
import { compilePath } from "../plan/index.js";
import { sortDiagnostics } from "../lang/diagnostic.js";
import { stateSizeWarnings } from "../plan/state-size.js";
import { compileFailureExit, formatForPeople, setExitCode, examples } from "./common.js";
import { countFlag, STATE_WARN_HELP } from "./estimate-flags.js";

/** The closing line of `check`: how many errors and warnings, or that all is well. */
export function summaryLine(diags: Diagnostic[]): string {
  const errors = diags.filter((d) => d.severity === "error").length;
  const warnings = diags.length - errors;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
  return warnings ? `${plural(errors, "error")}, ${plural(warnings, "warning")}` : plural(errors, "error");
}

/** Adds `switchyard check`: compiles a pack, playbook or plan and reports every problem, running nothing. */
export function register(program: Command): void {
  program
    .command("check")
    .description("check a pack, playbook (.star) or plan (.toml) and report every problem")
    .addHelpText(
      "after",
      examples([
        ["switchyard check ."],
        ["switchyard check triage.star --json", "for editors and CI"],
        ["switchyard check . --state-warn-tokens 8000", "a larger route state before the size warning"],
      ]),
    )
    .argument("<path>", "pack folder, .star playbook or compiled plan .toml")
    .option("--playbook <name>", "which playbook of a pack with several")
    .option("--json", "print the diagnostics as JSON")
    .option("--state-warn-tokens <n>", STATE_WARN_HELP)
    .action((path: string, opts: { playbook?: string; json?: boolean; stateWarnTokens?: string }) => {
      const limit = countFlag("--state-warn-tokens", opts.stateWarnTokens);
      const compiled = compilePath(path, { playbook: opts.playbook });
      const result = compiled.plan
        ? { ...compiled, diagnostics: sortDiagnostics([...compiled.diagnostics, ...stateSizeWarnings(compiled.plan.tasks, limit)]) }
        : compiled;
      const failed = result.diagnostics.some((d) => d.severity === "error");
      if (opts.json) {
        process.stdout.write(
          JSON.stringify(
            {
              ok: !failed,
              playbook: result.plan?.playbook ?? null,
              tasks: result.plan?.tasks.length ?? null,
              diagnostics: result.diagnostics,
            },
            null,
            2,
          ) + "\n",
        );
      } else {
        const sources = (f: string) => result.sources.get(f);
        for (const d of result.diagnostics) process.stderr.write(formatForPeople(d, sources) + "\n\n");
        const plan = result.plan;
        if (failed || !plan) process.stderr.write(`${path}: ${summaryLine(result.diagnostics)}\n`);
        else
          process.stdout.write(
            `${path}: ok: playbook '${plan.playbook}', ${plan.tasks.length} task${plan.tasks.length === 1 ? "" : "s"}${result.diagnostics.length ? ` (${summaryLine(result.diagnostics)})` : ""}\n`,
          );
      }
      if (failed) setExitCode(compileFailureExit(result.diagnostics));
    });
}
