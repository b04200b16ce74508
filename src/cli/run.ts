// `switchyard run PATH` (L-2, §9): compile a pack, playbook or plan, admit it as a run (pack
// snapshot + plan_admitted), and execute it with live progress. Exit 0 passed, 1 otherwise.

import type { Command } from "commander";
import { compilePath } from "../plan/index.js";
import { admit } from "../api/state.js";
import { UsageError, compileFailureExit, examples, printDiagnostics, setExitCode } from "./common.js";
import { addRunFlags, execute, judgementTypes, openStore, wire, overridesFrom, type RunFlags } from "./run-wiring.js";
import { executorChoice } from "./executor-option.js";
import { rememberInvocation } from "./run-invocation.js";
import { agentPreflight } from "./agent-preflight.js";
import { warnRouting } from "./type-routing.js";
import { addEstimateOptions, estimateOptionsOnlyDry, printEstimate, type EstimateFlags } from "./estimate.js";

/** The `run` command with its arguments, options and examples. */
function runCommand(program: Command): Command {
  return addRunFlags(
    addEstimateOptions(
      program
        .command("run")
        .description("compile and run a playbook: a pack folder, a .star file or a compiled plan .toml")
        .argument("<path>", "pack folder, .star playbook or compiled plan .toml")
        .option("--playbook <name>", "which playbook of a pack with several")
        .option("--repo <path>", "the git repository of worktree agents (default: the one containing the working directory)")
        .option(
          "--keep-branches",
          "keep each worktree agent's branch switchyard/RUN/TASK/KEY/aN, with its change committed, after its turn",
        )
        .option("--dry-run", "print what the run would ask for (as `switchyard estimate`) and run nothing: no run is admitted")
        .addHelpText(
          "after",
          examples([
            ["switchyard run examples/cve-triage"],
            ["switchyard run . --decide triage.gate.depth=shadow:local/jev-1", "a model in shadow"],
            ["switchyard run . --max-duration 2h --budget-usd 20 --json > events.jsonl"],
            ["switchyard run . --dry-run --skip-share 0.8", "what it would ask for, running nothing"],
          ]),
        ),
      "with --dry-run: ",
    ),
  );
}

/** The flags `run` takes. */
type RunCommandFlags = RunFlags & EstimateFlags & { playbook?: string; repo?: string; keepBranches?: boolean; dryRun?: boolean };

/** Adds `switchyard run`: compiles a pack and runs it, recording every answer. */
export function register(program: Command): void {
  runCommand(program).action(async (path: string, flags: RunCommandFlags) => {
    overridesFrom(flags); // usage errors before any work
    estimateOptionsOnlyDry(flags);
    if (flags.dryRun) return printEstimate(path, { ...flags, json: !!flags.json });
    const compiled = compilePath(path, { playbook: flags.playbook });
    const errors = compiled.diagnostics.filter((d) => d.severity === "error");
    if (!compiled.plan || errors.length) {
      printDiagnostics(compiled.diagnostics, (f) => compiled.sources.get(f));
      setExitCode(compileFailureExit(compiled.diagnostics));
      return;
    }
    const store = openStore(flags.stateDir, { forNewRun: true, store: flags.store });
    try {
      const where = executorChoice(flags.executor, store); // refused before anything is admitted or run
      const wiring = wire(flags, store.stateDir, store);
      warnRouting(compiled.plan, wiring.config, flags.decide);
      // Refuse before admitting, so a refused run leaves no run behind (D-30).
      const types = judgementTypes(compiled.plan);
      await wiring.ready(compiled.plan);
      const problems = types.length ? (wiring.engineDeps.judge?.preflight?.(types) ?? []) : [];
      if (problems.length) {
        await wiring.close();
        throw new UsageError("usage", `preflight: the decision layer refused this run (D-30):\n  ${problems.join("\n  ")}`, {
          hint: "fix the machine config or the --decide flags; `switchyard config check` shows each type's mode",
        });
      }
      const budget = wiring.engineDeps.overrides?.budget_usd ?? compiled.plan.settings.budget_usd;
      const agents = agentPreflight([compiled.plan], wiring.config, {
        repo: flags.repo,
        keepBranches: flags.keepBranches,
        modeOf: wiring.modeOf,
        budgetUsd: budget,
      });
      // With workers, the agents run on the workers' machines: what only this machine lacks (an
      // agent CLI on PATH, a terminal) is said, not refused.
      const refused = where === "workers" ? agents.problems.filter((x) => !agents.local.includes(x)) : agents.problems;
      if (where === "workers")
        for (const x of agents.local) process.stderr.write(`switchyard: warning: on this machine (the workers run the agents): ${x}\n`);
      if (refused.length) {
        await wiring.close();
        throw new UsageError("agent-preflight", `preflight: this run cannot do its agent work:\n  ${refused.join("\n  ")}`, {
          hint: "nothing was run or asked; `switchyard config check PACK` runs the same checks",
        });
      }
      for (const w of agents.warnings) process.stderr.write(`switchyard: warning: ${w}\n`);
      const run = await admit(store, { plan: compiled.plan, packRoot: compiled.packRoot }, path, wiring, {
        ...(agents.repo ? { repo: agents.repo } : {}),
        agentVersions: agents.versions,
      });
      rememberInvocation(store, run, flags);
      if (!flags.json && !flags.quiet)
        process.stdout.write(`run ${run}: ${compiled.plan.playbook} (${compiled.plan.tasks.length} tasks)\n`);
      await execute(store, run, false, flags, wiring);
    } finally {
      store.close();
    }
  });
}
