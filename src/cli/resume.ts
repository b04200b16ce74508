// `switchyard resume RUN`: continue a run from its event log with the admitted plan and
// snapshot; finished work is kept by key, interrupted and failed instances run again, recorded
// decisions are never asked again. Flags may raise ceilings and change concurrency.

import type { Command } from "commander";
import { UsageError, examples } from "./common.js";
import { agentPreflight } from "./agent-preflight.js";
import { addRunFlags, execute, FORCE_HELP, openStore, wire, overridesFrom, type RunFlags } from "./run-wiring.js";
import { executorChoice } from "./executor-option.js";
import { findRun } from "./run-lookup.js";
import { recallInvocation } from "./run-invocation.js";

/** Adds `switchyard resume`: continues a stopped or crashed run without paying again for what it recorded. */
export function register(program: Command): void {
  addRunFlags(
    program
      .command("resume")
      .description("continue a stopped, cancelled, failed or interrupted run")
      .argument("<run>", "the run id (or a unique prefix; see `switchyard runs`), or `latest`")
      .addHelpText(
        "after",
        examples([
          ["switchyard resume latest"],
          ["switchyard resume 20261202-1518 --max-duration 4h", "raise a ceiling"],
          ["switchyard resume latest --decide triage.match.package=host"],
        ]),
      ),
  )
    .option("--force", FORCE_HELP)
    .action(async (id: string, flags: RunFlags) => {
      overridesFrom(flags);
      const store = openStore(flags.stateDir, { store: flags.store });
      try {
        const where = executorChoice(flags.executor, store); // refused before anything is admitted or run
        const run = findRun(store, id);
        const note = recallInvocation(store, run, flags);
        if (note && !flags.json) process.stderr.write(`switchyard: ${note}\n`);
        const wiring = wire(flags, store.stateDir, store);
        // The same agent preflight as `run`, against the recorded plan and repository.
        const events = store.events(run);
        const first = events.next().value;
        events.return?.(undefined);
        if (first?.type === "plan_admitted") {
          const admitted = first.payload;
          const budgetUsd = wiring.engineDeps.overrides?.budget_usd ?? admitted.settings.budget_usd;
          const agents = agentPreflight([admitted.plan], wiring.config, {
            modeOf: wiring.modeOf,
            budgetUsd,
            checkTerminal: false,
            // The tools' versions were read and recorded when the run was admitted (once per run).
            readVersions: false,
            ...(admitted.repo ? { recorded: admitted.repo } : {}),
          });
          // With workers, the agents run on the workers' machines: what only this machine lacks (an
          // agent CLI on PATH, a terminal) is said, not refused.
          const refused = where === "workers" ? agents.problems.filter((x) => !agents.local.includes(x)) : agents.problems;
          if (where === "workers")
            for (const x of agents.local) process.stderr.write(`switchyard: warning: on this machine (the workers run the agents): ${x}\n`);
          if (refused.length) {
            await wiring.close();
            throw new UsageError("agent-preflight", `preflight: this run cannot resume its agent work:\n  ${refused.join("\n  ")}`, {
              hint: "nothing was run or asked; fix the machine config (or pass --config) and resume again",
            });
          }
          for (const w of agents.warnings) process.stderr.write(`switchyard: warning: ${w}\n`);
        }
        await execute(store, run, true, flags, wiring);
      } finally {
        store.close();
      }
    });
}
