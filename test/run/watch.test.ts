// Watching a run from a second process (show --follow sees every event in
// order; status --watch --exit-status waits and exits 1 for a failed run), an instance's log,
// and the filters of `runs` and `show`. The watchers only read: the run's log is unchanged.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { storeEnv, storeIn } from "../support/test-store.js";
import { runCliInProcess } from "../support/cli-in-process.js";
import { TempDir } from "./helpers.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
// The last task waits for a file the test writes once both watchers have seen the run running,
// so a slow machine cannot let the run finish before they look.
const playbook = (gate: string) => `
playbook(description = "slow", concurrency = 1)

prepare = command(name = "prepare", run = """echo '{"members": ["a", "b", "c", "d"]}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 10,
               run = """echo "working on $SWITCHYARD_KEY"; echo "to stderr" >&2; sleep 0.3""")

last = command(name = "last", depends_on = [work], run = """while [ ! -f '${gate}' ]; do sleep 0.05; done; exit 3""")
`;

function env(dir: TempDir): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...storeEnv(join(dir.path, "state")),
    SWITCHYARD_HOME: join(dir.path, "state"),
    XDG_CONFIG_HOME: join(dir.path, "xdg"),
  };
}

interface Started extends Promise<{ code: number | null; out: string; err: string }> {
  /** What the process has printed on stdout so far. */
  printed(): string;
}

function start(dir: TempDir, args: string[]): Started {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir.path, env: env(dir), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, out, err })),
  );
  return Object.assign(done, { printed: () => out });
}

function sy(dir: TempDir, args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir.path, env: env(dir), encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The same in this process, for the commands that read what the runs left (logs, runs, show, status). */
async function here(dir: TempDir, args: string[]) {
  const r = await runCliInProcess(args, { cwd: dir.path, env: env(dir) });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function eventCount(dir: TempDir): number {
  if (!storeEnv(join(dir.path, "state")).SWITCHYARD_STORE && !existsSync(join(dir.path, "state", "switchyard.db"))) return 0;
  const store = storeIn(join(dir.path, "state"));
  try {
    return store.runs().reduce((n, r) => n + store.eventCount(r.run), 0);
  } catch {
    return 0;
  } finally {
    store.close();
  }
}

test(
  "watching: show --follow in a second process sees a live run's events in order; status --watch --exit-status exits 1",
  { timeout: 60000 },
  async () => {
    const dir = new TempDir("sy-watch-");
    try {
      const gate = join(dir.path, "go");
      dir.file("pack/main.star", playbook(gate));
      const running = start(dir, ["run", "pack"]);
      await until("the run's first events", () => eventCount(dir) >= 2);
      const follow = start(dir, ["show", "latest", "--follow", "--json"]);
      const watch = start(dir, ["status", "--watch", "--exit-status", "--json"]);
      await until("both watchers printing", () => follow.printed().length > 0 && watch.printed().length > 0);
      dir.file("go", "");
      const [run, followed, watched] = await Promise.all([running, follow, watch]);
      assert.equal(run.code, 1, "the run fails (its last task exits 3)");

      const events = followed.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { seq: number; type: string; task: string | null; key: string | null });
      assert.equal(followed.code, 0, followed.err);
      assert.deepEqual(
        events.map((e) => e.seq),
        Array.from({ length: eventCount(dir) }, (_, i) => i + 1),
        "every event, in order, none twice",
      );
      assert.equal(events[0]!.type, "plan_admitted");
      assert.equal(events.at(-1)!.type, "run_finished");
      assert.deepEqual(
        events.filter((e) => e.type === "instance_finished" && e.task === "work").map((e) => e.key),
        ["a", "b", "c", "d"],
      );

      assert.equal(watched.code, 1, "--exit-status: the run failed");
      const states = watched.out
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { status: string }).status);
      assert.equal(states.at(-1), "failed");
      assert.ok(states.includes("running"), "it watched the run while it ran");
      assert.equal((await here(dir, ["status", "--exit-status"])).code, 1);

      // The log of one instance, and of its attempts.
      const log = await here(dir, ["logs", "latest", "work[b]"]);
      assert.equal(log.code, 0, log.err);
      assert.equal(log.out, "working on b\nto stderr\n");
      const bad = await here(dir, ["logs", "latest", "work[b]", "--attempt", "2"]);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--attempt must be between 1 and 1 for work\[b\]/);
      assert.match((await here(dir, ["logs", "latest", "work"])).err, /work is mapped: say which element, e.g. work\[KEY\]/);

      // Filters: runs newest first, by status and playbook; show by status.
      assert.equal(sy(dir, ["run", "pack"]).code, 1);
      const runs = JSON.parse((await here(dir, ["runs", "--json"])).out) as { run: string; started_at: string }[];
      assert.equal(runs.length, 2);
      assert.ok(runs[0]!.run > runs[1]!.run, "newest first");
      assert.deepEqual(
        JSON.parse((await here(dir, ["runs", "--json", "--limit", "1"])).out).map((r: { run: string }) => r.run),
        [runs[0]!.run],
      );
      assert.equal(JSON.parse((await here(dir, ["runs", "--json", "--status", "passed"])).out).length, 0);
      // A run waiting for review is a status --status accepts (none waits here).
      assert.equal(JSON.parse((await here(dir, ["runs", "--json", "--status", "waiting"])).out).length, 0);
      assert.equal(JSON.parse((await here(dir, ["runs", "--json", "--status", "failed", "--playbook", "main"])).out).length, 2);
      assert.match((await here(dir, ["runs", "--status", "faild"])).err, /did you mean failed\?/);
      const failed = JSON.parse((await here(dir, ["show", "latest", "--json", "--status", "failed"])).out);
      assert.deepEqual(Object.keys(failed.tasks), ["last"]);
    } finally {
      dir.cleanup();
    }
  },
);
