// Storage faults are reported, not crashed on. A file-size limit hit while the
// run commits (as a full disk would be) stops the run with a clear message naming the file and
// the fault, and `resume` without the limit finishes it; a corrupt or truncated switchyard.db
// makes commands say so and how to recover; a deleted run folder makes `resume` refuse
// ("snapshot missing") instead of continuing with other files or another machine config.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { runCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

const PLAYBOOK = `
playbook(description = "big outputs", concurrency = 4)

prepare = command(name = "prepare", run = """python3 -c 'import json; print(json.dumps({"members": [str(i) for i in range(300)]}))' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

# The 6 KB of padding written into the command (a shell and printf per element, not three processes more).
PAD = "x" * 6000

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 1000, run = """
printf '{"key": "%s", "pad": "%s"}' "$SWITCHYARD_KEY" '""" + PAD + """' > $SWITCHYARD_OUTPUT
""")
`;

function env(dir: TempDir): NodeJS.ProcessEnv {
  return { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
}

function sy(dir: TempDir, args: string[], shellPrefix = "") {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const r = spawnSync("/bin/sh", ["-c", `${shellPrefix}exec ${quoted}`], {
    cwd: dir.path,
    env: env(dir),
    encoding: "utf8",
    timeout: 120000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The same in this process: for the commands that only read (show, status, runs), which are not run under a limit. */
async function here(dir: TempDir, args: string[]) {
  const r = await runCliInProcess(args, { cwd: dir.path, env: env(dir) });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

test(
  "storage fault: a file-size limit hit while committing stops the run with a clear message; resume finishes it",
  { timeout: 180000 },
  async () => {
    const dir = new TempDir("sy-storage-");
    try {
      dir.file("pack/main.star", PLAYBOOK);
      // 1,000 blocks (at least 512 KB) is enough to admit the run, not to record 300 outputs of 6 KB.
      const r = sy(dir, ["run", "pack", "--quiet"], "ulimit -f 1000; ");
      assert.equal(r.code, 1, r.err + r.out);
      assert.doesNotMatch(r.err, /internal error|SqliteError|\n\s+at /);
      assert.match(
        r.err,
        /switchyard: error\[state-unwritable\]: the state database \S+switchyard\.db cannot be written: (the disk is full, or the file reached a file-size limit|an input\/output error \(a full disk or a file-size limit can cause one\)) \(SQLITE_\w+\)\n/,
      );
      assert.match(r.err, /help: what was recorded is kept; .*`switchyard resume \S+` continues the run/);

      const resumed = sy(dir, ["resume", "latest", "--quiet"]);
      assert.equal(resumed.code, 0, resumed.err + resumed.out);
      const show = JSON.parse((await here(dir, ["show", "latest", "--json"])).out);
      assert.equal(show.status, "passed");
      assert.deepEqual(show.tasks.work.summary, { total: 300, passed: 300, failed: 0, not_taken: 0, blocked: 0 });
      assert.equal(show.tasks.work.instances["299"].output.key, "299");
      assert.equal(show.tasks.work.instances["299"].output.pad, "x".repeat(6000));
    } finally {
      dir.cleanup();
    }
  },
);

test("a corrupt or truncated switchyard.db: commands say so and how to recover, no stack", { timeout: 60000 }, async () => {
  const dir = new TempDir("sy-storage-");
  try {
    dir.file("pack/main.star", `playbook(description = "x")\nprepare = command(name = "prepare", run = "true")\n`);
    assert.equal(sy(dir, ["run", "pack", "--quiet"]).code, 0);
    const db = join(dir.path, "state", "switchyard.db");
    const good = readFileSync(db);

    truncateSync(db, Math.floor(good.length / 2));
    for (const args of [["status"], ["runs"], ["resume", "latest"]]) {
      const r = args[0] === "resume" ? sy(dir, args) : await here(dir, args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.err}`);
      assert.doesNotMatch(r.err, /internal error|\n\s+at /);
      assert.match(
        r.err,
        /switchyard: error\[state-corrupt\]: the state database \S+switchyard\.db cannot be read: (it is corrupt|it is not an SQLite database)/,
      );
      assert.match(
        r.err,
        /`switchyard runs --rebuild` rebuilds the runs, tasks and instances tables from the events, but cannot repair damaged events/,
      );
    }

    writeFileSync(db, "this is not a database, it is a text file that happens to be long enough to look like a header".repeat(50));
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    const r = await here(dir, ["status"]);
    assert.equal(r.code, 1);
    assert.match(r.err, /error\[state-corrupt\]: .* it is not an SQLite database \(truncated or overwritten\?\) \(SQLITE_NOTADB\)/);
  } finally {
    dir.cleanup();
  }
});

test(
  "storage fault: a deleted run folder: resume refuses (snapshot missing); the invocation is kept in the database",
  { timeout: 60000 },
  async () => {
    const dir = new TempDir("sy-storage-");
    try {
      dir.file("pack/main.star", `playbook(description = "x")\nprepare = command(name = "prepare", run = "exit 1")\n`);
      dir.file("my-config.toml", "");
      assert.equal(sy(dir, ["run", "pack", "--quiet", "--config", join(dir.path, "my-config.toml")]).code, 1);
      const runs = JSON.parse((await here(dir, ["runs", "--json"])).out) as Array<{ run: string }>;
      const run = runs[0]!.run;
      // The note beside the run is gone: the database still knows the run's own --config.
      rmSync(join(dir.path, "state", "runs", run, "invocation.json"));
      const again = sy(dir, ["resume", run]);
      assert.match(again.err, /resuming with the run's own --config \S+my-config\.toml/);

      rmSync(join(dir.path, "state", "runs", run), { recursive: true });
      const r = sy(dir, ["resume", run]);
      assert.equal(r.code, 1, r.err);
      assert.match(
        r.err,
        /error\[snapshot-missing\]: run \S+'s pack snapshot \S+ is missing \(was the run folder \S+ deleted\?\); the run cannot continue without it/,
      );
      assert.doesNotMatch(r.err, /internal error/);
    } finally {
      dir.cleanup();
    }
  },
);

/** Whether this process may mount a tmpfs (root, or a container that allows it). */
function canMountTmpfs(): boolean {
  const probe = new TempDir("sy-mount-");
  try {
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]).status !== 0) return false;
    spawnSync("umount", [probe.path]);
    return true;
  } finally {
    probe.cleanup();
  }
}

// `prepare` writes its output, then fills the run folder's disk (a 1 MB tmpfs mounted over the
// state folder's runs/; the database stays on the real disk): the next attempts cannot write
// their files.
const FILLING = `
playbook(description = "a full disk", concurrency = 2)

prepare = command(name = "prepare", run = """
echo '{"members": ["a", "b", "c", "d"]}' > $SWITCHYARD_OUTPUT
cat /dev/zero > $SWITCHYARD_WORKSPACE/filler 2> /dev/null
true
""", emits = {"members": "list"})

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 10, run = """printf '{"k": "%s"}' "$SWITCHYARD_KEY" > $SWITCHYARD_OUTPUT""")

fix = agent(name = "fix", depends_on = [prepare], over = prepare.members, max_fanout = 10, prompt = "Fix {{key}}")
`;

test(
  "a full disk (a real tmpfs) while preparing command and agent attempt files is a storage fault: the run stops naming the folder and ENOSPC, nothing is lost, resume finishes it",
  { timeout: 60000, skip: canMountTmpfs() ? false : "mounting a tmpfs needs root" },
  async () => {
    const dir = new TempDir("sy-storage-");
    const runs = join(dir.path, "state", "runs");
    mkdirSync(runs, { recursive: true });
    assert.equal(spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", runs]).status, 0);
    try {
      dir.file("pack/main.star", FILLING);
      const config = dir.file("config.toml", `[agents.default]\ncommand = ["/bin/sh", "-c", "cat > /dev/null; echo fixed"]\n`);
      const r = sy(dir, ["run", "pack", "--quiet", "--config", config]);
      assert.equal(r.code, 1, r.err + r.out);
      assert.doesNotMatch(r.err, /internal|\n\s+at /);
      assert.match(
        r.err,
        /switchyard: error\[state-unwritable\]: the run folder \S+\/runs\/\S+\/work\/(work|fix) cannot be written: the disk is full \(ENOSPC\)\n/,
      );
      assert.match(r.err, /help: what was recorded is kept; .*`switchyard resume \S+` continues the run/);
      const stopped = JSON.parse((await here(dir, ["show", "latest", "--json"])).out);
      assert.equal(stopped.status, "cancelled");
      assert.equal(stopped.tasks.prepare.status, "passed");
      for (const t of ["work", "fix"])
        for (const [key, i] of Object.entries(stopped.tasks[t].instances ?? {}) as [string, { status: string }][])
          assert.notEqual(i.status, "failed", `${t}[${key}] was failed for the disk's fault`);

      // Space again: resume runs what could not start; prepare's recorded output is kept.
      const filler = spawnSync("sh", ["-c", `rm ${runs}/*/work/prepare/*/filler`]);
      assert.equal(filler.status, 0, String(filler.stderr));
      const resumed = sy(dir, ["resume", "latest", "--quiet"]);
      assert.equal(resumed.code, 0, resumed.err + resumed.out);
      const show = JSON.parse((await here(dir, ["show", "latest", "--json"])).out);
      assert.equal(show.status, "passed");
      assert.equal(show.tasks.prepare.attempts ?? 1, 1);
      assert.deepEqual(show.tasks.work.summary, { total: 4, passed: 4, failed: 0, not_taken: 0, blocked: 0 });
      assert.deepEqual(show.tasks.fix.summary, { total: 4, passed: 4, failed: 0, not_taken: 0, blocked: 0 });
    } finally {
      spawnSync("umount", ["-l", runs]);
      dir.cleanup();
    }
  },
);
