// `switchyard rerun RUN --task T [--key K ...] [--failed] [--downstream] [--redecide]
// [--refresh-pack]`: clears the chosen instances in the run's event log (src/run/rerun.ts)
// and resumes the run, so they run again. With --refresh-pack the pack's files are snapshotted
// again first (a fixed script or helper is used from then on); a changed plan is refused.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { compilePath } from "../plan/index.js";
import {
  claimRun,
  foldRunPlan,
  planRerun,
  recordRerun,
  samePlan,
  snapshotPack,
  type RerunRequest,
  type RunOwnership,
  type Store,
} from "../run/index.js";
import type { EventPayloads } from "../run/index.js";
import { CommandFailed, UsageError, printDiagnostics } from "./common.js";
import { addRunFlags, execute, FORCE_HELP, openStore, overridesFrom, wire, type RunFlags } from "./run-wiring.js";
import { executorChoice } from "./executor-option.js";
import { findRun } from "./run-lookup.js";
import { recallInvocation } from "./run-invocation.js";

interface RerunFlags extends RunFlags {
  task: string[];
  key: string[];
  failed?: boolean;
  downstream?: boolean;
  redecide?: boolean;
  refreshPack?: boolean;
}

const collect = (v: string, acc: string[]) => [...acc, v];

/** A new snapshot of the pack the run was started from, refused when the plan itself changed. */
function refreshPack(store: Store, run: string): EventPayloads["pack_refreshed"] {
  const admitted = foldRunPlan(store, run);
  const from = existsSync(resolve(admitted.sourcePath)) ? resolve(admitted.sourcePath) : admitted.packSource;
  const compiled = compilePath(from, { playbook: admitted.plan.playbook });
  const errors = compiled.diagnostics.filter((d) => d.severity === "error");
  if (!compiled.plan || errors.length) {
    printDiagnostics(compiled.diagnostics, (f) => compiled.sources.get(f));
    throw new CommandFailed("failed", `the pack at ${from} does not compile; fix it, then run the rerun again (nothing was changed)`);
  }
  if (!samePlan(admitted.plan, compiled.plan)) {
    throw new UsageError(
      "usage",
      `the playbook's plan at ${from} is no longer the one run ${run} was started with; --refresh-pack takes new copies of the pack's files, not a new plan`,
      { hint: `start a new run with \`switchyard run ${admitted.sourcePath}\`` },
    );
  }
  let n = 2;
  while (existsSync(join(store.runDir(run), `pack-${n}`))) n += 1;
  return { snapshot: snapshotPack(compiled.packRoot, join(store.runDir(run), `pack-${n}`)), pack_digest: compiled.plan.pack_digest };
}

/** Adds `switchyard rerun`: runs again a run's tasks (and what depends on them), keeping the rest. */
export function register(program: Command): void {
  addRunFlags(
    program
      .command("rerun")
      .description("clear instances of a run and run them again (with --downstream, also everything that read them)")
      .argument("<run>", "the run id (or a unique prefix), or `latest`")
      .option("--task <name>", "the task to run again (repeatable)", collect, new Array<string>())
      .option("--key <key>", "only these elements of the task (repeatable)", collect, new Array<string>())
      .option("--failed", "only the instances that failed")
      .option("--downstream", "also clear what read them: per element along aligned edges, the whole task for folds and unmapped tasks")
      .option("--redecide", "ask the decisions of the routes named by --task again (the record keeps the earlier answer)")
      .option("--refresh-pack", "copy the pack's files again first, so a fixed script or helper is used (the plan must not change)")
      .option("--force", FORCE_HELP),
  )
    .addHelpText(
      "after",
      `
Examples:
  switchyard rerun latest --task report --refresh-pack       # a fixed reducer script, run again
  switchyard rerun latest --task prepare --key T7 --downstream
  switchyard rerun 20261202-151826 --task match --redecide --downstream`,
    )
    .action(async (id: string, flags: RerunFlags) => {
      overridesFrom(flags);
      const store = openStore(flags.stateDir, { store: flags.store });
      let owner: RunOwnership | undefined;
      try {
        executorChoice(flags.executor, store); // refused before anything is recorded or run
        const run = findRun(store, id);
        // Claimed before anything is recorded, and handed to the engine that resumes the run.
        owner = claimRun(store, run, { force: flags.force });
        const req: RerunRequest = {
          tasks: flags.task,
          keys: flags.key,
          failed: !!flags.failed,
          downstream: !!flags.downstream,
          redecide: !!flags.redecide,
          refresh_pack: !!flags.refreshPack,
        };
        let planned;
        planned = planRerun(store, run, req);
        const note = recallInvocation(store, run, flags);
        if (note && !flags.json) process.stderr.write(`switchyard: ${note}\n`);
        const wiring = wire(flags, store.stateDir, store); // a bad machine config fails before anything is recorded
        let refreshed: EventPayloads["pack_refreshed"] | undefined;
        try {
          refreshed = flags.refreshPack ? refreshPack(store, run) : undefined;
        } catch (err) {
          await wiring.close();
          throw err;
        }
        recordRerun(store, run, req, planned, refreshed);
        if (!flags.json) {
          const kept = planned.resets.filter((r) => r.keepDecision && r.previous.status === "passed").length;
          process.stderr.write(
            `switchyard: rerun ${run}: cleared ${planned.resets.length} instance${planned.resets.length === 1 ? "" : "s"} of ${planned.tasks.join(", ") || "no task"}` +
              (kept ? ` (${kept} recorded decision${kept === 1 ? "" : "s"} kept, reused where the gate is still open)` : "") +
              (refreshed ? `; new pack snapshot ${refreshed.snapshot.dir} (${refreshed.snapshot.files} files)` : "") +
              "\n",
          );
          if (planned.untouchedDependents.length)
            process.stderr.write(
              `switchyard: note: ${planned.untouchedDependents.join(", ")} read what was cleared and keep their results; add --downstream to run them again too\n`,
            );
        }
        await execute(store, run, true, flags, wiring, owner);
      } finally {
        owner?.release();
        store.close();
      }
    });
}
