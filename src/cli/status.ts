// `switchyard status [RUN]`: a run's status and per-task counts (the latest run by default).

import type { Command } from "commander";
import { findRun, noRuns, openForReading, formatElapsed } from "./run-lookup.js";
import { table } from "./run-progress.js";

export function register(program: Command): void {
  program
    .command("status")
    .description("show a run's status and per-task counts (default: the latest run)")
    .argument("[run]", "the run id")
    .option("--state-dir <dir>", "the state folder")
    .option("--json", "print JSON")
    .action((id: string | undefined, flags: { stateDir?: string; json?: boolean }) => {
      const store = openForReading(flags.stateDir);
      if (!store) throw noRuns(flags.stateDir);
      try {
        const run = findRun(store, id);
        const r = store.run(run)!;
        const tasks = store.tasks(run);
        type Counts = { pending: number; running: number; passed: number; failed: number; not_taken: number; blocked: number };
        const counts = new Map<string, Counts>();
        for (const i of store.instances(run)) {
          let c = counts.get(i.task);
          if (!c) counts.set(i.task, (c = { pending: 0, running: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 }));
          c[i.status as keyof Counts] += 1;
        }
        const rows = tasks.map((t) => {
          const c: Counts = counts.get(t.task) ?? { pending: 0, running: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 };
          const total = t.mapped ? (t.count ?? 0) : 1;
          const seen = Object.values(c).reduce((a, b) => a + b, 0);
          return { task: t.task, kind: t.kind, status: t.status, mapped: t.mapped, total, ...c, pending: c.pending + Math.max(0, total - seen) };
        });
        if (flags.json) {
          const out = {
            run: r.run,
            status: r.status,
            playbook: r.playbook,
            source: r.source,
            started_at: r.started_at,
            finished_at: r.finished_at,
            elapsed_ms: r.elapsed_ms,
            spent_usd: r.spent_usd,
            reason: r.stop_reason,
            tasks: Object.fromEntries(rows.map(({ task, ...rest }) => [task, rest])),
          };
          process.stdout.write(JSON.stringify(out, null, 2) + "\n");
          return;
        }
        process.stdout.write(`run ${r.run}  ${r.playbook}  ${r.status}${r.stop_reason ? ` (${r.stop_reason})` : ""}\n`);
        process.stdout.write(`started ${r.started_at}  elapsed ${formatElapsed(r.elapsed_ms)}  spent $${r.spent_usd.toFixed(4)}\n\n`);
        const header = ["task", "kind", "status", "total", "passed", "failed", "not_taken", "blocked", "running", "pending"];
        process.stdout.write(
          table(
            header,
            rows.map((x) => [x.task, x.kind, x.status, String(x.total), String(x.passed), String(x.failed), String(x.not_taken), String(x.blocked), String(x.running), String(x.pending)]),
          ) + "\n",
        );
      } finally {
        store.close();
      }
    });
}
