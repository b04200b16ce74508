// `switchyard workers --store postgres://…`: the live workers of a shared store,
// each with its host, pid, concurrency, tags, last heartbeat and the jobs it is running.

import type { Command } from "commander";
import { loadPg } from "../shared/lazy-packages.js";
import { parsePgUrl } from "../run/store/index.js";
import { listWorkers, type WorkerInfo } from "../run/queue/index.js";
import { examples } from "./common.js";
import { reachable, workersStore } from "./workers-store.js";

function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 120 ? `${s}s ago` : `${Math.round(s / 60)}m ago`;
}

function table(workers: WorkerInfo[], now: number): string {
  if (workers.length === 0) return "no live workers\n";
  const rows = [["worker", "host", "pid", "slots", "tags", "heartbeat", "jobs"]];
  for (const w of workers)
    rows.push([
      w.id,
      w.host,
      String(w.pid),
      `${w.jobs.length}/${w.concurrency}`,
      w.tags.join(",") || "-",
      ago(w.heartbeat, now),
      w.jobs.map((j) => j.job).join(" ") || "-",
    ]);
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")).join("\n") + "\n";
}

/** Adds `switchyard workers`: the live workers of a shared store, their jobs and last heartbeat. */
export function register(program: Command): void {
  program
    .command("workers")
    .description("list the live workers of a shared PostgreSQL store, their jobs and last heartbeat")
    .option("--store <url>", "the PostgreSQL store: postgres://USER@HOST:PORT/DATABASE (default: $SWITCHYARD_STORE)")
    .option("--json", "one JSON document: the workers, each with its jobs")
    .addHelpText(
      "after",
      examples([["switchyard workers --store postgres://sy@db/sy"], ["switchyard workers --json | jq '.[].jobs | length'"]]),
    )
    .action(async (flags: { store?: string; json?: boolean }) => {
      const { url, where } = workersStore(flags.store, "workers");
      const loc = parsePgUrl(url);
      const pool = new (loadPg().Pool)({ connectionString: loc.url, max: 1 });
      pool.on("error", () => undefined);
      try {
        const workers = await reachable(where, () => listWorkers(pool, loc.schema));
        process.stdout.write(flags.json ? JSON.stringify(workers, null, 2) + "\n" : table(workers, Date.now()));
      } finally {
        await pool.end().catch(() => undefined);
      }
    });
}
