// `switchyard runs`: every run in the state folder. `--rebuild` drops the projections and
// rebuilds them from the event log.

import type { Command } from "commander";
import { stateDir } from "./common.js";
import { formatElapsed, openForReading } from "./run-lookup.js";
import { table } from "./run-progress.js";

export function register(program: Command): void {
  program
    .command("runs")
    .description("list the runs in the state folder")
    .option("--state-dir <dir>", "the state folder")
    .option("--json", "print JSON")
    .option("--rebuild", "rebuild the runs/tasks/instances tables from the event log first (R-3)")
    .action((flags: { stateDir?: string; json?: boolean; rebuild?: boolean }) => {
      const store = openForReading(flags.stateDir);
      if (!store) {
        process.stdout.write(flags.json ? "[]\n" : `no runs in ${stateDir(flags.stateDir)}\n`);
        return;
      }
      try {
        if (flags.rebuild) {
          const t0 = Date.now();
          const n = store.rebuild();
          if (!flags.json) process.stderr.write(`rebuilt projections from ${n} events in ${Date.now() - t0} ms\n`);
        }
        const runs = store.runs();
        if (flags.json) {
          process.stdout.write(JSON.stringify(runs.map((r) => ({ run: r.run, status: r.status, playbook: r.playbook, source: r.source, started_at: r.started_at, finished_at: r.finished_at, elapsed_ms: r.elapsed_ms, spent_usd: r.spent_usd, reason: r.stop_reason })), null, 2) + "\n");
          return;
        }
        if (runs.length === 0) {
          process.stdout.write(`no runs in ${store.stateDir}\n`);
          return;
        }
        process.stdout.write(table(["run", "status", "playbook", "started", "elapsed", "source"], runs.map((r) => [r.run, r.status, r.playbook, r.started_at.slice(0, 19).replace("T", " "), formatElapsed(r.elapsed_ms), r.source])) + "\n");
      } finally {
        store.close();
      }
    });
}
