// The review queue's terminal walk (D-63), driven at a real pseudo-terminal (test/support/pty.ts):
// a run whose route sends five elements to review stays up; a person walks the queue and answers
// one with a label's key, one as uncertain, skips one, answers one with a note, and quits; the
// store and `show` hold exactly those answers with the person's name and note, and the skipped one
// still waits. Ctrl-C leaves with the terminal as it was, and so does SIGTERM. A last walk meets a question someone
// else answered meanwhile (reported, skipped) and answers the last one, and the run that waited
// finishes. Without a terminal, the bare command is a usage error.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { until } from "../support/assertions.js";
import { PtySession } from "../support/pty.js";
import { reviewPlaybook } from "../support/review-pack.js";
import { testStoreSpec } from "../support/test-store.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const KEYS = ["e1", "e2", "e3", "e4", "e5"];

type Decision = { label: string; mode: string; provider: string; confidence: number; review: { by: string; note?: string } };
type Shown = { tasks: { gate: { instances: Record<string, { status: string; output?: { exploitable: Decision } }> } } };

/** Waits for `stty -a`'s output after `from` and checks the terminal is back in cooked mode with echo. */
async function cooked(session: PtySession, from: number): Promise<void> {
  const stty = (await session.waitFor(/speed[\s\S]*\n.*\bicanon\b.*/, from))[0];
  assert.match(stty, /(^|\s)icanon\b/);
  assert.match(stty, /(^|\s)echo\b/);
  assert.doesNotMatch(stty, /-icanon|(^|\s)-echo\b/);
}

test(
  "D-63: the terminal walk answers by keypress, skips, takes a note, quits and leaves the terminal as it was; the waiting run finishes",
  { timeout: 240000 },
  async () => {
    const dir = new TempDir("sy-review-walk-");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SWITCHYARD_HOME: join(dir.path, "state"),
      XDG_CONFIG_HOME: join(dir.path, "xdg"),
      USER: "dana",
      NO_COLOR: "1",
      TERM: "xterm",
    };
    const store = testStoreSpec();
    if (store) env.SWITCHYARD_STORE = store;
    else delete env.SWITCHYARD_STORE;
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { cwd: dir.path, env, encoding: "utf8", timeout: 60000 });
    // What is not about a terminal (listing, status, show, an answer by flags) runs in this process.
    const here = (...args: string[]) => spawnCliInProcess(args, { cwd: dir.path, env });
    const sessions: PtySession[] = [];
    const walk = (argv: string[]) => {
      const s = new PtySession(argv, { cwd: dir.path, env });
      sessions.push(s);
      return s;
    };
    const fixLog = join(dir.path, "fixed.log");
    dir.file("pack/main.star", reviewPlaybook(fixLog));
    dir.file("pack/members.json", JSON.stringify({ members: KEYS }));
    dir.file("xdg/switchyard/config.toml", `[decisions.types]\n"triage" = { mode = "review" }\n`);
    const running = spawn(process.execPath, [BIN, "run", "pack", "--quiet"], { cwd: dir.path, env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    running.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const runExit = new Promise<number | null>((res) => running.on("exit", (code) => res(code)));
    try {
      await until(
        "the run stays up with five waiting",
        () => /only 5 element\(s\) waiting for review/.test(err) || running.exitCode !== null,
        120000,
      );
      assert.equal(running.exitCode, null, err);

      // Without a terminal the bare command says what to do instead (exit 2), and answers nothing.
      const piped = cli("review", "latest");
      assert.equal(piped.status, 2, piped.stderr);
      assert.match(piped.stderr, /--list/);
      assert.match(piped.stderr, /--answer/);
      assert.match(piped.stderr, /terminal/);

      // Walk 1, as the login name: a label's key, `u`, `s`, a note then a key, `q`.
      const w1 = walk([process.execPath, BIN, "review", "latest"]);
      await w1.waitFor("5 question(s) wait for review; answering as dana");
      const order: string[] = [];
      const next = async (n: number, from: number) => {
        const m = await w1.waitFor(new RegExp(`\\[${n}/5\\] gate\\[(e\\d)\\] · exploitable[\\s\\S]*Press a key`), from);
        order.push(m[1]!);
        return m[1]!;
      };
      // The screen: the question, the element's state as the model saw it, the keys for each label.
      const a = await next(1, 0);
      const screen = w1.text();
      assert.match(screen, /Is it exploitable\?/);
      assert.match(screen, /The element's state, as the model saw it:/);
      assert.match(screen, new RegExp(`"key": "${a}"`));
      assert.match(screen, /No model was asked/);
      assert.match(screen, /^ {2}1 {2}yes/m);
      assert.match(screen, /^ {2}2 {2}no/m);
      assert.match(screen, /^ {2}u {2}uncertain/m);
      let mark = w1.mark();
      w1.send("2");
      await w1.waitFor(`gate[${a}] exploitable = no (by dana)`, mark);
      const b = await next(2, mark);
      mark = w1.mark();
      w1.send("u");
      await w1.waitFor(`gate[${b}] exploitable = uncertain (by dana)`, mark);
      const c = await next(3, mark);
      mark = w1.mark();
      w1.send("s");
      await w1.waitFor(`skipped gate[${c}] exploitable: it still waits`, mark);
      const d = await next(4, mark);
      mark = w1.mark();
      w1.send("n");
      await w1.waitFor("note (Enter to keep it", mark);
      w1.send("needs local access\r");
      await w1.waitFor("the note goes with the answer", mark);
      w1.send("1");
      await w1.waitFor(`gate[${d}] exploitable = yes (by dana, note: "needs local access")`, mark);
      const e = await next(5, mark);
      mark = w1.mark();
      w1.send("q");
      await w1.waitFor("answered 3, skipped 1, 2 still wait", mark);
      assert.equal(await w1.exit, 0, w1.text());
      assert.deepEqual([...order].sort(), KEYS);

      // Exactly those answers: the skipped one and the one the walk left at still wait.
      const listed = async () =>
        (await here("review", "latest", "--list", "--json")).stdout
          .split("\n")
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { key: string }).key)
          .sort();
      assert.deepEqual(await listed(), [c, e].sort());
      await until("the run records the three answers", async () => {
        const st = JSON.parse((await here("status", "--json")).stdout) as { tasks: Record<string, { waiting: number }> };
        return st.tasks.gate!.waiting === 2;
      });
      const shown = async () => JSON.parse((await here("show", "latest", "--json")).stdout) as Shown;
      const gate = (await shown()).tasks.gate.instances;
      const answered = (k: string) => gate[k]!.output!.exploitable;
      assert.deepEqual(
        [a, b, d].map((k) => [answered(k).label, answered(k).review.by, answered(k).review.note ?? null, answered(k).provider]),
        [
          ["no", "dana", null, "review"],
          ["uncertain", "dana", null, "review"],
          ["yes", "dana", "needs local access", "review"],
        ],
      );
      assert.deepEqual([gate[c]!.status, gate[e]!.status], ["waiting", "waiting"]);
      assert.equal(running.exitCode, null);

      // Walk 2: Ctrl-C at the first question leaves at once, and the terminal is as it was (stty runs after it).
      const w2 = walk(["sh", "-c", `"${process.execPath}" "${BIN}" review latest; echo "walk-exit=$?"; stty -a`]);
      await w2.waitFor(/\[1\/2\] gate\[e\d\][\s\S]*Press a key/);
      mark = w2.mark();
      w2.send("\x03");
      await w2.waitFor("answered 0, skipped 0, 2 still wait", mark);
      await w2.waitFor("walk-exit=0", mark);
      await cooked(w2, mark);
      assert.equal(await w2.exit, 0);

      // SIGTERM from elsewhere ends the walk with the terminal given back too (Node resets a raw
      // terminal on SIGTERM; the walk must not take that signal over). A shell without job control
      // gives a background command /dev/null for stdin unless told otherwise: fd 3.
      const w2b = walk([
        "sh",
        "-c",
        `exec 3<&0; "${process.execPath}" "${BIN}" review latest <&3 3<&- & echo "walk-pid=$!"; wait $!; echo "walk-exit=$?"; stty -a`,
      ]);
      const pid = Number((await w2b.waitFor(/walk-pid=(\d+)/))[1]);
      await w2b.waitFor(/\[1\/2\] gate\[e\d\][\s\S]*Press a key/);
      mark = w2b.mark();
      process.kill(pid, "SIGTERM");
      await w2b.waitFor("walk-exit=143", mark);
      await cooked(w2b, mark);
      assert.equal(await w2b.exit, 0);

      // Walk 3, --as erin: the first question is answered by someone else before the key is pressed.
      const w3 = walk([process.execPath, BIN, "review", "latest", "--as", "erin"]);
      const first = (await w3.waitFor(/\[1\/2\] gate\[(e\d)\][\s\S]*Press a key/))[1]!;
      const second = first === c ? e : c;
      const bob = await here("review", "latest", "--key", first, "--answer", "exploitable=no", "--as", "bob");
      assert.equal(bob.status, 0, bob.stderr);
      mark = w3.mark();
      w3.send("1");
      await w3.waitFor(`gate[${first}] exploitable was answered meanwhile by someone else`, mark);
      await w3.waitFor(new RegExp(`\\[2/2\\] gate\\[${second}\\][\\s\\S]*Press a key`), mark);
      mark = w3.mark();
      w3.send("1");
      await w3.waitFor(`gate[${second}] exploitable = yes (by erin)`, mark);
      await w3.waitFor("answered 1, skipped 0, 1 answered meanwhile by someone else, 0 still wait", mark);
      assert.equal(await w3.exit, 0, w3.text());

      // The run that waited finishes once the last answer is in, gated on the answers.
      assert.equal(await runExit, 0, err);
      const done = (await shown()).tasks.gate.instances;
      assert.deepEqual([done[first]!.output!.exploitable.label, done[first]!.output!.exploitable.review.by], ["no", "bob"]);
      assert.deepEqual([done[second]!.output!.exploitable.label, done[second]!.output!.exploitable.review.by], ["yes", "erin"]);
      const fixed = existsSync(fixLog) ? readFileSync(fixLog, "utf8").split("\n").filter(Boolean).sort() : [];
      assert.deepEqual(fixed, [d, second].sort());
      assert.deepEqual(await listed(), []);
    } finally {
      for (const s of sessions) s.kill();
      if (running.exitCode === null && running.signalCode === null) running.kill("SIGKILL");
      dir.cleanup();
    }
  },
);
