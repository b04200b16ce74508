// `switchyard logs` on a revise loop and on a log an instance replaced: each round of a
// revise loop has its body's log (`--round N`, the latest by default, saying which rounds have
// logs), and a log the command swapped for a symbolic link to /etc/passwd is refused, never
// printed — a log is an untrusted file like any other the instance could touch.
// One store is enough: the log files on disk and the refusal of a swapped one are the subject; the run
// and its rounds are recorded as in test/run/cli and test/run/rerun, which run on both stores.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { storeEnv } from "../support/test-store.js";
import { runCliInProcess } from "../support/cli-in-process.js";
import { TempDir } from "./helpers.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

// The body says which round it is from its own workspace's name (…-rN-body); the reviewer
// accepts round 3. `swap` prints a line, then replaces its own log with a link to /etc/passwd.
const PLAYBOOK = `
def check(input):
    done = input["inputs"]["draft"]["text"].endswith("-r3-body")
    return {"verdict": "accept" if done else "revise", "feedback": "again"}

fix = revise(name = "fix", max_rounds = 3,
    body = command(name = "draft", emits = {"text": "string"},
        run = """w=$(basename "$SWITCHYARD_WORKSPACE"); echo "body of $w"; printf '{"text": "%s"}' "$w" > "$SWITCHYARD_OUTPUT" """),
    reviewer = evaluate(name = "check", fn = check, emits = {"verdict": "string", "feedback": "string"}))

swap = command(name = "swap", run = """echo "the real log"; ln -sf /etc/passwd "$SWITCHYARD_WORKSPACE.log" """)

moved = command(name = "moved", run = """d=$(dirname "$SWITCHYARD_WORKSPACE"); mkdir -p "$d.elsewhere"; echo SECRET > "$d.elsewhere/a1.log"; cd /; mv "$d" "$d.gone"; ln -s "$d.elsewhere" "$d" """)
`;

test("logs: a revise loop's round logs (--round N; the latest by default, listing the rounds); a log swapped for a symlink to /etc/passwd, or whose folder was swapped for a link, is refused, not printed", async () => {
  const dir = new TempDir("sy-logs-");
  try {
    dir.file("pack/loop.star", PLAYBOOK);
    const env = {
      ...process.env,
      ...storeEnv(join(dir.path, "state")),
      SWITCHYARD_HOME: join(dir.path, "state"),
      XDG_CONFIG_HOME: join(dir.path, "xdg"),
    };
    // The run in a child process; `logs` in this one.
    const run = spawnSync(process.execPath, [BIN, "run", "pack", "-q"], { cwd: dir.path, encoding: "utf8", env });
    const here = async (args: string[]) => {
      const r = await runCliInProcess(args, { cwd: dir.path, env });
      return { code: r.code, out: r.stdout, err: r.stderr };
    };
    assert.match(run.stdout, /^fix +revise +passed/m, run.stdout + run.stderr);

    const latest = await here(["logs", "latest", "fix"]);
    assert.equal(latest.code, 0, latest.err);
    assert.equal(latest.out, "body of a1-r3-body\n");
    assert.equal(latest.err, "fix attempt 1: round 3's body log (rounds with logs: 1, 2, 3; choose one with --round N)\n");
    for (const n of [1, 2, 3]) {
      const r = await here(["logs", "latest", "fix", "--round", String(n)]);
      assert.deepEqual([r.code, r.out, r.err], [0, `body of a1-r${n}-body\n`, ""]);
    }
    const four = await here(["logs", "latest", "fix", "--round", "4"]);
    assert.equal(four.code, 2);
    assert.match(four.err, /fix attempt 1 has no log for round "4" \(rounds with logs: 1, 2, 3\)/);
    const reviewer = await here(["logs", "latest", "fix", "--round", "2", "--reviewer"]);
    assert.equal(reviewer.code, 2);
    assert.match(reviewer.err, /round 2's reviewer left no log \(an evaluate reviewer runs in the engine/);
    assert.match((await here(["logs", "latest", "swap", "--round", "1"])).err, /--round is for revise loops; swap is a command/);

    const swapped = await here(["logs", "latest", "swap"]);
    assert.equal(swapped.code, 1);
    assert.equal(swapped.out, "", "nothing of /etc/passwd is printed");
    assert.match(
      swapped.err,
      /the log of swap attempt 1 is a symbolic link \(to \/etc\/passwd\), not the log the engine wrote; it is not printed/,
    );

    // The instance's folder of the run (work/moved) replaced by a link to a folder of its making.
    const moved = await here(["logs", "latest", "moved"]);
    assert.equal(moved.code, 1, moved.out + moved.err);
    assert.equal(moved.out, "");
    assert.match(moved.err, /the log of moved attempt 1 is in a folder that leads to \S+moved\.elsewhere, not the log the engine wrote/);
  } finally {
    dir.cleanup();
  }
});
