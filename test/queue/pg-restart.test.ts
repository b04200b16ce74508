// Issue 17, "tests that must exist": PostgreSQL restarted in the middle of a workers-mode run. The
// test runs its own throw-away cluster (scripts/pg-test-cluster.sh) so the shared test server is
// not disturbed. The coordinator stops cleanly with store-unreachable (its hold on the run went
// with its connection); each worker loses its liveness lock with the server and stops cleanly
// too. Once the server is back, new workers and `resume` finish the run with nothing lost: every
// key passed exactly once, the log without a gap.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { startCli } from "../e2e/support/harness.js";
import { pgSkip } from "../support/postgres.js";
import { PostgresStore } from "../../src/run/store-postgres.js";
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

test(
  "issue 17 faults (workers): PostgreSQL restarted mid-run — coordinator and workers stop cleanly; new workers and resume finish the run with nothing lost",
  { ...pgSkip, timeout: 180000 },
  async () => {
    const dir = new TempDir("sy-q-restart-");
    const where = mkdtempSync("/tmp/sy-q-restart-");
    const workers: WorkerProc[] = [];
    try {
      const url = cluster("start", where);
      dir.file("pack/main.star", PLAYBOOK);
      const env = { ...process.env, XDG_CONFIG_HOME: join(dir.path, "xdg") };
      const args = ["--store", url, "--executor", "workers", "--state-dir", join(dir.path, "coord"), "--quiet"];
      for (let i = 0; i < 2; i++) workers.push(await startWorkerProc(url, ["--concurrency", "4"], env));
      const reader = () => new PostgresStore(url, join(dir.path, "reader"));
      const coord = startCli(["run", "pack", ...args], { cwd: dir.path, env });
      const run = await waitFor("some work finished", async () => {
        const s = reader();
        try {
          const id = s.latestRun();
          return id && s.instances(id, "work").filter((i) => i.status === "passed").length >= 4 ? id : undefined;
        } finally {
          s.close();
        }
      });
      cluster("pause", where);

      const r = await coord.done;
      assert.equal(r.code, 1, r.err + r.out);
      assert.match(r.err, /error\[store-unreachable\]/);
      assert.doesNotMatch(r.err, /internal error|\n\s+at /);
      for (const w of workers) {
        const code = await w.exited;
        assert.notEqual(code, null, "the worker exited by itself");
      }
      workers.length = 0;

      cluster("unpause", where);
      for (let i = 0; i < 2; i++) workers.push(await startWorkerProc(url, ["--concurrency", "4"], env));
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
    } finally {
      for (const w of workers) w.proc.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      cluster("stop", where);
      dir.cleanup();
    }
  },
);
