// What only a PostgreSQL store can show. Ownership is the run's advisory
// lock on the owner's connection (a second process is refused while it lives; after a kill -9
// a resume takes the run over); a server stopped in the middle of a run stops it cleanly with a
// clear message, and after a restart `resume` finishes it with nothing lost; the password of the
// connection string never appears in output, errors or records. Skipped only when no test server
// is given (SWITCHYARD_TEST_PG; .ci/run and scripts/pg-test-cluster.sh start one).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";
import { freshPgUrl, testPg } from "../support/test-store.js";
import { openStore } from "../../src/run/index.js";

const skip = testPg ? false : "SWITCHYARD_TEST_PG is not set (no PostgreSQL server for the tests)";
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "..", "run", "fixtures", "owner-child.js");
const BIN = join(process.cwd(), "bin", "switchyard.js");
const CLUSTER = join(process.cwd(), "scripts", "pg-test-cluster.sh");

interface Child {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

function child(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): Child {
  const proc = spawn(process.execPath, [cmd, ...args], { stdio: ["ignore", "pipe", "pipe"], env, cwd });
  let out = "";
  let err = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const exit = new Promise<number | null>((res) => proc.on("exit", (code) => res(code)));
  return { proc, out: () => out, err: () => err, exit };
}

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

function sy(dir: TempDir, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir.path,
    env: { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg"), ...env },
    encoding: "utf8",
    timeout: 120000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function cluster(cmd: string, where: string): string {
  const r = spawnSync(CLUSTER, [cmd, where], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const PLAYBOOK = (gate: string, marks: string) => `
playbook(description = "waits for a file", concurrency = 4)

prepare = command(name = "prepare", run = """python3 -c 'import json; print(json.dumps({"members": [str(i) for i in range(12)]}))' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 100, run = """
echo "$SWITCHYARD_KEY" >> ${marks}
while [ ! -e ${gate} ]; do sleep 0.05; done
printf '{"key": "%s"}' "$SWITCHYARD_KEY" > $SWITCHYARD_OUTPUT
""")
`;

test(
  "ownership: the owner holds the run's advisory lock; a second process gets run-busy; after kill -9 a resume takes the run over",
  { skip, timeout: 120000 },
  async () => {
    const dir = new TempDir("sy-pg-owner-");
    const url = freshPgUrl();
    const env = { ...process.env, OWNER_STORE: url };
    try {
      const state = join(dir.path, "state");
      const mark = join(dir.path, "mark");
      const release = join(dir.path, "release");
      const first = child(CHILD, [state, "new", "50", mark, release], env);
      await until("the first owner's slow command", () => lines(mark).length === 1);
      const run = first.out().split("\n")[0]!;

      const busy = child(CHILD, [state, run, "50", mark, release], env);
      assert.equal(await busy.exit, 4, busy.err());
      assert.match(busy.err(), /^run-busy: run \S+ is being executed by process \d+ on \S+, which holds the run's lock in the store; /);

      first.proc.kill("SIGKILL");
      await first.exit;
      const second = child(CHILD, [state, run, "50", mark, release], env);
      await until("the resumed owner's slow command", () => lines(mark).length === 2);
      writeFileSync(release, "");
      assert.equal(await second.exit, 0, second.err());
      assert.match(second.out(), /\npassed\n$/);

      const store = openStore(url, state);
      try {
        const events = [...store.events(run)];
        assert.deepEqual(
          events.map((e) => e.seq),
          events.map((_, i) => i + 1),
        );
        assert.equal(events.filter((e) => e.type === "run_resumed").length, 1);
        const slow = events.filter((e) => e.task === "slow" && e.type === "instance_finished");
        assert.deepEqual(
          slow.map((e) => (e.payload as { status: string }).status),
          ["passed"],
        );
        assert.equal(store.run(run)!.status, "passed");
        // The owner let go of the lock when it finished: another claim gets it at once.
        const again = child(CHILD, [state, run, "50", mark, release], env);
        assert.equal(await again.exit, 0, again.err());
      } finally {
        store.close();
      }
    } finally {
      dir.cleanup();
    }
  },
);

test(
  "faults: the server stopped mid-run stops the run with store-unreachable; after a restart, resume finishes it with nothing lost",
  { skip, timeout: 180000 },
  async () => {
    const dir = new TempDir("sy-pg-fault-");
    const where = mkdtempSync("/tmp/sy-pg-fault-");
    try {
      const url = cluster("start", where);
      const gate = join(dir.path, "gate");
      const marks = join(dir.path, "marks");
      dir.file("pack/main.star", PLAYBOOK(gate, marks));
      const env = { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
      const run = child(BIN, ["run", "pack", "--quiet", "--store", url], env, dir.path);
      await until("four work instances running", () => lines(marks).length === 4);
      cluster("pause", where);
      writeFileSync(gate, "");
      const code = await run.exit;
      assert.equal(code, 1, run.err() + run.out());
      assert.match(
        run.err(),
        /switchyard: error\[store-unreachable\]: the PostgreSQL store postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?schema=switchyard cannot be reached: /,
      );
      assert.doesNotMatch(run.err(), /internal error|\n\s+at /);

      cluster("unpause", where);
      const resumed = sy(dir, ["resume", "latest", "--quiet", "--store", url]);
      assert.equal(resumed.code, 0, resumed.err + resumed.out);
      const show = JSON.parse(sy(dir, ["show", "latest", "--json", "--store", url]).out);
      assert.equal(show.status, "passed");
      assert.deepEqual(show.tasks.work.summary, { total: 12, passed: 12, failed: 0, not_taken: 0, blocked: 0 });
      const store = openStore(url, join(dir.path, "state"));
      try {
        const events = [...store.events(show.run)];
        assert.deepEqual(
          events.map((e) => e.seq),
          events.map((_, i) => i + 1),
          "the log has no gap",
        );
        const passed = events.filter(
          (e) => e.type === "instance_finished" && e.task === "work" && (e.payload as { status: string }).status === "passed",
        );
        assert.equal(new Set(passed.map((e) => e.key)).size, 12);
        assert.equal(passed.length, 12, "no key passed twice");
      } finally {
        store.close();
      }
    } finally {
      cluster("stop", where);
      dir.cleanup();
    }
  },
);

test(
  "secrets: the password of the PostgreSQL connection string never appears in output, errors or records",
  { skip, timeout: 120000 },
  () => {
    const dir = new TempDir("sy-pg-secret-");
    const secret = "Sup3rS3cretPW";
    try {
      dir.file("pack/main.star", `playbook(description = "one")\n\none = command(name = "one", run = "echo '{}' > $SWITCHYARD_OUTPUT")\n`);
      const u = new URL(freshPgUrl());
      u.password = secret;
      const url = u.toString();
      const outputs: string[] = [];
      const ran = sy(dir, ["run", "pack", "--store", url]);
      outputs.push(ran.out, ran.err);
      assert.equal(ran.code, 0, ran.err + ran.out);
      const status = sy(dir, ["status", "--json"], { SWITCHYARD_STORE: url });
      outputs.push(status.out, status.err);
      assert.equal(JSON.parse(status.out).status, "passed");

      const down = sy(dir, ["status", "--store", `postgres://someone:${secret}@127.0.0.1:1/nowhere`]);
      outputs.push(down.out, down.err);
      assert.equal(down.code, 1);
      assert.match(
        down.err,
        /^switchyard: error\[store-unreachable\]: the PostgreSQL store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere\?schema=switchyard cannot be reached: /,
      );
      const bad = sy(dir, ["status", "--store", `mysql://someone:${secret}@db/x`]);
      outputs.push(bad.out, bad.err);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /^switchyard: error\[store-url\]: /);

      for (const text of outputs) assert.ok(!text.includes(secret), text);
      const store = openStore(url, join(dir.path, "state"));
      try {
        const everything = JSON.stringify([
          store.select({ sqlite: "SELECT * FROM events" }),
          store.select({ sqlite: "SELECT * FROM runs" }),
          store.select({ sqlite: "SELECT * FROM owners" }),
          store.select({ sqlite: "SELECT * FROM invocations" }),
        ]);
        assert.ok(everything.includes("plan_admitted"), "the records were read");
        assert.ok(!everything.includes(secret));
      } finally {
        store.close();
      }
    } finally {
      dir.cleanup();
    }
  },
);
