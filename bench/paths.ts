// The other paths that must stay linear, each at 1,000 and 10,000 elements
// with the ratio printed (anything over 12x for 10x the work is a bug): a run whose mapped task
// is folded (over N instances) and read by a settled join (over N statuses), resuming a run
// cancelled half-way, and the CLI's `show --json`, `status` and `runs --rebuild` on the result.
// The CLI figures include starting Node (about 0.1-0.2 s), as a user sees them.
//
// usage: node dist/bench/paths.js [small] [large]      (default: 1000 10000)

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Plan, TaskPlan } from "../src/plan/plan.js";
import { admitRun, RunEngine, SqliteStore } from "../src/run/index.js";
import { benchPlanOf, task } from "./plan-task.js";
import { scratchDir } from "./scratch.js";

const CLI = resolve("bin/switchyard.js");

function benchPlan(n: number): Plan {
  const m = { over: { task: "prepare", field: "members" }, max_fanout: n };
  const ev = (name: string) => ({ evaluate: { module: "bench.star", function: name } });
  return benchPlanOf("paths", [
    task("prepare", "evaluate", { ...ev("prepare"), emits: { members: "list" } }),
    task("each", "evaluate", { ...ev("each"), depends_on: ["prepare"], ...m }),
    task("judge", "evaluate", { ...ev("judge"), depends_on: ["each"], join: "settled", ...m, aligned_with: ["each"] }),
    task("reduce", "evaluate", { ...ev("reduce"), depends_on: ["judge", "each"], join: "settled" }),
  ]);
}

function evaluators(n: number) {
  type In = { key: string; inputs: Record<string, { items: Record<string, unknown> } | null>; statuses?: Record<string, string> };
  const fns: Record<string, (i: In) => unknown> = {
    prepare: () => ({ members: Array.from({ length: n }, (_, i) => `t-${i}`) }),
    // Every seventh element fails, so the settled join sees mixed statuses.
    each: (i) => (Number(i.key.slice(2)) % 7 === 0 ? null : { key: i.key }),
    judge: (i) => ({ ok: i.inputs.each !== null }),
    reduce: (i) => ({ passed: Object.keys(i.inputs.each!.items).length, statuses: Object.keys(i.statuses ?? {}).length }),
  };
  return (t: TaskPlan) => fns[t.evaluate!.function]! as (input: unknown) => unknown;
}

interface Figures {
  run: number;
  resumeHalf: number;
  show: number;
  status: number;
  rebuild: number;
}

function cli(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0 && !(args[0] === "status" && r.status === 1)) throw new Error(`switchyard ${args.join(" ")}: ${r.stderr}`);
  return performance.now() - t0;
}

async function measure(n: number): Promise<Figures> {
  const dir = scratchDir("sy-bench-paths-");
  try {
    const state = join(dir, "state");
    const store = new SqliteStore(state);
    const pack = dir;
    let t0 = performance.now();
    const run = admitRun(store, { plan: benchPlan(n), packDir: pack, sourcePath: pack });
    await new RunEngine({ store, run, resume: false, evaluators: evaluators(n) }).execute();
    const runMs = performance.now() - t0;
    // A second run, cancelled once half of `each` has finished, then resumed to the end.
    const half = admitRun(store, { plan: benchPlan(n), packDir: pack, sourcePath: pack });
    let finished = 0;
    const first: RunEngine = new RunEngine({
      store,
      run: half,
      resume: false,
      evaluators: evaluators(n),
      onEvent: (e) => {
        if (e.type === "instance_finished" && e.task === "each" && ++finished === n / 2) first.cancel("bench: half-way");
      },
    });
    const cancelled = await first.execute();
    if (cancelled.status !== "cancelled") throw new Error(`half-way run ${cancelled.status}`);
    t0 = performance.now();
    const resumed = await new RunEngine({ store, run: half, resume: true, evaluators: evaluators(n) }).execute();
    const resumeHalf = performance.now() - t0;
    if (resumed.status !== "failed") throw new Error(`resumed run ${resumed.status} (every seventh element fails)`);
    store.close();
    return {
      run: runMs,
      resumeHalf,
      show: cli(["show", run, "--json", "--state-dir", state]),
      status: cli(["status", run, "--state-dir", state]),
      rebuild: cli(["runs", "--rebuild", "--state-dir", state]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const small = Number(process.argv[2] ?? 1000);
  const large = Number(process.argv[3] ?? 10000);
  const a = await measure(small);
  const b = await measure(large);
  const rows: Array<[string, keyof Figures]> = [
    ["run: fold over N, settled join over N", "run"],
    ["resume a run cancelled half-way", "resumeHalf"],
    ["show --json", "show"],
    ["status", "status"],
    ["runs --rebuild (both runs)", "rebuild"],
  ];
  console.log(
    `${"path".padEnd(40)}  ${String(small).padStart(8)}  ${String(large).padStart(8)}  ratio (${large / small}x the work; bug if > ${(1.2 * large) / small}x)`,
  );
  for (const [name, k] of rows) {
    const ratio = b[k] / a[k];
    console.log(
      `${name.padEnd(40)}  ${(a[k] / 1000).toFixed(2).padStart(7)}s  ${(b[k] / 1000).toFixed(2).padStart(7)}s  ${ratio.toFixed(1)}x${ratio > (1.2 * large) / small ? "  <- over the limit" : ""}`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
