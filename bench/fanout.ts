// Fan-out benchmark (issue 3): a producer, a mapped output-decided route, two gated mapped
// evaluate tasks, an aligned settled judge and an unmapped settled reducer, over N elements.
// Targets at 10,000 elements on the 2-core machine: ≤ 5 s wall, ≤ 500 MB peak RSS, and resuming
// the finished run ≤ 1.5 s running nothing. Each size runs in its own process (peak RSS).
//
// usage: node dist/bench/fanout.js [sizes...]      (default: 1000 10000 50000)

import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./scratch.js";
import { fileURLToPath } from "node:url";
import type { FieldType, Plan, TaskPlan } from "../src/plan/plan.js";
import { admitRun, RunEngine, Store } from "../src/run/index.js";

function task(name: string, kind: TaskPlan["kind"], extra: Partial<TaskPlan>): TaskPlan {
  return { name, kind, depends_on: [], join: "all", aligned_with: [], keyed: [], timeout_seconds: 60, retries: 0, emits: {}, declared_at: { file: "bench.star", line: 1, col: 1 }, ...extra };
}

function benchPlan(n: number): Plan {
  const over = { task: "prepare", field: "members" };
  const m = { over, max_fanout: n };
  const ev = (name: string) => ({ evaluate: { module: "bench.star", function: name } });
  const emits: Record<string, FieldType> = { lane: "string" };
  return {
    playbook: "fanout",
    source_file: "bench.star",
    pack_digest: "0".repeat(64),
    compiler_version: "bench",
    settings: { description: "", concurrency: 4, decision_concurrency: 16, max_duration_seconds: 3600 },
    tasks: [
      task("prepare", "evaluate", { ...ev("prepare"), emits: { members: "list", lanes: "object" } }),
      task("gate", "route", {
        depends_on: ["prepare"],
        ...m,
        emits,
        route: {
          decide: "output",
          source: { task: "prepare", field: "lanes" },
          min_confidence: 0,
          files: [],
          questions: [{ name: "lane", kind: "choice", ask: "which lane?", labels: ["left", "right"], descriptions: { left: "", right: "" }, drop: [], type: "fanout.gate.lane" }],
        },
      }),
      task("left", "evaluate", { ...ev("left"), depends_on: ["gate"], ...m, aligned_with: ["gate"], when: { route: "gate", question: "lane", answers: ["left"], otherwise: false, labels: ["left"], any_option: false } }),
      task("right", "evaluate", { ...ev("right"), depends_on: ["gate"], ...m, aligned_with: ["gate"], when: { route: "gate", question: "lane", answers: ["right"], otherwise: false, labels: ["right"], any_option: false } }),
      task("judge", "evaluate", { ...ev("judge"), depends_on: ["left", "right"], join: "settled", ...m, aligned_with: ["left", "right"] }),
      task("reduce", "evaluate", { ...ev("reduce"), depends_on: ["judge"], join: "settled" }),
    ],
  };
}

type Input = { key: string; inputs: Record<string, Record<string, unknown> | null>; statuses?: Record<string, string> };

function evaluators(n: number) {
  const fns: Record<string, (i: Input) => unknown> = {
    prepare: () => {
      const members: string[] = [];
      const lanes: Record<string, { lane: string }> = {};
      for (let i = 0; i < n; i++) {
        const k = `ticket-${i}`;
        members.push(k);
        lanes[k] = { lane: i % 3 === 0 ? "right" : "left" };
      }
      return { members, lanes };
    },
    left: (i) => ({ side: "left", key: i.key }),
    right: (i) => ({ side: "right", key: i.key }),
    judge: (i) => ({ ok: (i.inputs.left ?? i.inputs.right) !== null }),
    reduce: (i) => ({ summary: (i.inputs.judge as { summary: unknown }).summary }),
  };
  return (t: TaskPlan) => fns[t.evaluate!.function]! as (input: unknown) => unknown;
}

async function one(n: number): Promise<void> {
  const dir = scratchDir("sy-bench-");
  try {
    const pack = join(dir, "pack");
    mkdirSync(pack);
    const store = new Store(join(dir, "state"));
    const t0 = performance.now();
    const run = admitRun(store, { plan: benchPlan(n), packDir: pack, sourcePath: pack });
    const engine = new RunEngine({ store, run, resume: false, evaluators: evaluators(n) });
    const outcome = await engine.execute();
    const runMs = performance.now() - t0;
    const events = store.eventCount(run);
    const instances = (store.db.prepare("SELECT COUNT(*) AS c FROM instances WHERE run = ?").get(run) as { c: number }).c;
    if (outcome.status !== "passed") throw new Error(`bench run ${outcome.status}`);
    const t1 = performance.now();
    const again = new RunEngine({ store, run, resume: true, evaluators: evaluators(n) });
    await again.execute();
    const resumeMs = performance.now() - t1;
    const resumeEvents = store.eventCount(run) - events;
    store.close();
    const rssMb = process.resourceUsage().maxRSS / 1024;
    process.stdout.write(JSON.stringify({ n, instances, runMs, events, eventsPerS: events / (runMs / 1000), resumeMs, resumeEvents, rssMb }) + "\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--one") return one(Number(args[1]));
  const sizes = args.length ? args.map(Number) : [1000, 10000, 50000];
  const self = fileURLToPath(import.meta.url);
  console.log("elements  instances  run (s)  events   events/s  resume (s)  resume events  peak RSS (MB)");
  for (const n of sizes) {
    const r = spawnSync(process.execPath, [self, "--one", String(n)], { encoding: "utf8" });
    if (r.status !== 0) {
      console.error(r.stderr);
      process.exit(1);
    }
    const x = JSON.parse(r.stdout.trim());
    console.log(
      `${String(x.n).padStart(8)}  ${String(x.instances).padStart(9)}  ${(x.runMs / 1000).toFixed(2).padStart(7)}  ${String(x.events).padStart(6)}  ${Math.round(x.eventsPerS).toString().padStart(9)}  ${(x.resumeMs / 1000).toFixed(2).padStart(10)}  ${String(x.resumeEvents).padStart(13)}  ${x.rssMb.toFixed(0).padStart(13)}`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
