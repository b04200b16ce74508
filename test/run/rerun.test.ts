// `switchyard rerun` end to end through the CLI — a fixed reducer script used
// after --refresh-pack, a changed plan refused, --downstream clearing exactly the dependents per
// key, everything in the event log (instance_reset, task_reset, pack_refreshed) and rebuildable.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { storeEnv, storeIn } from "../support/test-store.js";
import { runCliInProcess } from "../support/cli-in-process.js";
import { TempDir } from "./helpers.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

// Every command appends "TASK[KEY]" to $RAN, so a test sees exactly what ran.
const LOG = `echo "$SWITCHYARD_TASK[$SWITCHYARD_KEY]" >> "$RAN"`;
const PLAYBOOK = `
playbook(description = "rerun demo")

prepare = command(name = "prepare", run = """${LOG}; echo '{"members": ["a", "b", "c"]}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

work = command(name = "work", depends_on = [prepare], over = prepare.members, max_fanout = 10,
               run = """${LOG}; echo '{"v": "'$SWITCHYARD_KEY'"}' > $SWITCHYARD_OUTPUT""", emits = {"v": "string"})

check = command(name = "check", depends_on = [work], over = prepare.members, max_fanout = 10, run = """${LOG}; true""")

other = command(name = "other", depends_on = [prepare], over = prepare.members, max_fanout = 10, run = """${LOG}; true""")

report = command(name = "report", depends_on = [work], join = "settled",
                 run = """${LOG}; sh $SWITCHYARD_PACK/reduce.sh""", emits = {"n": "number"})
`;

function reducer(n: number): string {
  return `echo '{"n": ${n}}' > "$SWITCHYARD_OUTPUT"\n`;
}

function setup(): TempDir & {
  sy: (args: string[]) => { code: number | null; out: string; err: string };
  here: (args: string[]) => Promise<{ code: number; out: string; err: string }>;
  ran: () => string[];
  resets: () => string[];
} {
  const dir = new TempDir("sy-rerun-") as ReturnType<typeof setup>;
  dir.file("pack/main.star", PLAYBOOK);
  dir.file("pack/reduce.sh", reducer(1));
  const ranFile = join(dir.path, "ran.log");
  const env = {
    ...process.env,
    ...storeEnv(join(dir.path, "state")),
    RAN: ranFile,
    SWITCHYARD_HOME: join(dir.path, "state"),
    XDG_CONFIG_HOME: join(dir.path, "xdg"),
  };
  // The commands that execute (run, rerun) in a child process; those that read or refuse in this one.
  dir.sy = (args) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir.path, encoding: "utf8", env });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  dir.here = async (args) => {
    const r = await runCliInProcess(args, { cwd: dir.path, env });
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
  dir.ran = () => {
    const lines = readFileSync(ranFile, "utf8").split("\n").filter(Boolean).sort();
    return lines;
  };
  dir.resets = () => {
    const store = storeIn(join(dir.path, "state"));
    try {
      return store
        .runs()
        .flatMap((r) => [...store.events(r.run)])
        .filter((e) => e.type === "instance_reset")
        .map((e) => `${e.task}[${e.key ?? ""}]`)
        .sort();
    } finally {
      store.close();
    }
  };
  return dir;
}

test("rerun: a fixed reducer script is used after --refresh-pack; the log and `show` keep the reset and the earlier output", async () => {
  const dir = setup();
  try {
    const first = dir.sy(["run", "pack"]);
    assert.equal(first.code, 0, first.out + first.err);
    const id = /run (\S+): passed/.exec(first.out)![1]!;
    dir.file("pack/reduce.sh", reducer(2)); // the fix

    // Without --refresh-pack the run keeps its own snapshot: the old script runs again.
    const stale = dir.sy(["rerun", id, "--task", "report"]);
    assert.equal(stale.code, 0, stale.err);
    assert.deepEqual(JSON.parse((await dir.here(["show", id, "--json"])).out).tasks.report.output, { n: 1 });

    const fixed = dir.sy(["rerun", id, "--task", "report", "--refresh-pack"]);
    assert.equal(fixed.code, 0, fixed.err);
    assert.match(fixed.err, /cleared 1 instance of report; new pack snapshot .*pack-2/);
    const shown = JSON.parse((await dir.here(["show", id, "--json"])).out);
    assert.deepEqual(shown.tasks.report.output, { n: 2 }, "the fixed reducer's output");
    assert.deepEqual(
      shown.tasks.report.earlier.map((e: { status: string; output: unknown; reason: string }) => [e.reason, e.status, e.output]),
      [
        ["rerun", "passed", { n: 1 }],
        ["rerun", "passed", { n: 1 }],
      ],
    );
    assert.equal(shown.reruns.length, 2);
    assert.equal(shown.reruns[1].refresh_pack, true);
    assert.match(shown.reruns[1].snapshot, /pack-2$/);
    assert.deepEqual(dir.resets(), ["report[]", "report[]"]);
    // Only the reducer ran again (prepare, work, check, other once each).
    assert.equal(dir.ran().filter((l) => l === "report[]").length, 3);
    assert.equal(dir.ran().filter((l) => l.startsWith("work[")).length, 3);

    const text = (await dir.here(["show", id])).out;
    assert.match(text, /rerun at \S+: --task report --refresh-pack: 1 instance cleared, pack copied again to /);
    assert.match(text, /earlier \(cleared by a rerun at \S+\): passed  \{"n":1\}/);

    // The projections rebuild from the log to the same rows.
    assert.equal((await dir.here(["runs", "--rebuild"])).code, 0);
    assert.deepEqual(JSON.parse((await dir.here(["show", id, "--json"])).out), shown);

    // A changed plan is refused, and nothing is recorded.
    const events = (await dir.here(["status", id, "--json"])).out;
    dir.file("pack/main.star", PLAYBOOK + `\nextra = command(name = "extra", run = "true")\n`);
    const refused = await dir.here(["rerun", id, "--task", "report", "--refresh-pack"]);
    assert.equal(refused.code, 2, refused.err);
    assert.match(refused.err, /no longer the one run .* was started with/);
    assert.match(refused.err, /start a new run with `switchyard run pack`/);
    assert.equal(dir.resets().length, 2, "a refused rerun records nothing");
    assert.equal((await dir.here(["status", id, "--json"])).out, events);
  } finally {
    dir.cleanup();
  }
});

test("rerun --downstream: clears exactly the dependents, per key along aligned edges and whole for folds", async () => {
  const dir = setup();
  try {
    const first = dir.sy(["run", "pack"]);
    assert.equal(first.code, 0, first.err);
    const before = dir.ran();

    const alone = dir.sy(["rerun", "latest", "--task", "work", "--key", "b"]);
    assert.equal(alone.code, 0, alone.err);
    assert.match(alone.err, /note: check, report read what was cleared and keep their results; add --downstream/);
    assert.deepEqual(dir.resets(), ["work[b]"]);

    const down = dir.sy(["rerun", "latest", "--task", "work", "--key", "b", "--downstream"]);
    assert.equal(down.code, 0, down.err);
    // work[b] and its aligned check[b]; report reads work's fold, so it is cleared whole;
    // `other` and prepare did not read work and keep their results; check[a], check[c] too.
    assert.deepEqual(dir.resets(), ["check[b]", "report[]", "work[b]", "work[b]"]);
    const ranAgain = dir.ran();
    for (const l of before) ranAgain.splice(ranAgain.indexOf(l), 1);
    assert.deepEqual(ranAgain, ["check[b]", "report[]", "work[b]", "work[b]"]);
    const shown = JSON.parse((await dir.here(["show", "latest", "--json"])).out);
    assert.equal(shown.status, "passed");
    assert.equal(shown.tasks.check.instances.b.attempts, 2);
    assert.equal(shown.tasks.check.instances.a.attempts, 1);
    assert.equal(shown.tasks.other.instances.b.earlier, undefined);

    // Mistakes are explained, with the nearest name.
    const typo = await dir.here(["rerun", "latest", "--task", "wrok"]);
    assert.equal(typo.code, 2);
    assert.match(typo.err, /run \S+ has no task wrok\nhelp: did you mean work\?/);
    const badKey = await dir.here(["rerun", "latest", "--task", "work", "--key", "bb"]);
    assert.equal(badKey.code, 2);
    assert.match(badKey.err, /no instance of work has the key bb\nhelp: did you mean b\?/);
    const unmappedKey = await dir.here(["rerun", "latest", "--task", "report", "--key", "b"]);
    assert.equal(unmappedKey.code, 2);
    assert.match(unmappedKey.err, /report is not mapped/);
  } finally {
    dir.cleanup();
  }
});
