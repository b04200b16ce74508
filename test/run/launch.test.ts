// T-1 / R-4: how command attempts are prepared and launched — a fresh workspace even when an
// attempt number is reused after a crash, and the launchers (Perl, and the shell with `setsid`) giving each command its own session and process group with no controlling
// terminal, its environment, working folder, stdin and log, and killing the whole group on
// timeout or cancel.
// One store is enough: the launchers, workspaces, inputs and logs on disk are the subject; the store
// only records the attempts, as test/run/crash checks on both stores.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { TempDir, command, evaluate, harness, mapped, plan, ref, runPlan } from "./helpers.js";
import { prepareAttempt } from "../../src/run/kinds/command.js";
import { Launcher, type LauncherDialect } from "../../src/run/process/launcher.js";
import { GO_LINE, PERL_LAUNCHER } from "../../src/run/process/launcher-perl.js";
import type { ProcessSpec } from "../../src/run/process/process.js";

/** Running (a zombie waiting for its reaper counts as ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

test("T-1, R-4: an attempt folder that already exists (its start never recorded) is emptied before the attempt runs", async () => {
  const dir = new TempDir("sy-launch-");
  try {
    const stem = join(dir.path, "work", "each", "k.a1");
    mkdirSync(stem, { recursive: true });
    writeFileSync(join(stem, "leftover.txt"), "from the killed process");
    writeFileSync(`${stem}.output.json`, '{"stale": true}');
    writeFileSync(`${stem}.usage.json`, '{"cost_usd": 1}');
    writeFileSync(`${stem}.log`, "old log\n");
    const files = await prepareAttempt(stem, { key: "k", inputs: {} });
    assert.deepEqual(readdirSync(files.workspace), []);
    assert.equal(existsSync(files.output), false);
    assert.equal(existsSync(`${stem}.usage.json`), false);
    assert.equal(readFileSync(files.log, "utf8"), "");
    assert.deepEqual(JSON.parse(readFileSync(files.input, "utf8")), { key: "k", inputs: {} });
    // A fresh attempt in a new task folder: the parent is created on the way.
    const other = await prepareAttempt(join(dir.path, "work", "other", "a1"), { inputs: {} });
    assert.deepEqual(readdirSync(other.workspace), []);
    assert.equal(readFileSync(other.log, "utf8"), "");
  } finally {
    dir.cleanup();
  }
});

const env: NodeJS.ProcessEnv = { ...process.env };
const DIALECTS: LauncherDialect[] = ["perl", "sh"];
for (const dialect of DIALECTS) {
  const launcher = new Launcher(env, dialect);
  const skip = launcher.dialect === dialect ? false : `no ${dialect === "perl" ? "perl" : "setsid"} on this machine`;
  launcher.close();

  test(
    `T-1: the ${dialect} launcher runs a command in its own process group, without a terminal, with its env, folder, stdin and log`,
    { skip },
    async () => {
      const dir = new TempDir("sy-launch-");
      const l = new Launcher(env, dialect);
      try {
        const work = join(dir.path, "ws");
        mkdirSync(work);
        writeFileSync(join(dir.path, "in.txt"), "hello\n");
        const log = join(dir.path, "a.log");
        const out = join(dir.path, "out.json");
        // Fields 5-7 of /proc/PID/stat (after the name): pgrp, session, tty_nr.
        const run = `read -r s < /proc/$$/stat; set -- \${s##*) }; echo "pid=$$ pgrp=$3 sid=$4 tty=$5 cwd=$(pwd) v=$SY_V"; cat; echo '{}' > ${JSON.stringify(out)}; echo err >&2`;
        const spec: ProcessSpec = {
          argv: ["/bin/sh", "-c", run],
          cwd: work,
          env: { ...env, SY_V: 'it\'s a "value"' },
          extraEnv: { SY_V: 'it\'s a "value"' },
          logFile: log,
          stdinFile: join(dir.path, "in.txt"),
          outputFile: out,
          timeoutMs: 10000,
          signal: new AbortController().signal,
        };
        const r = await l.run(spec);
        assert.equal(r.code, 0);
        assert.equal(r.outputExists, true);
        const text = readFileSync(log, "utf8");
        const m = /pid=(\d+) pgrp=(\d+) sid=(\d+) tty=(\d+) cwd=(\S+) v=(.*)\n/.exec(text);
        assert.ok(m, text);
        assert.equal(m[1], m[2], "the command leads its own process group");
        assert.equal(m[1], m[3], "and its own session");
        assert.equal(m[4], "0", "no controlling terminal");
        assert.equal(m[5], work);
        assert.equal(m[6], 'it\'s a "value"');
        assert.match(text, /hello\nerr\n$/);
        const again = await l.run({ ...spec, argv: ["/bin/sh", "-c", "exit 3"], outputFile: join(dir.path, "none.json") });
        assert.equal(again.code, 3);
        assert.equal(again.outputExists, false);
      } finally {
        l.close();
        dir.cleanup();
      }
    },
  );

  test(
    `T-1: the ${dialect} launcher kills the whole process group on timeout and on a cancel given before the start`,
    { skip },
    async () => {
      const dir = new TempDir("sy-launch-");
      const l = new Launcher(env, dialect);
      try {
        const pids = join(dir.path, "pids");
        const spec: ProcessSpec = {
          argv: ["/bin/sh", "-c", `sleep 30 & echo $! > ${JSON.stringify(pids)}; wait`],
          cwd: dir.path,
          env,
          extraEnv: {},
          logFile: join(dir.path, "log"),
          timeoutMs: 300,
          signal: new AbortController().signal,
        };
        // The timeout must fire after the background child exists: on a loaded machine the shell
        // may not have started it within 300 ms, so the timeout doubles until it has.
        let r: Awaited<ReturnType<Launcher["run"]>>;
        let t0: number;
        for (let timeoutMs = 300; ; timeoutMs *= 2) {
          rmSync(pids, { force: true });
          t0 = Date.now();
          r = await l.run({ ...spec, timeoutMs });
          if (existsSync(pids) && readFileSync(pids, "utf8").trim() !== "") break;
          assert.ok(timeoutMs < 20000, "the command never started its background child");
        }
        assert.equal(r.timedOut, true);
        // Well before the command's own 30 s: the timeout ended it.
        assert.ok(Date.now() - t0 < 25000);
        const child = Number(readFileSync(pids, "utf8").trim());
        // SIGKILL was sent to the group; wait for the child to die (it would live 30 s otherwise).
        while (alive(child) && Date.now() - t0 < 25000) await new Promise((res) => setTimeout(res, 20));
        assert.equal(alive(child), false, "the command's background child was killed with its group");

        const ac = new AbortController();
        ac.abort();
        const t1 = Date.now();
        const c = await l.run({ ...spec, argv: ["/bin/sh", "-c", "sleep 30"], timeoutMs: 60000, signal: ac.signal });
        assert.equal(c.aborted, true);
        assert.ok(Date.now() - t1 < 25000, "a cancel that came before the pid was known still stops the command (not after its 30 s)");
      } finally {
        l.close();
        dir.cleanup();
      }
    },
  );
}

for (const launcherDialect of DIALECTS)
  test(`R-20, T-1: through the engine every mapped instance gets its own fresh workspace, input, log and the task's env (${launcherDialect} launcher)`, async () => {
    const h = harness();
    try {
      const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
      // The key read from the input file by sed (a Node start per instance would cost more than
      // the rest of the run); the file is checked to be JSON holding that key below.
      const run = `[ -z "$(ls -A)" ] || exit 9; k=$(sed -n 's/.*"key":"\\([^"]*\\)".*/\\1/p' "$SWITCHYARD_INPUT"); echo "log of $k"; printf '{"key":"%s","w":"%s","s":"%s","o":"%s"}' "$k" "$SWITCHYARD_WORKSPACE" "$SECONDS" "$SY_OTHER" > "$SWITCHYARD_OUTPUT"; touch junk`;
      const p = plan(
        [
          evaluate("list", { emits: { keys: "list" } }),
          command("each", run, {
            depends_on: ["list"],
            ...mapped(ref("list", "keys")),
            emits: { key: "string", w: "string", s: "string", o: "string" },
          }),
          command("plain", run.replace("$SECONDS", "x").replace("$SY_OTHER", "$SY_OTHER"), {
            depends_on: ["list"],
            ...mapped(ref("list", "keys")),
            emits: { key: "string" },
          }),
        ],
        { concurrency: 3 },
      );
      p.tasks[1]!.command!.env = { SECONDS: "7", SY_OTHER: "x y 'z'" };
      p.tasks[2]!.command!.env = { SY_OTHER: "plain" };
      const { show } = await runPlan(h, p, { launcherDialect, fns: { list: () => ({ keys }) } });
      for (const task of ["each", "plain"]) {
        const inst = show.tasks[task]!.instances!;
        assert.deepEqual(Object.keys(inst).sort(), [...keys].sort());
        const workspaces = new Set<string>();
        for (const k of keys) {
          assert.equal(inst[k]!.status, "passed", `${task}[${k}]: ${inst[k]!.error}`);
          const out = inst[k]!.output as { key: string; w: string; s: string; o: string };
          assert.equal(out.key, k);
          assert.equal((JSON.parse(readFileSync(`${out.w}.input.json`, "utf8")) as { key: string }).key, k, "its input: JSON with its key");
          workspaces.add(out.w);
          assert.deepEqual(readdirSync(out.w), ["junk"]);
          assert.equal(readFileSync(`${out.w}.log`, "utf8"), `log of ${k}\n`);
          if (task === "each") assert.deepEqual([out.s, out.o], ["7", "x y 'z'"]);
          else assert.equal(out.o, "plain");
        }
        assert.equal(workspaces.size, keys.length);
      }
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  });

test("T-1: the launcher takes only environment variable names that are identifiers, and no text holding a NUL", () => {
  const l = new Launcher(env);
  try {
    assert.equal(l.accepts({ SY_A: "1", PATH: "/bin", SECONDS: "7" }, ["/bin/sh", "-c", "true"]), true);
    assert.equal(l.accepts({ "A-B": "1" }), false);
    assert.equal(l.accepts({ SY_A: "a\0b" }), false);
    assert.equal(l.accepts({}, ["/bin/sh", "-c", "echo a\0b"]), false);
  } finally {
    l.close();
  }
});

{
  const perl = new Launcher(env, "perl");
  const skip = perl.dialect === "perl" ? false : "no perl on this machine";
  perl.close();
  test(
    "T-1: the Perl launcher makes the command a session leader with POSIX::setsid when given no usable system call number",
    { skip },
    () => {
      const dir = new TempDir("sy-launch-");
      try {
        const log = join(dir.path, "a.log");
        const run = 'read -r s < /proc/$$/stat; set -- ${s##*) }; echo "pid=$$ pgrp=$3 sid=$4"';
        const fields = [dir.path, log, "/dev/null", "", "0", "/bin/sh", "-c", run];
        const job = Buffer.from(fields.join("\0"));
        for (const args of [[], ["999999"], ["-1"]]) {
          writeFileSync(log, "");
          const r = spawnSync("perl", ["-e", PERL_LAUNCHER, "--", ...args], {
            input: Buffer.concat([Buffer.from(`J ${job.length}\n`), job, Buffer.from(GO_LINE)]),
            encoding: "utf8",
          });
          assert.equal(r.status, 0, r.stderr);
          assert.match(r.stdout, /^P \d+\nX 0 0\n$/);
          const m = /pid=(\d+) pgrp=(\d+) sid=(\d+)/.exec(readFileSync(log, "utf8"));
          assert.ok(m, `${args}: ${readFileSync(log, "utf8")}`);
          assert.deepEqual([m[2], m[3]], [m[1], m[1]], `${args}: its own group and session`);
        }
      } finally {
        dir.cleanup();
      }
    },
  );
  test(
    "R-4: the Perl launcher's child runs nothing until the engine's go line; at end-of-file (the engine died) it exits 125 and the command never ran",
    { skip },
    () => {
      const dir = new TempDir("sy-launch-");
      try {
        const log = join(dir.path, "a.log");
        const marker = join(dir.path, "ran");
        const job = Buffer.from([dir.path, log, "/dev/null", "", "0", "/bin/sh", "-c", `: > ${marker}`].join("\0"));
        const header = Buffer.from(`J ${job.length}\n`);
        const run = (input: Buffer) => spawnSync("perl", ["-e", PERL_LAUNCHER, "--"], { input, encoding: "utf8" });
        // No go line: the engine's end of the pipe closed first.
        const r = run(Buffer.concat([header, job]));
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^P \d+\nX 125 0\n$/);
        assert.ok(!existsSync(marker), "the command must not run without the go");
        // A go line that a stopped child left unread is skipped before the next job.
        const ok = run(Buffer.concat([Buffer.from(GO_LINE), header, job, Buffer.from(GO_LINE)]));
        assert.match(ok.stdout, /^P \d+\nX 0 0\n$/);
        assert.ok(existsSync(marker), "with the go, the command runs");
      } finally {
        dir.cleanup();
      }
    },
  );
}
