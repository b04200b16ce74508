// exactly one process owns a run. Concurrent resumes: one executes, the others
// are refused with run-busy before they fold anything, and no instance starts twice. An owner
// record pointing at a live unrelated process (a reused pid) neither wedges the run nor gets
// signalled by `cancel`; an owner that cannot be verified (another host) needs `--force`.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";
import { processStartTime } from "../../src/run/store/ownership.js";
import { SqliteStore } from "../../src/run/index.js";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "..", "run", "fixtures", "owner-child.js");
const BIN = join(process.cwd(), "bin", "switchyard.js");

interface Child {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

function child(args: string[], cmd = CHILD, env: NodeJS.ProcessEnv = process.env): Child {
  const proc = spawn(process.execPath, [cmd, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  let out = "";
  let err = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const exit = new Promise<number | null>((res) => proc.on("exit", (code) => res(code)));
  return { proc, out: () => out, err: () => err, exit };
}

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

function events(state: string, run: string) {
  const store = new SqliteStore(state);
  try {
    return [...store.events(run)];
  } finally {
    store.close();
  }
}

/** A run killed with SIGKILL while its `slow` command waits: resumable, its owner gone. */
async function killedRun(dir: TempDir, elements: number) {
  const state = join(dir.path, "state");
  const mark = join(dir.path, "mark");
  const release = join(dir.path, "release");
  const first = child([state, "new", String(elements), mark, release]);
  await until("the first run's slow command", () => lines(mark).length === 1);
  first.proc.kill("SIGKILL");
  await first.exit;
  const run = first.out().split("\n")[0]!;
  return { state, mark, release, run };
}

test(
  "three resumes at once on a 6,000-element run: one executes, the others get run-busy, nothing starts twice",
  { timeout: 120000 },
  async () => {
    const dir = new TempDir("sy-owner-");
    try {
      const { state, mark, release, run } = await killedRun(dir, 6000);
      const resumes = [0, 1, 2].map(() => child([state, run, "6000", mark, release]));
      // The losers exit on their own; the winner waits in `slow` until RELEASE exists.
      await until("two refusals", () => resumes.filter((c) => c.proc.exitCode !== null).length >= 2);
      writeFileSync(release, "");
      const codes = await Promise.all(resumes.map((c) => c.exit));
      assert.deepEqual([...codes].sort(), [0, 4, 4], resumes.map((c) => c.err()).join("\n"));
      for (const c of resumes.filter((c) => c.proc.exitCode === 4)) {
        assert.match(
          c.err(),
          /^run-busy: run \S+ is being executed by process \d+; wait for it, or stop it with `switchyard cancel \S+`\n$/,
        );
      }
      assert.match(resumes.find((c) => c.proc.exitCode === 0)!.out(), /passed/);
      assert.equal(lines(mark).length, 2, "slow ran once per invocation (the killed one and the winner)");
      const evs = events(state, run);
      assert.equal(evs.filter((e) => e.type === "run_resumed").length, 1);
      // (The killed run's start of `slow` may not have been committed before the kill.)
      const resumedAt = evs.findIndex((e) => e.type === "run_resumed");
      assert.equal(evs.slice(resumedAt).filter((e) => e.type === "instance_started" && e.task === "slow").length, 1);
      const finished = evs.filter((e) => e.type === "instance_finished" && e.task === "each").map((e) => e.key);
      assert.equal(finished.length, 6000);
      assert.equal(new Set(finished).size, 6000);
    } finally {
      dir.cleanup();
    }
  },
);

function sy(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, SWITCHYARD_HOME: join(cwd, "state"), XDG_CONFIG_HOME: join(cwd, "xdg") },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function setOwner(state: string, run: string, o: { pid: number; started: string | null; host: string }): void {
  const db = new Database(join(state, "switchyard.db"));
  try {
    db.prepare(
      "INSERT OR REPLACE INTO owners (run, pid, started, boot, host, token, since) VALUES (?, ?, ?, NULL, ?, 'fake', '2026-01-01T00:00:00Z')",
    ).run(run, o.pid, o.started, o.host);
    db.prepare("UPDATE runs SET pid = ? WHERE run = ?").run(o.pid, run);
  } finally {
    db.close();
  }
}

test(
  "an owner record naming a live unrelated process (pid reuse) is not signalled and does not wedge the run; an unverifiable one needs --force",
  { timeout: 120000 },
  async () => {
    const dir = new TempDir("sy-owner-");
    const bystander = spawn("sleep", ["120"], { stdio: "ignore" });
    try {
      const { state, mark, release, run } = await killedRun(dir, 10);
      const pid = bystander.pid!;
      const started = processStartTime(pid);
      assert.ok(started, "the test needs /proc");

      const untouched = () => {
        assert.equal(bystander.exitCode, null, "the unrelated process was signalled");
        assert.equal(bystander.signalCode, null, "the unrelated process was signalled");
      };

      // Recorded on another host: cannot be verified. resume and cancel refuse without signalling.
      setOwner(state, run, { pid, started, host: "elsewhere.example" });
      const busy = sy(dir.path, ["resume", run]);
      assert.equal(busy.code, 1, busy.err + busy.out);
      assert.match(
        busy.err,
        /switchyard: error\[run-busy\]: run \S+ is recorded as executed by process \d+ on elsewhere\.example, which cannot be verified: it was recorded on host elsewhere\.example.*switchyard resume \S+ --force/,
      );
      const refused = sy(dir.path, ["cancel", run]);
      assert.equal(refused.code, 1, refused.out);
      assert.match(refused.err, /cannot be verified .*it was not signalled.*switchyard cancel \S+ --force/);
      untouched();

      // The same pid and start time on this host is the owner, as far as anyone can tell.
      setOwner(state, run, { pid, started, host: hostname() });
      assert.match(sy(dir.path, ["resume", run]).err, new RegExp(`error\\[run-busy\\]: run \\S+ is being executed by process ${pid}`));

      // The pid is alive but started at another time than recorded: another program reused it.
      // cancel records the cancel itself and signals nothing.
      setOwner(state, run, { pid, started: String(Number(started) + 1), host: hostname() });
      const cancelled = sy(dir.path, ["cancel", run]);
      assert.equal(cancelled.code, 0, cancelled.err);
      assert.match(cancelled.out, /cancelled \(no process was executing it\)/);
      untouched();

      // An unverifiable owner is taken over with --force.
      setOwner(state, run, { pid, started, host: "elsewhere.example" });
      writeFileSync(release, "");
      const forced = sy(dir.path, ["resume", run, "--force"]);
      assert.equal(forced.code, 0, forced.err + forced.out);
      assert.equal(lines(mark).length, 2);
      untouched();

      // A reused pid never wedges the run: resume goes ahead without --force.
      setOwner(state, run, { pid, started: String(Number(started) + 1), host: hostname() });
      const again = sy(dir.path, ["resume", run]);
      assert.equal(again.code, 0, again.err + again.out);
      untouched();
      // The owner gave its claim up when it finished.
      const db = new Database(join(state, "switchyard.db"), { readonly: true });
      assert.equal((db.prepare("SELECT COUNT(*) AS n FROM owners WHERE run = ?").get(run) as { n: number }).n, 0);
      db.close();
    } finally {
      bystander.kill("SIGKILL");
      dir.cleanup();
    }
  },
);
