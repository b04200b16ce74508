// Workers mode through the queue: (1) N no-op command instances (default 10,000) run by
// a coordinator (`run --executor workers`) and two `switchyard worker` processes on this machine,
// all real processes on a fresh PostgreSQL database: instances per second from the task's
// expansion to its settling, as recorded in the log; (2) recovery: a worker holding a job is
// killed with SIGKILL, and the time until another worker starts that job is measured from the
// inbox's own timestamps. Needs SWITCHYARD_BENCH_PG (or SWITCHYARD_TEST_PG) naming a server the
// user may create databases on. Targets: ≥ 60 % of the same-run ceiling below, ≤ 2 store
// transactions per instance, recovery ≤ 10 s.
//
// A no-op command's cost is mostly the machine's cost of starting a process, which differs
// several-fold between machines of the same kind (500 `sh -c true` started one after another by
// Perl took 0.6 s of CPU on one and 2.6 s on another). So the run also measures this machine's own ceiling,
// in the same run and with nothing else running: the same number of `sh -c true` started by
// `xargs` with as many slots as the two workers have; the queue's rate is printed as a share of it.
// usage: node dist/bench/queue.js [INSTANCES=10000] [WORKER_CONCURRENCY=16]

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { rmSync, writeFileSync, mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { scratchDir } from "./scratch.js";

const LOAD_AT_START = loadavg()[0]!.toFixed(1);
const N = Number(process.argv[2] ?? 10000);
const SLOTS = Number(process.argv[3] ?? 16);
const server = process.env.SWITCHYARD_BENCH_PG || process.env.SWITCHYARD_TEST_PG;
const BIN = resolve("bin/switchyard.js");
/**
 * Extra node flags for the coordinator and the two measured workers, e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof": the workers are drained by SIGTERM after the run, so each writes its profile.
 */
const NODE_ARGS = (process.env.SWITCHYARD_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

if (!server) {
  process.stdout.write("not measured: set SWITCHYARD_BENCH_PG=postgres://… (a server you may create databases on)\n");
  process.exit(0);
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function worker(url: string, dir: string, name: string, nodeArgs: string[]): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    [...nodeArgs, BIN, "worker", "--store", url, "--state-dir", join(dir, name), "--concurrency", String(SLOTS)],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg") },
    },
  );
  return new Promise((ok, fail) => {
    let err = "";
    proc.stderr!.on("data", (b: Buffer) => {
      err += b.toString();
      if (err.includes(" runs up to ")) ok(proc);
    });
    proc.on("exit", (code) => fail(new Error(`worker exited (${code}): ${err}`)));
  });
}

function pack(dir: string, name: string, n: number, run: string): string {
  const p = join(dir, name);
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "main.star"),
    `playbook(description = "queue bench", concurrency = 64)
items = command(name = "items", run = """python3 -c 'import json; print(json.dumps({"keys": ["k%d" % i for i in range(${n})]}))' > "$SWITCHYARD_OUTPUT" """, emits = {"keys": "list"})
work = command(name = "work", depends_on = [items], over = items.keys, max_fanout = ${Math.max(n, 1)}, run = ${JSON.stringify(run)})
`,
  );
  return p;
}

/** This machine's rate of starting `sh -c true` through `xargs -P SLOTS` (instances/s), nothing else running. */
function ceiling(n: number, slots: number): number {
  const input = Array.from({ length: n }, (_, i) => String(i)).join("\n") + "\n";
  const t0 = process.hrtime.bigint();
  const r = spawnSync("xargs", [`-P${slots}`, "-n1", "sh", "-c", "true"], { input, stdio: ["pipe", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("xargs failed");
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function throughput(url: string, dir: string, xargsRate: number): Promise<void> {
  const p = pack(dir, "noop", N, "true");
  const commits = async (): Promise<number> => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      // The server's count lags its backends by up to half a second (PGSTAT_MIN_INTERVAL).
      await new Promise((res) => setTimeout(res, 600));
      const r = await c.query<{ n: string }>("select xact_commit::text as n from pg_stat_database where datname = current_database()");
      return Number(r.rows[0]!.n);
    } finally {
      await c.end();
    }
  };
  const commitsBefore = await commits();
  const t0 = Date.now();
  const r = spawnSync(
    process.execPath,
    [...NODE_ARGS, BIN, "run", p, "--store", url, "--executor", "workers", "--state-dir", join(dir, "coord"), "--json", "-q"],
    {
      encoding: "utf8",
      env: { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg") },
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const wall = (Date.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`the run failed: ${r.stderr.slice(-2000)}`);
  const perInstance = ((await commits()) - commitsBefore) / N;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const ev = await c.query<{ type: string; time: string }>(
      "select type, max(time) as time from switchyard.events where task = 'work' and type in ('task_expanded', 'instance_finished') group by type",
    );
    const expanded = Date.parse(ev.rows.find((e) => e.type === "task_expanded")!.time);
    const settled = Date.parse(ev.rows.find((e) => e.type === "instance_finished")!.time);
    const s = (settled - expanded) / 1000;
    const workers = await c.query<{ worker: string; n: number }>(
      "select worker, count(*)::int as n from switchyard.inbox where kind = 'finished' group by worker order by worker",
    );
    process.stdout.write(
      `throughput: ${N.toLocaleString("en")} no-op commands, 2 workers × ${SLOTS} slots, run concurrency 64: ` +
        `${Math.round(N / s).toLocaleString("en")} instances/s (${s.toFixed(1)} s from expansion to the last finish; ${wall.toFixed(1)} s for the whole command; ` +
        `per worker ${workers.rows.map((w) => w.n).join(" / ")}; ${perInstance.toFixed(2)} store transactions per instance)\n` +
        `ceiling: the same ${N.toLocaleString("en")} \`sh -c true\` through \`xargs -P${2 * SLOTS}\` alone: ${Math.round(xargsRate).toLocaleString("en")}/s; ` +
        `the queue ran at ${Math.round((100 * N) / s / xargsRate)} % of it (load average ${LOAD_AT_START} when the benchmark started)\n`,
    );
  } finally {
    await c.end();
  }
}

async function recovery(url: string, dir: string, workers: ChildProcess[]): Promise<void> {
  const p = pack(dir, "slow", 1, "sleep 5");
  const coord = spawn(
    process.execPath,
    [BIN, "run", p, "--store", url, "--executor", "workers", "--state-dir", join(dir, "coord2"), "-q"],
    {
      stdio: "ignore",
      env: { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg") },
    },
  );
  const done = new Promise<number | null>((ok) => coord.on("exit", ok));
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    let first: { run: string; worker: string; created: Date } | undefined;
    while (!first) {
      const r = await c.query<{ run: string; worker: string; created: Date }>(
        "select i.run, i.worker, i.created from switchyard.inbox i join switchyard.queue_runs q on q.run = i.run where i.task = 'work' and i.kind = 'started' and q.plan::text like '%sleep 5%' order by i.id limit 1",
      );
      first = r.rows[0];
      if (!first) await new Promise((res) => setTimeout(res, 20));
    }
    const pids = await c.query<{ id: string; pid: number }>("select id, pid from switchyard.workers");
    const victim = pids.rows.find((w) => w.id === first!.worker)!;
    const killedAt = Date.now();
    process.kill(victim.pid, "SIGKILL");
    // The job taken again: its row in the queue locked anew (by the other worker: the victim is dead).
    const key = `${first.run}/work/k0/a1`;
    let again: { locked_at: Date } | undefined;
    while (!again) {
      const r = await c.query<{ locked_at: Date }>("select locked_at from graphile_worker.jobs where key = $1 and locked_at > $2", [
        key,
        new Date(killedAt),
      ]);
      again = r.rows[0];
      if (!again) await new Promise((res) => setTimeout(res, 20));
    }
    const s = (again.locked_at.getTime() - killedAt) / 1000;
    process.stdout.write(`recovery: kill -9 of the worker running a job → the job started on the other worker after ${s.toFixed(2)} s\n`);
    for (const w of workers) if (w.pid === victim.pid) w.exitCode ?? w.kill("SIGKILL");
  } finally {
    await c.end();
  }
  await done;
}

/** Drains workers with SIGTERM, as an operator stops one; kills any that takes over `ms`. */
function drain(procs: ChildProcess[], ms = 10000): Promise<void> {
  return Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((res) => {
          if (p.exitCode !== null || p.signalCode !== null) return res();
          const t = setTimeout(() => p.kill("SIGKILL"), ms);
          p.on("exit", () => (clearTimeout(t), res()));
          p.kill("SIGTERM");
        }),
    ),
  ).then(() => undefined);
}

const db = `sy_bench_${process.pid}`;
const dir = scratchDir("queue-");
const u = new URL(server);
u.pathname = `/${db}`;
const url = u.toString();
await admin(`create database ${db}`);
const procs: ChildProcess[] = [];
try {
  if (N > 0) {
    const xargsRate = ceiling(N, 2 * SLOTS);
    const measured = [await worker(url, dir, "w1", NODE_ARGS), await worker(url, dir, "w2", NODE_ARGS)];
    procs.push(...measured);
    await throughput(url, dir, xargsRate);
    // Drained, so that each writes its CPU profile when asked to (SWITCHYARD_BENCH_NODE_ARGS):
    // the recovery below kills one of its workers.
    await drain(measured, 60000);
  }
  const fresh = [await worker(url, dir, "w3", []), await worker(url, dir, "w4", [])];
  procs.push(...fresh);
  await recovery(url, dir, fresh);
} finally {
  await drain(procs);
  if (!process.env.KEEP_BENCH_DB) await admin(`drop database if exists ${db} with (force)`).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
