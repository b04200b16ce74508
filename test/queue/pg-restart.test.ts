// PostgreSQL restarted in the middle of a workers-mode run. The
// file runs its own throw-away cluster (scripts/pg-test-cluster.sh), one for both tests, each in a
// database of its own, so the shared test server is not disturbed. The coordinator stops cleanly with store-unreachable (its hold on the run went
// with its connection); each worker loses its liveness lock with the server and stops cleanly
// too. Once the server is back, new workers and `resume` finish the run with nothing lost: every
// key passed exactly once, the log without a gap.
//
// And a worker whose server restarts while it completes jobs stops with one line and exit status
// 1, never an internal error or a stack, whichever of its connections notices first (the queue
// library's, the liveness session, an inbox report): the server is restarted while jobs finish
// every few milliseconds, several times over, so that the restart lands in a completion
// (graphile-worker's batched complete_jobs) some of those times.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { TempDir } from "../run/helpers.js";
import { startCli } from "../e2e/support/harness.js";
import { pgSkip } from "../support/postgres.js";
import { PostgresStore } from "../../src/run/store/store-postgres.js";
import { startWorkerProc, waitFor, type WorkerProc } from "./support.js";

const CLUSTER = join(process.cwd(), "scripts", "pg-test-cluster.sh");
const KEYS = Array.from({ length: 40 }, (_, i) => `k${i}`);

function cluster(cmd: string, where: string): string {
  const r = spawnSync(CLUSTER, [cmd, where], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const PLAYBOOK = `playbook(description = "restart", concurrency = 8)
items = command(name = "items", run = """echo '${JSON.stringify({ keys: KEYS })}' > "$SWITCHYARD_OUTPUT" """, emits = {"keys": "list"})
work = command(name = "work", depends_on = [items], over = items.keys, max_fanout = 100,
    run = """sleep 0.3; printf '{"k": "%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT" """, emits = {"k": "string"})
`;

/** Two workers of `concurrency` slots each, started side by side (any that started is in the result, to be killed, even if the other failed). */
async function twoWorkers(url: string, concurrency: string, env: Record<string, string>, into: WorkerProc[]): Promise<void> {
  const started = await Promise.allSettled([0, 1].map(() => startWorkerProc(url, ["--concurrency", concurrency], env)));
  for (const s of started) if (s.status === "fulfilled") into.push(s.value);
  for (const s of started) if (s.status === "rejected") throw s.reason;
}

interface OwnCluster {
  dir: TempDir;
  /** Stops the server (as a restart begins). */
  pause: () => void;
  /** Starts it again on the same port. */
  unpause: () => void;
  url: string;
  env: Record<string, string>;
  /** A coordinator's arguments after the pack or run. */
  args: string[];
  /** Workers started by the test; any still running are killed at the end. */
  workers: WorkerProc[];
}

/** The file's own cluster, started by the first test that needs it and stopped after the last. */
let own: { where: string; url: string } | undefined;
after(() => {
  if (own) cluster("stop", own.where);
});

/** A fresh database `name` in the file's own cluster (started if need be): its URL. */
async function ownDatabase(name: string): Promise<{ where: string; url: string }> {
  if (!own) {
    const where = mkdtempSync("/tmp/sy-q-restart-");
    own = { where, url: cluster("start", where) };
  }
  const admin = new pg.Client({ connectionString: own.url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(own.url);
  u.pathname = `/${name}`;
  return { where: own.where, url: u.toString() };
}

/** Runs `body` with a database of its own in the file's cluster and `playbook` as pack/main.star; the cluster is left running. */
async function inOwnCluster(prefix: string, playbook: string, body: (c: OwnCluster) => Promise<void>): Promise<void> {
  const dir = new TempDir(prefix);
  const workers: WorkerProc[] = [];
  let where = "";
  let paused = false;
  try {
    const db = await ownDatabase(prefix.replace(/\W/g, "_").replace(/_+$/, ""));
    where = db.where;
    const url = db.url;
    dir.file("pack/main.star", playbook);
    const env = { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: join(dir.path, "xdg") };
    const args = ["--store", url, "--executor", "workers", "--state-dir", join(dir.path, "coord"), "--quiet"];
    const pause = () => {
      cluster("pause", where);
      paused = true;
    };
    const unpause = () => {
      cluster("unpause", where);
      paused = false;
    };
    await body({ dir, pause, unpause, url, env, args, workers });
  } finally {
    for (const w of workers) w.proc.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    // A test that failed while the server was stopped leaves it running for the next one.
    if (paused) cluster("unpause", where);
    dir.cleanup();
  }
}

test(
  "faults (workers): PostgreSQL restarted mid-run — coordinator and workers stop cleanly; new workers and resume finish the run with nothing lost",
  { ...pgSkip, timeout: 180000 },
  () =>
    inOwnCluster("sy-q-restart-", PLAYBOOK, async ({ dir, pause, unpause, url, env, args, workers }) => {
      await twoWorkers(url, "4", env, workers);
      const coord = startCli(["run", "pack", ...args], { cwd: dir.path, env });
      const reader = () => new PostgresStore(url, join(dir.path, "reader"));
      // One reader watches the run (a new one per look would start a server process each time).
      const watch = reader();
      const run = await waitFor(
        "some work finished",
        async () => {
          const id = watch.latestRun();
          return id && watch.instances(id, "work").filter((i) => i.status === "passed").length >= 4 ? id : undefined;
        },
        120000,
      ).finally(() => watch.close());
      pause();

      const r = await coord.done;
      assert.equal(r.code, 1, r.err + r.out);
      assert.match(r.err, /error\[store-unreachable\]/);
      assert.doesNotMatch(r.err, /internal error|\n\s+at /);
      for (const w of workers) {
        const code = await w.exited;
        assert.notEqual(code, null, "the worker exited by itself");
      }
      workers.length = 0;

      unpause();
      await twoWorkers(url, "4", env, workers);
      const resumed = await startCli(["resume", run, ...args], { cwd: dir.path, env }).done;
      assert.equal(resumed.code, 0, resumed.err + resumed.out);
      const s = reader();
      try {
        assert.equal(s.run(run)!.status, "passed");
        const events = [...s.events(run)];
        assert.deepEqual(
          events.map((e) => e.seq),
          events.map((_, i) => i + 1),
          "the log has no gap",
        );
        const passed = events.filter(
          (e) => e.type === "instance_finished" && e.task === "work" && (e.payload as { status: string }).status === "passed",
        );
        assert.equal(passed.length, KEYS.length, "no key passed twice");
        assert.deepEqual(
          s.instances(run, "work").map((i) => [i.key, i.status, i.output]),
          [...KEYS].sort().map((k) => [k, "passed", { k }]),
        );
      } finally {
        s.close();
      }
    }),
);

const RESTARTS = 5;
const COMPLETING_KEYS = Array.from({ length: 1000 }, (_, i) => `k${i}`);
const COMPLETING = `playbook(description = "restart while completing", concurrency = 16)
items = command(name = "items", run = """echo '${JSON.stringify({ keys: COMPLETING_KEYS })}' > "$SWITCHYARD_OUTPUT" """, emits = {"keys": "list"})
work = command(name = "work", depends_on = [items], over = items.keys, max_fanout = 1000, run = "true")
`;

/** How many reports the workers have written so far (0 while the queue's tables do not exist). */
async function reports(c: pg.Client): Promise<number> {
  try {
    const r = await c.query<{ n: number }>("select count(*)::int as n from switchyard.inbox where kind = 'finished'");
    return r.rows[0]!.n;
  } catch {
    return 0;
  }
}

test(
  "a worker whose PostgreSQL restarts while it completes jobs exits 1 with one line: store-unreachable, no internal error, no stack",
  { ...pgSkip, timeout: 600000 },
  () =>
    inOwnCluster("sy-q-wrestart-", COMPLETING, async ({ dir, pause, unpause, url, env, args, workers }) => {
      let run = "";
      for (let round = 0; round < RESTARTS; round++) {
        // One session watches the reports (a new one per look would start a server process each time).
        const watch = new pg.Client({ connectionString: url });
        await watch.connect();
        await twoWorkers(url, "8", env, workers);
        const before = await reports(watch);
        const coord = startCli(run ? ["resume", run, ...args] : ["run", "pack", ...args], { cwd: dir.path, env });
        const errs = workers.map(() => "");
        workers.forEach((w, i) => w.proc.stderr!.on("data", (b: Buffer) => (errs[i] += b.toString())));
        try {
          // Jobs are being completed: more reports arrive.
          await waitFor("jobs completing", async () => ((await reports(watch)) >= before + 20 ? true : undefined), 120000);
          run ||= (await watch.query<{ run: string }>("select run from switchyard.runs order by run desc limit 1")).rows[0]!.run;
        } finally {
          await watch.end();
        }
        pause();
        const codes = await Promise.all(workers.map((w) => w.exited));
        await coord.done;
        for (const [i, code] of codes.entries()) {
          const err = errs[i]!;
          assert.equal(code, 1, `round ${round}, worker ${i}:\n${err}`);
          assert.doesNotMatch(err, /error\[internal\]/, `round ${round}, worker ${i}:\n${err}`);
          assert.ok(!err.split("\n").some((l) => l.startsWith("    at ")), `round ${round}, worker ${i} printed a stack:\n${err}`);
          const errors = err.split("\n").filter((l) => /error\[/.test(l));
          assert.equal(errors.length, 1, `round ${round}, worker ${i}: one error line:\n${err}`);
          assert.match(errors[0]!, /error\[store-unreachable\]: lost the store/);
          assert.doesNotMatch(err, /queue (error|warning)/, `round ${round}, worker ${i}: the loss told once:\n${err}`);
        }
        workers.length = 0;
        unpause();
      }
    }),
);
