// `switchyard cancel RUN`: asks the process verified to be executing the run to cancel (as Ctrl-C does:
// running instances are stopped, the run can be resumed), through the store, so the run records
// `switchyard cancel` as the cause, not Ctrl-C. If no process is executing it (it was
// killed), the run is marked cancelled in its log directly.

import type { Command } from "commander";
import { CommandFailed, examples } from "./common.js";
import { checkOwner, claimRun, currentIdentity, requestCancel, runOwner, stopOrphanedGroups } from "../run/index.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";

/** What the run records as its cause (shown by status, show and the run's own summary). */
function cancelReason(host: string): string {
  return `cancelled by \`switchyard cancel\` on ${host}`;
}

/** Adds `switchyard cancel`: asks a running run to stop, so that it can be resumed later. */
export function register(program: Command): void {
  program
    .command("cancel")
    .description("cancel a running run (it can be resumed)")
    .addHelpText(
      "after",
      examples([
        ["switchyard cancel latest"],
        ["switchyard cancel 20261202-1518", "a unique prefix of the id"],
        ["switchyard resume latest", "later: continue it"],
      ]),
    )
    .argument("<run>", "the run id, or `latest`")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .option("--force", "record the cancel when the process recorded as executing the run cannot be verified (it is not signalled)")
    .action(async (id: string, flags: { stateDir?: string; store?: string; force?: boolean }) => {
      const store = openForReading(flags.stateDir, flags.store);
      if (!store) throw noRuns(flags.stateDir);
      try {
        const run = findRun(store, id);
        const r = store.run(run)!;
        if (r.status !== "running") {
          process.stdout.write(`run ${run} is not running (${r.status}); nothing to cancel\n`);
          return;
        }
        // Only a process verified to be the run's owner (pid, start time, host) is ever signalled.
        const owner = runOwner(store, run);
        if (owner?.state === "alive") {
          // The owner is asked through the store, on this machine as on another (a shared
          // PostgreSQL store), and looks for the request every second. Not signalled: a signal
          // carries no cause, and the run must record that `switchyard cancel` stopped it, not
          // Ctrl-C.
          const me = currentIdentity();
          const here = owner.owner.host === me.host && checkOwner(owner.owner).state === "alive";
          requestCancel(store, run, cancelReason(me.host));
          const t0 = Date.now();
          while (Date.now() - t0 < 15000) {
            await new Promise((res) => setTimeout(res, 100));
            if (store.run(run)!.status !== "running") break;
          }
          const status = store.run(run)!.status;
          if (status === "running" && !here) {
            process.stdout.write(
              `run ${run}: asked its process on ${owner.owner.host} to cancel; it is still stopping its running instances (see: switchyard status ${run})\n`,
            );
            return;
          }
          process.stdout.write(`run ${run}: ${status}\n`);
          return;
        }
        if (owner?.state === "unverifiable" && !flags.force) {
          throw new CommandFailed(
            "failed",
            `run ${run} is recorded as executed by process ${owner.owner.pid} on ${owner.owner.host}, which cannot be verified (${owner.why}); it was not signalled. ` +
              `If no switchyard process is executing the run, record the cancel with \`switchyard cancel ${run} --force\``,
          );
        }
        // Nobody executes it: claim it (so no resume starts meanwhile) and record what a cancel
        // would have recorded.
        let claim;
        claim = claimRun(store, run, { force: flags.force });
        try {
          // What the dead owner started may still run: stop it first.
          await stopOrphanedGroups(store, run, claim.identity.token, claim.previous);
          for (const i of store.instances(run)) {
            if (i.status === "running") store.append(run, "instance_interrupted", i.task, i.key, { attempt: i.attempts });
          }
          store.append(run, "run_cancelled", null, null, { reason: `${cancelReason(currentIdentity().host)} (its process was gone)` });
          store.flush();
        } finally {
          claim.release();
        }
        process.stdout.write(`run ${run}: cancelled (no process was executing it); resume with: switchyard resume ${run}\n`);
      } finally {
        store.close();
      }
    });
}
