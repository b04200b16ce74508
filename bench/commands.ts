// Command throughput: 500 `command` instances running `true` at
// concurrency 4, against the same 500 `sh -c true` run by `xargs -P4`. Target: the engine ≤ 1.5×
// xargs. The engine runs with the launcher it picks (Perl where present) and, for comparison in
// the same invocation, with the shell launcher (`setsid` per command).
//
// Besides wall time it prints CPU time (this process plus its reaped children, from
// /proc/self/stat), which is steadier than wall time on a shared machine. Scratch folders are
// removed only at the end: on a journal-less ext4 (this machine's) a file created within minutes
// of many deletions in the same block group costs several times more, so removing one round's
// files before the next would make each round slower than the last.
//
// usage: node dist/bench/commands.js [count] [rounds]

import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./scratch.js";
import type { Plan } from "../src/plan/plan.js";
import { task } from "./plan-task.js";
import { admitRun, RunEngine, SqliteStore } from "../src/run/index.js";
import { Launcher, type LauncherDialect } from "../src/run/process/launcher.js";

interface Figure {
  ms: number;
  /** CPU milliseconds: this process and its reaped children (user + system). */
  cpu: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime + cutime + cstime of this process, in ms (0 where /proc is missing). */
function cpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
  } catch {
    return 0;
  }
}

async function measure(f: () => Promise<void> | void): Promise<Figure> {
  const c0 = cpuMs();
  const t0 = performance.now();
  await f();
  const ms = performance.now() - t0;
  // Children's CPU is counted once they are reaped: give the launcher shells time to exit.
  await new Promise((r) => setTimeout(r, 200));
  return { ms, cpu: cpuMs() - c0 };
}

const scratch: string[] = [];
function scratchFor(prefix: string): string {
  const dir = scratchDir(prefix);
  scratch.push(dir);
  return dir;
}

async function engineRun(n: number, launcherDialect?: LauncherDialect): Promise<Figure> {
  const dir = scratchFor("sy-bench-cmd-");
  const pack = join(dir, "pack");
  mkdirSync(pack);
  const plan: Plan = {
    playbook: "commands",
    source_file: "bench.star",
    pack_digest: "0".repeat(64),
    compiler_version: "bench",
    settings: { description: "", concurrency: 4, decision_concurrency: 16, max_duration_seconds: 3600 },
    tasks: [
      task("prepare", "evaluate", { evaluate: { module: "bench.star", function: "prepare" }, emits: { members: "list" } }),
      task("each", "command", {
        depends_on: ["prepare"],
        over: { task: "prepare", field: "members" },
        max_fanout: n,
        command: { run: "true", env: {} },
      }),
    ],
  };
  const store = new SqliteStore(join(dir, "state"));
  let status = "";
  const fig = await measure(async () => {
    const run = admitRun(store, { plan, packDir: pack, sourcePath: pack });
    const engine = new RunEngine({
      store,
      run,
      resume: false,
      launcherDialect,
      evaluators: () => () => ({ members: Array.from({ length: n }, (_, i) => i) }),
    });
    status = (await engine.execute()).status;
  });
  store.close();
  if (status !== "passed") throw new Error(`engine run ${status}`);
  return fig;
}

async function xargsRun(n: number): Promise<Figure> {
  const input = Array.from({ length: n }, () => "true").join("\n") + "\n";
  return measure(() => {
    const r = spawnSync("xargs", ["-P4", "-n1", "sh", "-c"], { input, stdio: ["pipe", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error("xargs failed");
  });
}

/** xargs doing the file work T-1 requires per instance: a fresh workspace, an input file, a log. */
async function xargsWithFiles(n: number): Promise<Figure> {
  const dir = scratchFor("sy-bench-xargs-");
  const input = Array.from({ length: n }, (_, i) => String(i)).join("\n") + "\n";
  const script = `mkdir "${dir}/$1" && printf '{}' > "${dir}/$1.input.json" && cd "${dir}/$1" && sh -c true >> "${dir}/$1.log" 2>&1`;
  return measure(() => {
    const r = spawnSync("xargs", ["-P4", "-n1", "sh", "-c", script, "sh"], { input, stdio: ["pipe", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error("xargs failed");
  });
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 500);
  const rounds = Number(process.argv[3] ?? 3);
  const xs: Figure[] = [];
  const fs: Figure[] = [];
  const es: Figure[] = [];
  const ss: Figure[] = [];
  const picked = new Launcher({}).dialect;
  const shToo = picked === "perl" && new Launcher({}, "sh").available;
  try {
    for (let i = 0; i < rounds; i++) {
      xs.push(await xargsRun(n));
      es.push(await engineRun(n));
      if (shToo) ss.push(await engineRun(n, "sh"));
      fs.push(await xargsWithFiles(n));
    }
  } finally {
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  }
  const best = (a: Figure[]): Figure => ({ ms: Math.min(...a.map((f) => f.ms)), cpu: Math.min(...a.map((f) => f.cpu)) });
  const x = best(xs);
  const e = best(es);
  const f = best(fs);
  const line = (name: string, v: Figure, extra = "") =>
    console.log(`${name.padEnd(22)}: ${(v.ms / 1000).toFixed(3)} s wall, ${(v.cpu / 1000).toFixed(2)} s CPU${extra}`);
  console.log(`${n} commands at concurrency 4 (best of ${rounds})`);
  line("xargs -P4 sh -c true", x);
  line("switchyard engine", e, `  (${(n / (e.ms / 1000)).toFixed(0)} instances/s, ${picked ?? "no"} launcher)`);
  if (shToo)
    line(
      "  with the sh launcher",
      best(ss),
      `  (${(best(ss).ms / x.ms).toFixed(2)}x xargs wall, ${(best(ss).cpu / x.cpu).toFixed(2)}x CPU)`,
    );
  line("xargs -P4 + T-1 files", f, "  (mkdir workspace, write input, append log)");
  console.log(
    `ratio                 : ${(e.ms / x.ms).toFixed(2)}x xargs wall (target ≤ 1.5x), ${(e.cpu / x.cpu).toFixed(2)}x CPU; ${(e.ms / f.ms).toFixed(2)}x xargs doing the same file work`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
