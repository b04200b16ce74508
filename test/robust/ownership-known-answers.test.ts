// who owns a run and which process groups may be stopped, on real processes: a live child
// (its start time read from /proc by the test itself), a child that has exited, this very process
// under another token, an owner on another host or from before a restart; a program whose name
// holds ") (" (so its /proc stat line cannot be split on spaces naively); process ids 0, 1 and
// negative ones, which name groups or every process and are never signalled; and orphaned groups
// stopped with SIGTERM, or SIGKILL when they ignore it, only when the previous owner is known gone.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/run/index.js";
import {
  checkOwner,
  currentIdentity,
  ensureProcessGroupTable,
  pidExists,
  processStartTime,
  recordProcessGroup,
} from "../../src/run/store/index.js";
import { signalGroup, stopOrphanedGroups } from "../../src/run/process/index.js";

/** Field 22 of /proc/PID/stat for a program whose name (field 2) is `name`, read by the test. */
function startTicks(pid: number, name: string): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const plain = stat.replace(`(${name})`, "(x)");
  return plain.split(" ")[21]!;
}

/** A child that sleeps until it is killed, and a promise of how it ended. */
function sleeper(opts: { detached?: boolean; ignoreTerm?: boolean; bin?: string } = {}) {
  const child: ChildProcess = opts.ignoreTerm
    ? spawn("sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], {
        detached: opts.detached,
        stdio: ["ignore", "pipe", "ignore"],
      })
    : spawn(opts.bin ?? "sleep", ["600"], { detached: opts.detached, stdio: ["ignore", "pipe", "ignore"] });
  const ended = new Promise<NodeJS.Signals | null>((done) => child.once("exit", (_code, signal) => done(signal)));
  const ready = opts.ignoreTerm ? new Promise<void>((done) => child.stdout!.once("data", () => done())) : Promise.resolve();
  return { child, pid: child.pid!, ended, ready };
}

test("R-4: pidExists is false for 0, negative and fractional ids (they name groups, not a process), true for 1 and this process", () => {
  for (const pid of [0, -1, -process.pid, 1.5, Number.NaN]) assert.equal(pidExists(pid), false, String(pid));
  assert.equal(pidExists(1), true);
  assert.equal(pidExists(process.pid), true);
  const done = spawnSync("true");
  assert.equal(pidExists(done.pid!), false);
});

test("R-4: a process's start time is field 22 of its stat line, even when its name holds ') ('", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-owner-"));
  const bin = join(dir, "a) b (c");
  copyFileSync("/bin/sleep", bin);
  spawnSync("chmod", ["+x", bin]);
  const s = sleeper({ bin });
  try {
    await new Promise((done) => s.child.once("spawn", done));
    // The name is set once the program is executed: wait until /proc shows it.
    while (!readFileSync(`/proc/${s.pid}/stat`, "utf8").includes("(a) b (c)")) await new Promise((done) => setImmediate(done));
    assert.equal(processStartTime(s.pid), startTicks(s.pid, "a) b (c"));
    assert.match(processStartTime(s.pid) ?? "", /^\d+$/);
  } finally {
    s.child.kill("SIGKILL");
    await s.ended;
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(processStartTime(s.pid), null);
  assert.equal(processStartTime(process.pid), startTicks(process.pid, readFileSync("/proc/self/comm", "utf8").trim()));
});

test("R-4: a recorded owner is alive, gone or unverifiable by host, boot, pid, token and start time", async () => {
  const me = currentIdentity();
  assert.equal(me.pid, process.pid);
  assert.equal(me.host, hostname());
  assert.equal(me.started, startTicks(process.pid, readFileSync("/proc/self/comm", "utf8").trim()));
  assert.equal(me.boot, readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  assert.match(me.token, /^[0-9a-f]{16}$/);
  assert.equal(currentIdentity(), me, "one identity per process");

  assert.deepEqual(checkOwner(me), { state: "alive", owner: me });
  const other = { ...me, host: "elsewhere" };
  assert.deepEqual(checkOwner(other), {
    state: "unverifiable",
    owner: other,
    why: `it was recorded on host elsewhere, and this is ${hostname()}`,
  });
  const rebooted = { ...me, boot: "another-boot" };
  assert.deepEqual(checkOwner(rebooted), { state: "gone", owner: rebooted, why: "the machine restarted since" });
  const noBoot = { ...me, boot: null };
  assert.deepEqual(checkOwner(noBoot), { state: "alive", owner: noBoot });
  const earlier = { ...me, token: "0000000000000000" };
  assert.deepEqual(checkOwner(earlier), { state: "gone", owner: earlier, why: "it was an earlier engine of this process" });

  const s = sleeper();
  try {
    await new Promise((done) => s.child.once("spawn", done));
    const started = startTicks(s.pid, readFileSync(`/proc/${s.pid}/comm`, "utf8").trim());
    const child = { pid: s.pid, started, boot: me.boot, host: me.host, token: "child" };
    assert.deepEqual(checkOwner(child), { state: "alive", owner: child });
    const reused = { ...child, started: String(Number(started) + 1) };
    assert.deepEqual(checkOwner(reused), { state: "gone", owner: reused, why: `process ${s.pid} is another program that reused the pid` });
    const unknown = { ...child, started: null };
    assert.deepEqual(checkOwner(unknown), {
      state: "unverifiable",
      owner: unknown,
      why: `process ${s.pid} exists, but its start time cannot be compared (none was recorded)`,
    });
  } finally {
    s.child.kill("SIGKILL");
    await s.ended;
  }
  const dead = { pid: s.pid, started: "1", boot: me.boot, host: me.host, token: "dead" };
  assert.deepEqual(checkOwner(dead), { state: "gone", owner: dead, why: `process ${s.pid} no longer exists` });
});

test("R-4: signalGroup never signals ids 0, 1, negative or fractional ones; a live group answers, a gone one does not", async () => {
  for (const pgid of [0, 1, -1, -process.pid, 2.5]) assert.equal(signalGroup(pgid, 0), false, String(pgid));
  const s = sleeper({ detached: true });
  await new Promise((done) => s.child.once("spawn", done));
  assert.equal(signalGroup(s.pid, 0), true);
  assert.equal(signalGroup(s.pid, "SIGKILL"), true);
  assert.equal(await s.ended, "SIGKILL");
  assert.equal(signalGroup(s.pid, 0), false);
  assert.equal(signalGroup(s.pid, "SIGTERM"), false);
});

test("R-4: orphaned groups are stopped only when the previous owner is gone; one that ignores SIGTERM gets SIGKILL", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-owner-"));
  const store = new SqliteStore(join(dir, "state"));
  const polite = sleeper({ detached: true });
  const stubborn = sleeper({ detached: true, ignoreTerm: true });
  const mine = sleeper({ detached: true });
  const stranger = sleeper({ detached: true });
  // A recorded leader that has not made its group yet (a launcher's child before setsid): not a
  // group leader, so it is signalled as a process.
  const lone = sleeper();
  try {
    await Promise.all([polite, stubborn, mine, stranger, lone].map((s) => new Promise((done) => s.child.once("spawn", done))));
    await stubborn.ready;
    const ticks = (pid: number) => startTicks(pid, readFileSync(`/proc/${pid}/comm`, "utf8").trim());
    ensureProcessGroupTable(store);
    const record = (pid: number, owner: string, started: string | null) =>
      recordProcessGroup(store, { run: "r", pgid: pid, started, owner, task: "t", key: null, attempt: 1 });
    record(polite.pid, "old", ticks(polite.pid));
    record(stubborn.pid, "old", ticks(stubborn.pid));
    record(mine.pid, "self", ticks(mine.pid));
    record(lone.pid, "old", ticks(lone.pid));
    // A group whose leader started at another time is not the one recorded: never signalled.
    record(stranger.pid, "old", String(Number(ticks(stranger.pid)) + 1));
    const me = currentIdentity();
    assert.equal(await stopOrphanedGroups(store, "r", "self", { state: "unverifiable", owner: me, why: "another host" }), 0);
    assert.equal(await stopOrphanedGroups(store, "r", "self", { state: "alive", owner: me }), 0);
    assert.equal(signalGroup(polite.pid, 0), true, "nothing was signalled for an owner not known gone");
    assert.equal(await stopOrphanedGroups(store, "r", "self", { state: "gone", owner: me, why: "killed" }), 3);
    assert.equal(await polite.ended, "SIGTERM");
    assert.equal(await lone.ended, "SIGTERM");
    assert.equal(await stubborn.ended, "SIGKILL");
    assert.equal(signalGroup(mine.pid, 0), true, "this owner's own group is left alone");
    assert.equal(signalGroup(stranger.pid, 0), true, "a group that is not the recorded one is left alone");
    // The others' rows are forgotten: a second call finds nothing; no previous owner at all counts as gone.
    assert.equal(await stopOrphanedGroups(store, "r", "self", undefined), 0);
  } finally {
    for (const s of [polite, stubborn, mine, stranger, lone]) s.child.kill("SIGKILL");
    await Promise.all([polite.ended, stubborn.ended, mine.ended, stranger.ended, lone.ended]);
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
