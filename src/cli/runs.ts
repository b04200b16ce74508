// `switchyard runs`: every run in the state folder. `--rebuild` drops the projections and
// rebuilds them from the event log.

import type { Command } from "commander";
import { UsageError, stateDir } from "./common.js";
import { nearestName } from "../lang/diagnostic.js";
import { formatElapsed, openForReading, runSummaryJson } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { table } from "./run-progress.js";
import type { Store } from "../run/index.js";

const RUN_STATUSES = ["running", "waiting", "passed", "failed", "stopped", "cancelled"];

interface RunsFlags {
  stateDir?: string;
  store?: string;
  json?: boolean;
  rebuild?: boolean;
  limit?: string;
  status?: string;
  playbook?: string;
}

type RunRow = ReturnType<Store["runs"]>[number];

/** Adds `switchyard runs`: lists the runs of the state folder, newest first, filtered by status and playbook (--rebuild rebuilds the tables from the log first). */
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
    .action(listRuns);
}

/** The --limit as a number (undefined: all); a usage error for anything but a whole number ≥ 1. */
function limitOf(flags: RunsFlags): number | undefined {
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
    throw new UsageError("usage", `--limit must be a whole number of at least 1, got ${JSON.stringify(flags.limit)}`);
  return limit;
}

/** A usage error naming the nearest status when --status is not one. */
function checkStatus(status: string | undefined): void {
  if (status === undefined || RUN_STATUSES.includes(status)) return;
  const near = nearestName(status, RUN_STATUSES);
  throw new UsageError("usage", `--status must be one of ${RUN_STATUSES.join(", ")}, got ${JSON.stringify(status)}`, {
    hint: near ? `did you mean ${near}?` : undefined,
  });
}

/** The action of `switchyard runs`: the runs, newest first (as gh and kubectl list), filtered, as a table or JSON. */
function listRuns(flags: RunsFlags): void {
  const limit = limitOf(flags);
  checkStatus(flags.status);
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
    let runs = store.runs().reverse();
    if (flags.status !== undefined) runs = runs.filter((r) => r.status === flags.status);
    if (flags.playbook !== undefined) runs = runs.filter((r) => r.playbook === flags.playbook);
    if (limit !== undefined) runs = runs.slice(0, limit);
    if (flags.json) process.stdout.write(JSON.stringify(runs.map(runSummaryJson), null, 2) + "\n");
    else if (runs.length === 0) process.stdout.write(`no runs${flags.status || flags.playbook ? " match" : ""} in ${store.stateDir}\n`);
    else process.stdout.write(runsTable(runs) + "\n");
  } finally {
    store.close();
  }
}

/** The runs as an aligned table. */
function runsTable(runs: RunRow[]): string {
  return table(
    ["run", "status", "playbook", "started", "elapsed", "source"],
    runs.map((r) => [r.run, r.status, r.playbook, r.started_at.slice(0, 19).replace("T", " "), formatElapsed(r.elapsed_ms), r.source]),
  );
}
