// `switchyard status [RUN]`: a run's status and per-task counts (the latest run by default).
// `--watch` redraws it until the run ends (from another terminal; it only reads the log), and
// `--exit-status` exits 1 unless the run passed, as `gh run view --exit-status` does.

import type { Command } from "commander";
import { ownerGone, type Store } from "../run/index.js";
import { EXIT_FAILED, setExitCode } from "./common.js";
import { findRun, foundRun, noRuns, openForReading, formatElapsed, runSummaryJson } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { table } from "./run-progress.js";
import { rateLimitState } from "../run/agents/index.js";
import { isOneOf } from "../shared/primitives.js";

const WATCH_MS = 500;

const COUNTED = ["pending", "running", "waiting", "passed", "failed", "not_taken", "blocked"] as const;
type Counts = Record<(typeof COUNTED)[number], number>;

function report(store: Store, run: string): { status: string; json: unknown; text: string } {
  const r = foundRun(store, run);
  const tasks = store.tasks(run);
  const counts = new Map<string, Counts>();
  for (const i of store.instances(run)) {
    let c = counts.get(i.task);
    if (!c) counts.set(i.task, (c = { pending: 0, running: 0, waiting: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 }));
    const status = i.status;
    if (isOneOf(COUNTED, status)) c[status] += 1;
  }
  const rows = tasks.map((t) => {
    const c: Counts = counts.get(t.task) ?? { pending: 0, running: 0, waiting: 0, passed: 0, failed: 0, not_taken: 0, blocked: 0 };
    const total = t.mapped ? (t.count ?? 0) : 1;
    const seen = Object.values(c).reduce((a, b) => a + b, 0);
    return { task: t.task, kind: t.kind, status: t.status, mapped: t.mapped, total, ...c, pending: c.pending + Math.max(0, total - seen) };
  });
  const paced = rateLimitState(store, run);
  const json = {
    ...runSummaryJson(r),
    tasks: Object.fromEntries(rows.map(({ task, ...rest }) => [task, rest])),
    // Agent runners paced by rate limits: turns retried, and the concurrency now.
    ...(Object.keys(paced).length > 0 ? { rate_limits: paced } : {}),
  };
  const limits = Object.entries(paced).map(
    ([runner, l]) =>
      `rate limits: runner "${runner}": ${l.retried} turn${l.retried === 1 ? "" : "s"} retried, ${l.concurrency === null ? "no longer limited" : `now at most ${l.concurrency} at once`}\n`,
  );
  const header = ["task", "kind", "status", "total", "passed", "failed", "not_taken", "blocked", "running", "pending"];
  const text =
    `run ${r.run}  ${r.playbook}  ${r.status}${r.stop_reason ? ` (${r.stop_reason})` : ""}\n` +
    `started ${r.started_at}  elapsed ${formatElapsed(r.elapsed_ms)}  spent $${r.spent_usd.toFixed(4)}\n` +
    limits.join("") +
    "\n" +
    table(
      header,
      rows.map((x) => [
        x.task,
        x.kind,
        x.status,
        String(x.total),
        String(x.passed),
        String(x.failed),
        String(x.not_taken),
        String(x.blocked),
        String(x.running),
        String(x.pending),
      ]),
    ) +
    "\n";
  return { status: r.status, json, text };
}

/** Adds `switchyard status`: a run's status and per-task counts (the latest run by default). */
export function register(program: Command): void {
  program
    .command("status")
    .description("show a run's status and per-task counts (default: the latest run)")
    .argument("[run]", "the run id (or a unique prefix)")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .option("--json", "print JSON")
    .option("-w, --watch", "redraw until the run ends (from another terminal; reads only)")
    .option("--exit-status", "exit 1 unless the run passed (with --watch: once it ends)")
    .addHelpText(
      "after",
      `
Examples:
  switchyard status                       # the latest run
  switchyard status --watch               # follow a run started in another terminal
  switchyard status 20261202-1518 --exit-status && echo passed`,
    )
    .action(
      async (
        id: string | undefined,
        flags: { stateDir?: string; store?: string; json?: boolean; watch?: boolean; exitStatus?: boolean },
      ) => {
        const store = openForReading(flags.stateDir, flags.store);
        if (!store) throw noRuns(flags.stateDir);
        try {
          const run = findRun(store, id);
          const tty = !!process.stdout.isTTY && !flags.json;
          let shown = "";
          let lines = 0;
          for (;;) {
            const r = report(store, run);
            const out = flags.json ? JSON.stringify(r.json, null, flags.watch ? undefined : 2) + "\n" : r.text;
            if (out !== shown) {
              // On a terminal the block is redrawn in place; elsewhere each change is printed once.
              if (tty && lines > 0) process.stdout.write(`\x1b[${lines}F\x1b[J`);
              process.stdout.write(out);
              lines = out.split("\n").length - 1;
              shown = out;
            }
            const row = foundRun(store, run);
            if (flags.watch && r.status === "running" && ownerGone(store, run)) {
              process.stderr.write(
                `switchyard: the process executing run ${run} (${row.pid}) is gone; continue it with \`switchyard resume ${run}\`\n`,
              );
              if (flags.exitStatus) setExitCode(EXIT_FAILED);
              return;
            }
            if (!flags.watch || r.status !== "running") {
              if (flags.exitStatus && r.status !== "passed") setExitCode(EXIT_FAILED);
              return;
            }
            await new Promise((res) => setTimeout(res, WATCH_MS));
          }
        } finally {
          store.close();
        }
      },
    );
}
