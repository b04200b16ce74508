// Children of a dead owner are dealt with. After kill -9 of the owner, an
// immediate resume stops the dead owner's process groups (and waits for them) before it runs
// those instances again, so no instance runs twice at once; SIGHUP cancels a run as SIGTERM
// does: its children are stopped, the run ends `cancelled` and can be resumed. The processes the
// decision layer starts (a `command` provider) are recorded and stopped the same way.

import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

// Each element logs its start; its first attempt then waits (in a group with a `sleep`) until
// it is stopped, and logs that.
const playbook = (log: string) => `
playbook(description = "children", concurrency = 3)

prepare = command(name = "prepare", run = """echo '{"members": ["a", "b", "c"]}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 10, run = """
echo "start $SWITCHYARD_KEY $(basename $PWD) $$" >> ${log}
case "$PWD" in
  *.a1) trap 'echo "stopped $SWITCHYARD_KEY" >> ${log}; exit 143' TERM; sleep 60 & wait ;;
esac
""")
`;

function env(dir: TempDir): NodeJS.ProcessEnv {
  return { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
}

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A run whose three `work` instances are running (their first attempt, waiting). */
async function runningRun(dir: TempDir, log: string) {
  dir.file("pack/main.star", playbook(log));
  const child = spawn(process.execPath, [BIN, "run", "pack", "--json"], {
    cwd: dir.path,
    env: env(dir),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  child.stdout!.resume();
  const exit = new Promise<number | null>((res) => child.on("exit", (code) => res(code)));
  await until("three running instances", () => lines(log).filter((l) => l.startsWith("start")).length === 3);
  const pids = lines(log).map((l) => Number(l.split(" ")[3]));
  return { child, exit, pids, err: () => err };
}

test(
  "kill -9 of the owner, then an immediate resume: the dead owner's groups are stopped before the instances run again",
  { timeout: 60000 },
  async () => {
    const dir = new TempDir("sy-groups-");
    const log = join(dir.path, "log");
    try {
      const { child, exit, pids } = await runningRun(dir, log);
      child.kill("SIGKILL");
      await exit;
      assert.ok(pids.every(alive), "the killed owner's children outlive it");
      const r = spawnSync(process.execPath, [BIN, "resume", "latest"], { cwd: dir.path, env: env(dir), encoding: "utf8", timeout: 40000 });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      const l = lines(log);
      const firstRestart = l.findIndex((x) => / \S+\.a2 /.test(x));
      assert.ok(firstRestart > 0, l.join("\n"));
      assert.deepEqual(
        l
          .slice(0, firstRestart)
          .filter((x) => x.startsWith("stopped"))
          .map((x) => x.split(" ")[1])
          .sort(),
        ["a", "b", "c"],
        `each old attempt was stopped before any new one started:\n${l.join("\n")}`,
      );
      assert.equal(l.filter((x) => / \S+\.a2 /.test(x)).length, 3);
      assert.ok(!pids.some(alive), "no child of the dead owner is left");
    } finally {
      dir.cleanup();
    }
  },
);

test("SIGHUP cancels a run like SIGTERM: children stopped, run `cancelled`, resumable", { timeout: 60000 }, async () => {
  const dir = new TempDir("sy-groups-");
  const log = join(dir.path, "log");
  try {
    const { child, exit, pids, err } = await runningRun(dir, log);
    child.kill("SIGHUP");
    assert.equal(await exit, 1, err());
    assert.match(err(), /cancelling: stopping running instances/);
    assert.deepEqual(
      lines(log)
        .filter((x) => x.startsWith("stopped"))
        .map((x) => x.split(" ")[1])
        .sort(),
      ["a", "b", "c"],
    );
    assert.ok(!pids.some(alive), "no child is left running");
    const st = JSON.parse(
      spawnSync(process.execPath, [BIN, "status", "--json"], { cwd: dir.path, env: env(dir), encoding: "utf8" }).stdout,
    );
    assert.equal(st.status, "cancelled");
    assert.equal(st.reason, "cancelled by SIGHUP (the terminal closed)");
    const r = spawnSync(process.execPath, [BIN, "resume", "latest"], { cwd: dir.path, env: env(dir), encoding: "utf8", timeout: 40000 });
    assert.equal(r.status, 0, r.stderr);
  } finally {
    dir.cleanup();
  }
});

// The decision layer's `command` provider: its first call waits in a `sleep` (its own process
// group); the second answers at once.
const decidingPlaybook = `
playbook(description = "a model decides", concurrency = 2)

prepare = command(name = "prepare", run = """echo '{"members": ["a"]}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

ask = route(
    name = "ask", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    questions = {"ok": noul(ask = "Is it ok?", drop = ["no", "uncertain"])},
)

after = command(name = "after", depends_on = [ask], over = prepare.members, max_fanout = 10, when = ask.ok, answers = "yes", run = "true")
`;

const decider = (dir: string) => `#!/bin/sh
if [ ! -e "${dir}/slept" ]; then
  : > "${dir}/slept"
  echo "$$" > "${dir}/decider.tmp" && mv "${dir}/decider.tmp" "${dir}/decider.pid"
  exec sleep 60
fi
cat > /dev/null
echo '{"model": "m1", "answers": {"ok": {"type": "noul", "noul": 0.9}}, "usage": {"input_tokens": 1, "output_tokens": 1}}'
`;

test(
  "a decision provider's `command` process is recorded as a process group; after kill -9 of the owner, resume stops it",
  { timeout: 60000 },
  async () => {
    const dir = new TempDir("sy-groups-");
    let pid = 0;
    try {
      dir.file("pack/main.star", decidingPlaybook);
      const script = dir.file("decide.sh", decider(dir.path), 0o755);
      const config = dir.file(
        "config.toml",
        `[providers.inhouse]\nkind = "command"\nvendor = "inhouse"\nmodels = ["m1"]\ncommand = ["${script}"]\ntimeout = "120s"\n\n[decisions]\ndefault = "inhouse/m1"\n`,
      );
      const child = spawn(process.execPath, [BIN, "run", "pack", "--config", config], {
        cwd: dir.path,
        env: env(dir),
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
      const exit = new Promise<number | null>((res) => child.on("exit", (code) => res(code)));
      const pidFile = join(dir.path, "decider.pid");
      await until("the decider is waiting", () => existsSync(pidFile) || child.exitCode !== null);
      assert.equal(child.exitCode, null, err);
      pid = Number(readFileSync(pidFile, "utf8"));
      // Its group is recorded while it runs, under the route instance that asked.
      const db = new Database(join(dir.path, "state", "switchyard.db"), { readonly: true });
      await until("the group is recorded", () => db.prepare("SELECT 1 FROM process_groups WHERE pgid = ?").get(pid) !== undefined, 10000);
      assert.deepEqual(db.prepare("SELECT task, key, attempt FROM process_groups WHERE pgid = ?").get(pid), {
        task: "ask",
        key: "a",
        attempt: 1,
      });
      db.close();
      child.kill("SIGKILL");
      await exit;
      assert.ok(alive(pid), "the killed owner's decision process outlives it");
      const r = spawnSync(process.execPath, [BIN, "resume", "latest"], { cwd: dir.path, env: env(dir), encoding: "utf8", timeout: 40000 });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.ok(!alive(pid), "the resume stopped the dead owner's decision process");
      const st = JSON.parse(
        spawnSync(process.execPath, [BIN, "status", "--json"], { cwd: dir.path, env: env(dir), encoding: "utf8" }).stdout,
      );
      assert.equal(st.status, "passed");
    } finally {
      if (pid && alive(pid)) process.kill(pid, "SIGKILL");
      dir.cleanup();
    }
  },
);

test("a recorded or reported process group id of 0, 1 or below is never signalled (kill(-0) is our own group)", () => {
  // Run in a process of its own group (setsid), so that a regression kills that process, not this runner.
  const mod = join(process.cwd(), "dist", "src", "run", "process", "signal-group.js");
  const own = join(process.cwd(), "dist", "src", "run", "store", "ownership.js");
  const script = `
    const { signalGroup } = await import(${JSON.stringify(mod)});
    const { pidExists } = await import(${JSON.stringify(own)});
    const refused = [0, 1, -1, -0, 1.5, NaN].map((id) => signalGroup(id, "SIGKILL"));
    const mine = signalGroup(process.pid, 0);
    console.log(JSON.stringify({ refused, mine, zero: pidExists(0), negative: pidExists(-1) }));`;
  const r = spawnSync("setsid", [process.execPath, "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.signal, null, `the child was killed by ${r.signal}`);
  assert.deepEqual(JSON.parse(r.stdout), { refused: [false, false, false, false, false, false], mine: true, zero: false, negative: false });
});
