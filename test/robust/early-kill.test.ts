// an instance never runs twice at once, even when the engine is killed (kill -9) in the first
// moments of its commands. A command's process group is recorded before the command may run (its
// child waits for the engine's go), so the resume always finds and stops what the dead engine
// left running before it runs those instances again.
//
// The detector: each command first takes a per-instance lock (flock on a file, inherited by every
// process of the command and released only when the last of them is gone) without waiting; a copy
// that finds it taken logs an overlap. Any two copies whose commands ran at the same time are so
// seen by whichever came second, whatever the machine's speed.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const KEYS = ["a", "b", "c", "d", "e", "f", "g", "h"];

// Every `work` command holds its instance's lock while it runs; until the test allows the rest to
// finish (the `resumed` file), a command waits to be stopped.
const playbook = (dir: string) => `
playbook(description = "early kill", concurrency = ${KEYS.length})

prepare = command(name = "prepare", run = """echo '{"members": ${JSON.stringify(KEYS).replace(/"/g, '\\"')}}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 10, run = """
exec 9>> ${dir}/lock-$SWITCHYARD_KEY
flock -n 9 || { echo "overlap $SWITCHYARD_KEY $(basename $PWD) $$" >> ${dir}/log; exit 1; }
echo "start $SWITCHYARD_KEY $(basename $PWD) $$" >> ${dir}/log
[ -e ${dir}/resumed ] && exit 0
sleep 60 & wait
""")
`;

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

test(
  "R-4: kill -9 of the engine 0, 20, 50 and 100 ms after its first attempts start, then resume: no instance ever runs twice at once",
  { timeout: 300000 },
  async () => {
    for (const delay of [0, 20, 50, 100]) {
      const dir = new TempDir("sy-early-kill-");
      const log = join(dir.path, "log");
      const env = { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
      try {
        dir.file("pack/main.star", playbook(dir.path));
        const child = spawn(process.execPath, [BIN, "run", "pack", "--json"], { cwd: dir.path, env, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
        child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
        const exit = new Promise<void>((res) => child.on("exit", () => res()));
        // The event: the engine has recorded the start of a `work` attempt (it launches it next).
        await until("the first work attempt starts", () => /"type":"instance_started","task":"work"/.test(out) || child.exitCode !== null);
        assert.equal(child.exitCode, null, err);
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
        child.kill("SIGKILL");
        await exit;
        const firstLife = lines(log);
        writeFileSync(join(dir.path, "resumed"), "");
        const r = spawnSync(process.execPath, [BIN, "resume", "latest"], { cwd: dir.path, env, encoding: "utf8", timeout: 120000 });
        const all = lines(log);
        try {
          assert.deepEqual(
            all.filter((l) => l.startsWith("overlap")),
            [],
            `kill at +${delay} ms: two copies of an instance ran at once\n${all.join("\n")}`,
          );
          assert.equal(r.status, 0, r.stderr + r.stdout);
          const passed = all.filter((l) => l.startsWith("start")).map((l) => l.split(" ")[1]);
          assert.deepEqual([...new Set(passed)].sort(), KEYS, all.join("\n"));
          // Nothing the killed engine started outlives the resume.
          for (const l of firstLife) assert.ok(!groupAlive(Number(l.split(" ")[3])), `left running: ${l}`);
        } finally {
          for (const l of all) {
            const pid = Number(l.split(" ")[3]);
            if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
          }
        }
      } finally {
        dir.cleanup();
      }
    }
  },
);
