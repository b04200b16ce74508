// `switchyard resume RUN`: continue a run from its event log with the admitted plan and
// snapshot; finished work is kept by key, interrupted and failed instances run again, recorded
// decisions are never asked again. Flags may raise ceilings and change concurrency.

import type { Command } from "commander";
import { examples } from "./common.js";
import { addRunFlags, execute, FORCE_HELP, openStore, wire, overridesFrom, type RunFlags } from "./run-wiring.js";
import { findRun } from "./run-lookup.js";
import { recallInvocation } from "./run-invocation.js";

export function register(program: Command): void {
  addRunFlags(program.command("resume").description("continue a stopped, cancelled, failed or interrupted run").argument("<run>", "the run id (or a unique prefix; see `switchyard runs`), or `latest`").addHelpText("after", examples([["switchyard resume latest"], ["switchyard resume 20261202-1518 --max-duration 4h", "raise a ceiling"], ["switchyard resume latest --decide triage.match.package=host"]])))
    .option("--force", FORCE_HELP)
    .action(
    async (id: string, flags: RunFlags) => {
      overridesFrom(flags);
      const store = openStore(flags.stateDir);
      try {
        const run = findRun(store, id);
        const note = recallInvocation(store, run, flags);
        if (note && !flags.json) process.stderr.write(`switchyard: ${note}\n`);
        const wiring = wire(flags, store.stateDir);
        await execute(store, run, true, flags, wiring, null);
      } finally {
        store.close();
      }
    },
  );
}
