// `switchyard compile PATH [-o FILE]`: the checked plan as TOML (C-20), to stdout or a file.
// On errors nothing is written and the diagnostics are printed (exit 1; exit 2 when the path or --playbook names nothing).

import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { compilePath, writePlanToml } from "../plan/index.js";
import { summaryLine } from "./check.js";
import { compileFailureExit, formatForPeople, setExitCode, UsageError, examples } from "./common.js";

/** Adds `switchyard compile`: writes a pack's or playbook's plan as TOML. */
export function register(program: Command): void {
  program
    .command("compile")
    .description("compile a pack or playbook to its plan (TOML)")
    .addHelpText("after", examples([["switchyard compile . -o plan.toml"], ["switchyard run plan.toml", "run exactly that plan"]]))
    .argument("<path>", "pack folder, .star playbook or compiled plan .toml")
    .option("--playbook <name>", "which playbook of a pack with several")
    .option("-o, --output <file>", "write the plan to FILE instead of stdout")
    .action((path: string, opts: { playbook?: string; output?: string }) => {
      const result = compilePath(path, { playbook: opts.playbook });
      const sources = (f: string) => result.sources.get(f);
      if (!result.plan) {
        for (const d of result.diagnostics) process.stderr.write(formatForPeople(d, sources) + "\n\n");
        process.stderr.write(`${path}: ${summaryLine(result.diagnostics)}; no plan written\n`);
        setExitCode(compileFailureExit(result.diagnostics));
        return;
      }
      for (const d of result.diagnostics) process.stderr.write(formatForPeople(d, sources) + "\n\n");
      const text = writePlanToml(result.plan);
      if (opts.output) {
        try {
          writeFileSync(opts.output, text);
        } catch (e) {
          throw new UsageError("usage", `cannot write ${opts.output}: ${(e as Error).message}`);
        }
        process.stderr.write(`wrote ${opts.output} (playbook '${result.plan.playbook}', ${result.plan.tasks.length} tasks)\n`);
      } else process.stdout.write(text);
    });
}
