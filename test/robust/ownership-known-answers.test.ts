// who owns a run and which process groups may be stopped, on real processes: a live child
// (its start time read from /proc by the test itself), a child that has exited, this very process
// under another token, an owner on another host or from before a restart; a program whose name
// holds ") (" (so its /proc stat line cannot be split on spaces naively); process ids 0, 1 and
// negative ones, which name groups or every process and are never signalled; orphaned groups
// stopped with SIGTERM, or SIGKILL when they ignore it, only when the previous owner is known gone;
// the schedule of that stop on a clock the test moves (the SIGKILL exactly at the grace, the
// give-up exactly at the wait's end, each signal sent once, to what is still the recorded group);
// and a machine without /proc, where no start time can be read, made by hiding /proc from a child.

import { test, type TestContext } from "node:test";
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
  othersProcessGroups,
  pidExists,
  processStartTime,
  recordProcessGroup,
} from "../../src/run/store/index.js";
import { signalGroup, stopOrphanedGroups } from "../../src/run/process/index.js";
import { until } from "../support/assertions.js";
import { answerInChild } from "./ownership-known-answers-child.js";

/** Field 22 of /proc/PID/stat for a program whose name (field 2) is `name`, read by the test. */
function startTicks(pid: number, name: string): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const plain = stat.replace(`(${name})`, "(x)");
  return plain.split(" ")[21]!;
}

/** Field 3 of /proc/PID/stat (R running, S sleeping, Z exited but not reaped…), or null once reaped. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]!;
  } catch {
    return null;
  }
}

/** Field 5 of /proc/PID/stat: the process's group. */
function groupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** The first line a child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  let text = "";
  return new Promise((done) =>
    child.stdout!.on("data", (b: Buffer) => {
      text += b.toString();
      if (text.includes("\n")) done(text.slice(0, text.indexOf("\n")));
    }),
  );
}

/** A process group whose leader has exited while a member that ignores SIGTERM lives on. */
async function headlessGroup() {
  const leader = spawn("sh", ["-c", "trap '' TERM; sleep 600 & echo $!"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  // Listened for before the first line is awaited: the leader exits as soon as it has printed, and
  // its exit can be reported before its output is read (then a later listener would wait forever).
  const exited = new Promise((done) => leader.once("exit", done));
  const member = Number(await firstLine(leader));
  await exited;
  return { pgid: leader.pid!, member };
}

/**
 * A process group no signal can end: its only member has exited, and its parent, which has
 * become `sleep` (the member waits for that), never reaps it. Its pid and start time stay.
 */
async function undyingGroup() {
  const script = `setsid sh -c 'while [ "$(cat /proc/$PPID/comm)" != sleep ]; do sleep 0.01; done' & echo $!; exec sleep 600`;
  const parent = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
  const ended = new Promise((done) => parent.once("exit", done));
  const pgid = Number(await firstLine(parent));
  await until("the group's only member to have exited", () => procState(pgid) === "Z");
  return { parent, ended, pgid };
}

/** A child that sleeps until it is killed, and a promise of how it ended. */
function sleeper(opts: { detached?: boolean; ignoreTerm?: boolean; bin?: string } = {}) {
  const child: ChildProcess = opts.ignoreTerm
    ? spawn("sh", ["-c", "trap '' TERM; echo ready; exec sleep 600"], {
        detached: opts.detached,
        stdio: ["ignore", "pipe", "ignore"],
      })
    : spawn(opts.bin ?? "sleep", ["600"], { detached: opts.detached, stdio: ["ignore", "pipe", "ignore"] });
  const ended = new Promise<NodeJS.Signals | null>((done) => child.once("exit", (_code, signal) => done(signal)));
  const ready = opts.ignoreTerm ? new Promise<void>((done) => child.stdout!.once("data", () => done())) : Promise.resolve();
  return { child, pid: child.pid!, ended, ready };
}

/**
 * The groups a stop meets, each a detached sleeper (its own group): one that ends on SIGTERM, one
 * that ignores it, one of this owner, one whose recorded start time is not its leader's; and a
 * recorded leader that has not made its group yet (a launcher's child before setsid), so it is
 * signalled as a process. With a store to record them in.
 */
async function stopScene() {
  const dir = mkdtempSync(join(tmpdir(), "sy-owner-"));
  const store = new SqliteStore(join(dir, "state"));
  const scene = {
    polite: sleeper({ detached: true }),
    stubborn: sleeper({ detached: true, ignoreTerm: true }),
    mine: sleeper({ detached: true }),
    stranger: sleeper({ detached: true }),
    lone: sleeper(),
  };
  const all = Object.values(scene);
  const close = async () => {
    for (const s of all) s.child.kill("SIGKILL");
    await Promise.all(all.map((s) => s.ended));
    store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(all.map((s) => new Promise((done) => s.child.once("spawn", done))));
    await scene.stubborn.ready;
    ensureProcessGroupTable(store);
  } catch (err) {
    await close();
    throw err;
  }
  const ticks = (pid: number) => startTicks(pid, readFileSync(`/proc/${pid}/comm`, "utf8").trim());
  const record = (pid: number, owner: string, started: string | null) =>
    recordProcessGroup(store, { run: "r", pgid: pid, started, owner, task: "t", key: null, attempt: 1 });
  return { ...scene, store, ticks, record, close };
}

/**
 * Timers and Date on a clock the test moves (20 ms a round, as the stop's loop waits), and the
 * signals sent meanwhile (signal 0 left out), each as "MS PID SIGNAL" (a negative pid names a group).
 */
function movableClock(t: TestContext) {
  const start = 1_000_000_000;
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: start });
  const kill = process.kill;
  const sent: string[] = [];
  t.mock.method(process, "kill", (pid: number, sig?: string | number) => {
    if (sig !== 0) sent.push(`${Date.now() - start} ${pid} ${sig}`);
    return kill.call(process, pid, sig);
  });
  const advanceTo = async (ms: number) => {
    while (Date.now() - start < ms) {
      t.mock.timers.tick(20);
      await new Promise(setImmediate); // the stop's loop runs its next round
    }
  };
  return { sent, advanceTo };
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

test("R-4: orphaned groups are stopped only when the previous owner is gone, on the real clock", async () => {
  // The group that ignores SIGTERM is left to the schedule's test (below): here nothing waits for the grace.
  const { polite, mine, stranger, lone, store, ticks, record, close } = await stopScene();
  try {
    record(polite.pid, "old", ticks(polite.pid));
    record(mine.pid, "self", ticks(mine.pid));
    record(lone.pid, "old", ticks(lone.pid));
    // A group whose leader started at another time is not the one recorded: never signalled.
    record(stranger.pid, "old", String(Number(ticks(stranger.pid)) + 1));
    const me = currentIdentity();
    assert.equal(await stopOrphanedGroups(store, "r", "self", { state: "unverifiable", owner: me, why: "another host" }), 0);
    assert.equal(await stopOrphanedGroups(store, "r", "self", { state: "alive", owner: me }), 0);
    assert.equal(signalGroup(polite.pid, 0), true, "nothing was signalled for an owner not known gone");
    assert.equal(await stopOrphanedGroups(store, "r", "self", { state: "gone", owner: me, why: "killed" }), 2);
    assert.equal(await polite.ended, "SIGTERM");
    assert.equal(await lone.ended, "SIGTERM");
    assert.equal(signalGroup(mine.pid, 0), true, "this owner's own group is left alone");
    assert.equal(signalGroup(stranger.pid, 0), true, "a group that is not the recorded one is left alone");
    // The others' rows are forgotten: a second call finds nothing; no previous owner at all counts as gone.
    assert.equal(await stopOrphanedGroups(store, "r", "self", undefined), 0);
  } finally {
    await close();
  }
});

test("R-4: once every group is gone the stop returns at its next round (20 ms later), with no SIGKILL", async (t) => {
  const { polite, store, ticks, record, close } = await stopScene();
  try {
    record(polite.pid, "old", ticks(polite.pid));
    const { sent, advanceTo } = movableClock(t);
    let returned: number | undefined;
    const stopping = stopOrphanedGroups(store, "r", "self", { state: "gone", owner: currentIdentity(), why: "killed" }).then(
      (n) => (returned = n),
    );
    assert.equal(await polite.ended, "SIGTERM");
    assert.equal(returned, undefined, "it saw the group before it ended");
    await advanceTo(20);
    assert.equal(returned, 1);
    await stopping;
    assert.deepEqual(sent, [`0 -${polite.pid} SIGTERM`]);
  } finally {
    t.mock.reset();
    await close();
  }
});

test("R-4: the stop's schedule: SIGTERM at once, SIGKILL at exactly 1 s and once, to the groups still the recorded ones; it gives up at exactly 5 s", async (t) => {
  const headless = await headlessGroup();
  const undying = await undyingGroup();
  const { polite, stubborn, mine, stranger, lone, store, ticks, record, close } = await stopScene();
  try {
    // The headless group: no process has its id, yet the group answers by it (kill(-pgid)).
    assert.equal(groupOf(headless.member), headless.pgid);
    assert.equal(pidExists(headless.pgid), false);
    assert.equal(signalGroup(headless.pgid, 0), true);
    for (const s of [polite, stubborn, lone]) record(s.pid, "old", ticks(s.pid));
    record(undying.pgid, "old", ticks(undying.pgid));
    // Its leader is gone: the recorded start time is never compared.
    record(headless.pgid, "old", "1");
    record(mine.pid, "self", ticks(mine.pid));
    record(stranger.pid, "old", String(Number(ticks(stranger.pid)) + 1));
    // Groups that ended before the stop, with and without a recorded start time: nothing to signal.
    record(spawnSync("true").pid!, "old", "1");
    record(spawnSync("true").pid!, "old", null);

    const { sent, advanceTo } = movableClock(t);
    let returned: number | undefined;
    const stopping = stopOrphanedGroups(store, "r", "self", undefined).then((n) => (returned = n));
    // What dies of SIGTERM is awaited (the processes' own exit) before the clock moves.
    assert.equal(await polite.ended, "SIGTERM");
    assert.equal(await lone.ended, "SIGTERM");
    const terms = [
      `0 -${polite.pid} SIGTERM`,
      `0 -${stubborn.pid} SIGTERM`,
      // not a group leader yet: the group is not there, so the leader is signalled as a process
      `0 -${lone.pid} SIGTERM`,
      `0 ${lone.pid} SIGTERM`,
      `0 -${undying.pgid} SIGTERM`,
      `0 -${headless.pgid} SIGTERM`,
    ];
    await advanceTo(980);
    assert.deepEqual([...sent].sort(), [...terms].sort(), "at 980 ms: only the SIGTERMs");
    await advanceTo(1000);
    // The polite group and the lone leader are gone: their ids are never signalled again.
    const kills = [`1000 -${stubborn.pid} SIGKILL`, `1000 -${undying.pgid} SIGKILL`, `1000 -${headless.pgid} SIGKILL`];
    assert.deepEqual([...sent].sort(), [...terms, ...kills].sort(), "at 1000 ms: SIGKILL to what is left");
    assert.equal(await stubborn.ended, "SIGKILL");
    await advanceTo(4980);
    assert.equal(returned, undefined, "at 4980 ms it still waits for the group that does not end");
    await advanceTo(5000);
    await stopping;
    assert.equal(returned, 5, "at 5000 ms it gives up; five groups were ours");
    assert.deepEqual([...sent].sort(), [...terms, ...kills].sort(), "each signal once");
    t.mock.reset();

    assert.equal(procState(undying.pgid), "Z", "nothing could end it");
    await until("the headless group's member to end", () => [null, "Z"].includes(procState(headless.member)));
    assert.equal(signalGroup(mine.pid, 0), true, "this owner's own group is left alone");
    assert.equal(signalGroup(stranger.pid, 0), true, "a group that is not the recorded one is left alone");
    // The others' rows are forgotten, this owner's is kept.
    assert.deepEqual(othersProcessGroups(store, "r", "self"), []);
    assert.deepEqual(othersProcessGroups(store, "r", "old"), [{ pgid: mine.pid, started: ticks(mine.pid) }]);
  } finally {
    t.mock.reset();
    undying.parent.kill("SIGKILL");
    if (pidExists(headless.member)) process.kill(headless.member, "SIGKILL");
    await Promise.all([close(), undying.ended]);
  }
});

test("R-4: without /proc no start time can be read, so a live owner is unverifiable and a recorded leader alive is never taken for the one recorded", async (t) => {
  if (process.getuid?.() !== 0 || spawnSync("unshare", ["--help"]).status !== 0)
    return t.skip("needs root and unshare, to hide /proc from a child");
  const dir = mkdtempSync(join(tmpdir(), "sy-owner-"));
  const state = join(dir, "state");
  const s = sleeper({ detached: true });
  try {
    await new Promise((done) => s.child.once("spawn", done));
    const store = new SqliteStore(state);
    ensureProcessGroupTable(store);
    // As recorded on a machine without /proc: no start time.
    recordProcessGroup(store, { run: "r", pgid: s.pid, started: null, owner: "old", task: "t", key: null, attempt: 1 });
    store.close();
    const owner = { pid: s.pid, started: "12345", boot: null, host: hostname(), token: "t" };
    // The child runs with an empty file system mounted on /proc (its own mount namespace).
    const launcher = ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount -t tmpfs none /proc && exec "$@"', "sh"];
    const expression = `(async () => {
      const st = new store.SqliteStore(${JSON.stringify(state)});
      try {
        return [store.processStartTime(${s.pid}), store.checkOwner(${JSON.stringify(owner)}), await proc.stopOrphanedGroups(st, "r", "self", undefined)];
      } finally {
        st.close();
      }
    })()`;
    assert.deepEqual(answerInChild({ launcher, expression }), [
      null,
      { state: "unverifiable", owner, why: `process ${s.pid} exists, but its start time cannot be compared` },
      0,
    ]);
    assert.equal(signalGroup(s.pid, 0), true, "the group was left alone");
  } finally {
    s.child.kill("SIGKILL");
    await s.ended;
    rmSync(dir, { recursive: true, force: true });
  }
});
