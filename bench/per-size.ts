// Runs one benchmark size per child process (so each size's peak RSS is its own) and prints a
// table row per size, plus the ratio of each size's run time to the previous size's.
//
// The child is the benchmark file itself, called with `--one N`; it prints one JSON line.

import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Plan } from "../src/plan/plan.js";
import type { EvaluatorFactory } from "../src/run/kinds/context.js";
import { admitRun, RunEngine, SqliteStore } from "../src/run/index.js";
import { scratchDir } from "./scratch.js";

export interface SizeFigures {
  n: number;
  instances: number;
  runMs: number;
  events: number;
  eventsPerS: number;
  resumeMs: number;
  resumeEvents: number;
  rssMb: number;
}

export async function perSize(self: string, one: (n: number) => Promise<SizeFigures>, defaults: number[]): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--one") {
    process.stdout.write(JSON.stringify(await one(Number(args[1]))) + "\n");
    return;
  }
  const sizes = args.length ? args.map(Number) : defaults;
  console.log("elements  instances  run (s)  events   events/s  resume (s)  resume events  peak RSS (MB)  run time vs previous size");
  let prev: SizeFigures | null = null;
  for (const n of sizes) {
    const r = spawnSync(process.execPath, [self, "--one", String(n)], { encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) {
      console.error(r.stderr);
      process.exit(1);
    }
    const x = JSON.parse(r.stdout.trim()) as SizeFigures;
    const ratio = prev ? `${(x.runMs / prev.runMs).toFixed(1)}x for ${(x.n / prev.n).toFixed(0)}x the elements` : "";
    console.log(
      `${String(x.n).padStart(8)}  ${String(x.instances).padStart(9)}  ${(x.runMs / 1000).toFixed(2).padStart(7)}  ${String(x.events).padStart(6)}  ${Math.round(x.eventsPerS).toString().padStart(9)}  ${(x.resumeMs / 1000).toFixed(2).padStart(10)}  ${String(x.resumeEvents).padStart(13)}  ${x.rssMb.toFixed(0).padStart(13)}  ${ratio}`,
    );
    prev = x;
  }
}

/**
 * Admits `plan` in a fresh scratch state folder, runs it to the end, then resumes the finished
 * run (which must run nothing), and returns the figures of both.
 */
export async function runAndResume(
  plan: Plan,
  evaluators: (packDir: string) => EvaluatorFactory,
  writePack?: (packDir: string) => void,
): Promise<SizeFigures> {
  const dir = scratchDir("sy-bench-");
  try {
    const pack = join(dir, "pack");
    mkdirSync(pack);
    writePack?.(pack);
    const store = new SqliteStore(join(dir, "state"));
    const t0 = performance.now();
    const run = admitRun(store, { plan, packDir: pack, sourcePath: pack });
    const engine = new RunEngine({ store, run, resume: false, evaluators: evaluators(pack) });
    const outcome = await engine.execute();
    const runMs = performance.now() - t0;
    const events = store.eventCount(run);
    const instances = (store.db.prepare("SELECT COUNT(*) AS c FROM instances WHERE run = ?").get(run) as { c: number }).c;
    if (outcome.status !== "passed") throw new Error(`bench run ${outcome.status}`);
    const t1 = performance.now();
    const again = new RunEngine({ store, run, resume: true, evaluators: evaluators(pack) });
    await again.execute();
    const resumeMs = performance.now() - t1;
    const resumeEvents = store.eventCount(run) - events;
    store.close();
    const rssMb = process.resourceUsage().maxRSS / 1024;
    return { n: 0, instances, runMs, events, eventsPerS: events / (runMs / 1000), resumeMs, resumeEvents, rssMb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
