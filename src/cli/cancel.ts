// `switchyard cancel RUN`: asks the process executing the run to cancel (as Ctrl-C does:
// running instances are stopped, the run can be resumed). If no process is executing it (it was
// killed), the run is marked cancelled in its log directly.

import type { Command } from "commander";
import { examples } from "./common.js";
import { processAlive } from "../run/index.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";

export function register(program: Command): void {
  program
    .command("cancel")
    .description("cancel a running run (it can be resumed)")
    .addHelpText("after", examples([["switchyard cancel latest"], ["switchyard cancel 20261202-1518", "a unique prefix of the id"], ["switchyard resume latest", "later: continue it"]]))
    .argument("<run>", "the run id, or `latest`")
    .option("--state-dir <dir>", "the state folder")
    .action(async (id: string, flags: { stateDir?: string }) => {
      const store = openForReading(flags.stateDir);
      if (!store) throw noRuns(flags.stateDir);
      try {
        const run = findRun(store, id);
        const r = store.run(run)!;
        if (r.status !== "running") {
          process.stdout.write(`run ${run} is not running (${r.status}); nothing to cancel\n`);
          return;
        }
        if (processAlive(r.pid)) {
          process.kill(r.pid!, "SIGINT");
          const t0 = Date.now();
          while (Date.now() - t0 < 15000) {
            await new Promise((res) => setTimeout(res, 100));
            if (store.run(run)!.status !== "running") break;
          }
          process.stdout.write(`run ${run}: ${store.run(run)!.status}\n`);
          return;
        }
        // Nobody executes it: record what a cancel would have recorded.
        for (const i of store.instances(run)) {
          if (i.status === "running") store.append(run, "instance_interrupted", i.task, i.key, { attempt: i.attempts });
        }
        store.append(run, "run_cancelled", null, null, { reason: "cancelled (its process was gone)" });
        store.flush();
        process.stdout.write(`run ${run}: cancelled (no process was executing it); resume with: switchyard resume ${run}\n`);
      } finally {
        store.close();
      }
    });
}
