// `switchyard runs`: every run in the state folder. `--rebuild` drops the projections and
// rebuilds them from the event log.

import type { Command } from "commander";
import { UsageError, stateDir } from "./common.js";
import { nearestName } from "../lang/diagnostic.js";

const RUN_STATUSES = ["running", "passed", "failed", "stopped", "cancelled"];
import { formatElapsed, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { table } from "./run-progress.js";

/** Adds `switchyard runs`: lists the runs of the state folder, newest first, filtered by status and playbook (--rebuild rebuilds the tables from the log first). */
// eslint-disable-next-line max-lines-per-function -- not split yet: the `runs` command and its action; the action is to move into a named function
export function register(program: Command): void {
  program
    .command("runs")
    .description("list the runs in the state folder")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .option("--json", "print JSON")
    .option("--rebuild", "rebuild the runs/tasks/instances tables from the event log first")
    .option("--limit <n>", "only the newest N runs")
    .option("--status <status>", `only runs with this status: ${RUN_STATUSES.join(", ")}`)
    .option("--playbook <name>", "only runs of this playbook")
    .addHelpText(
      "after",
      `
Examples:
  switchyard runs --limit 5
  switchyard runs --status failed --playbook triage
  switchyard runs --json | jq -r '.[0].run'`,
    )
    .action(
      (flags: {
        stateDir?: string;
        store?: string;
        json?: boolean;
        rebuild?: boolean;
        limit?: string;
        status?: string;
        playbook?: string;
      }) => {
        const limit = flags.limit === undefined ? undefined : Number(flags.limit);
        if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
          throw new UsageError("usage", `--limit must be a whole number of at least 1, got ${JSON.stringify(flags.limit)}`);
        if (flags.status !== undefined && !RUN_STATUSES.includes(flags.status)) {
          const near = nearestName(flags.status, RUN_STATUSES);
          throw new UsageError("usage", `--status must be one of ${RUN_STATUSES.join(", ")}, got ${JSON.stringify(flags.status)}`, {
            hint: near ? `did you mean ${near}?` : undefined,
          });
        }
        const store = openForReading(flags.stateDir, flags.store);
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
          // Newest first, as gh and kubectl list.
          let runs = store.runs().reverse();
          if (flags.status !== undefined) runs = runs.filter((r) => r.status === flags.status);
          if (flags.playbook !== undefined) runs = runs.filter((r) => r.playbook === flags.playbook);
          if (limit !== undefined) runs = runs.slice(0, limit);
          if (flags.json) {
            process.stdout.write(
              JSON.stringify(
                runs.map((r) => ({
                  run: r.run,
                  status: r.status,
                  playbook: r.playbook,
                  source: r.source,
                  started_at: r.started_at,
                  finished_at: r.finished_at,
                  elapsed_ms: r.elapsed_ms,
                  spent_usd: r.spent_usd,
                  reason: r.stop_reason,
                })),
                null,
                2,
              ) + "\n",
            );
            return;
          }
          if (runs.length === 0) {
            process.stdout.write(`no runs${flags.status || flags.playbook ? " match" : ""} in ${store.stateDir}\n`);
            return;
          }
          process.stdout.write(
            table(
              ["run", "status", "playbook", "started", "elapsed", "source"],
              runs.map((r) => [
                r.run,
                r.status,
                r.playbook,
                r.started_at.slice(0, 19).replace("T", " "),
                formatElapsed(r.elapsed_ms),
                r.source,
              ]),
            ) + "\n",
          );
        } finally {
          store.close();
        }
      },
    );
}
