// The run commands end to end: a real playbook compiled by src/plan, evaluate functions in
// Starlark, an agent runner from a machine config, `show --json`'s documented shape, resume,
// runs --rebuild, cancel, and exit codes (0 passed, 1 failed, 2 usage).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { storeEnv } from "../support/test-store.js";
import { runCliInProcess } from "../support/cli-in-process.js";
import { signalGroup } from "../../src/run/process/signal-group.js";
import { TempDir } from "./helpers.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

const PLAYBOOK = `
playbook(description = "demo", concurrency = 2)

prepare = command(
    name = "prepare",
    run = "cp $SWITCHYARD_PACK/data.json $SWITCHYARD_OUTPUT",
    emits = {"members": "list", "g": "object"},
)

gate = route(
    name = "gate", depends_on = [prepare], decide = "output", source = prepare.g,
    over = prepare.members, max_fanout = 10,
    questions = {"go": noul(ask = "go?")},
)

def double(input):
    return {"key": input["key"], "twice": input["key"] + input["key"]}

work = evaluate(name = "work", depends_on = [gate], over = prepare.members, max_fanout = 10,
                when = gate.go, answers = "yes", fn = double)

look = agent(name = "look", depends_on = [prepare, gate], over = prepare.members, max_fanout = 10,
             when = gate.go, answers = "yes", prompt = "look at {{key}}", files = ["NOTE.txt"])

def summarize(input):
    return {"summary": input["inputs"]["work"]["summary"], "statuses": input["statuses"]}

report = evaluate(name = "report", depends_on = [work, look], join = "settled", fn = summarize)
`;

const DATA = { members: ["a", "b", "c"], g: { a: { go: "yes" }, b: { go: "no" }, c: { go: "yes" } } };

const envOf = (cwd: string) => ({
  ...process.env,
  ...storeEnv(join(cwd, "state")),
  SWITCHYARD_HOME: join(cwd, "state"),
  XDG_CONFIG_HOME: join(cwd, "xdg"),
});

/** `switchyard ARGS` in a child process: for the commands that execute a run. */
function sy(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: envOf(cwd) });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The same in this process: for the commands that read or refuse (show, status, runs, cancel of a finished run, usage errors). */
async function here(cwd: string, args: string[]) {
  const r = await runCliInProcess(args, { cwd, env: envOf(cwd) });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

test("CLI: run, show --json (documented shape), status, resume, runs --rebuild, cancel and exit codes", async () => {
  const dir = new TempDir("sy-cli-");
  try {
    dir.file("pack/demo.star", PLAYBOOK);
    dir.file("pack/data.json", JSON.stringify(DATA));
    const agent = dir.file("agent.sh", `#!/bin/sh\ncat > NOTE.txt\nprintf '{"cost_usd": 0.5}' > "$SWITCHYARD_USAGE"\n`, 0o755);
    dir.file("xdg/switchyard/config.toml", `[agents.default]\ncommand = ["${agent}"]\n`);
    const r = sy(dir.path, ["run", "pack"]);
    assert.equal(r.code, 0, r.err + r.out);
    const id = /run (\S+): passed/.exec(r.out)?.[1];
    assert.ok(id, r.out);
    assert.match(r.out, /work\s+evaluate\s+passed\s+3\s+2\s+0\s+1\s+0/);

    const show = JSON.parse((await here(dir.path, ["show", id!, "--json"])).out);
    assert.deepEqual(Object.keys(show), ["run", "status", "playbook", "started_at", "finished_at", "tasks"]);
    assert.equal(show.status, "passed");
    assert.deepEqual(Object.keys(show.tasks.prepare), ["kind", "status", "mapped", "output", "error"]);
    assert.deepEqual(Object.keys(show.tasks.work), ["kind", "status", "mapped", "summary", "instances"]);
    assert.deepEqual(show.tasks.work.summary, { total: 3, passed: 2, failed: 0, not_taken: 1, blocked: 0 });
    assert.deepEqual(show.tasks.work.instances.a, { status: "passed", output: { key: "a", twice: "aa" }, error: null, attempts: 1 });
    assert.deepEqual(show.tasks.work.instances.b, { status: "not_taken", output: null, error: null, attempts: 0, label: "no" });
    assert.deepEqual(show.tasks.look.instances.c.output, { files: { "NOTE.txt": "look at c" } });
    assert.deepEqual(show.tasks.report.output.statuses, { work: "passed", look: "passed" });

    const status = JSON.parse((await here(dir.path, ["status", "--json"])).out);
    assert.equal(status.run, id);
    assert.equal(status.spent_usd, 1);
    assert.equal(status.tasks.work.not_taken, 1);

    const resumed = sy(dir.path, ["resume", id!, "--json"]);
    assert.equal(resumed.code, 0, resumed.err);
    const lines = resumed.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.type),
      ["run_resumed", "run_finished", "summary"],
      "resuming a finished run runs nothing",
    );

    const rebuilt = await here(dir.path, ["runs", "--rebuild", "--json"]);
    assert.equal(rebuilt.code, 0, rebuilt.err);
    assert.equal(JSON.parse(rebuilt.out)[0].status, "passed");
    assert.deepEqual(JSON.parse((await here(dir.path, ["show", id!, "--json"])).out).tasks, show.tasks);

    assert.match((await here(dir.path, ["cancel", id!])).out, /is not running \(passed\)/);
    const unknown = await here(dir.path, ["show", "nope"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /^switchyard: error\[unknown-run\]: no run nope/);
    const bad = await here(dir.path, ["run", "pack", "--concurrency", "zero"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--concurrency must be a whole number/);

    // A failing run exits 1.
    dir.file("pack/data.json", JSON.stringify({ members: ["a", "a"], g: {} }));
    const failed = sy(dir.path, ["run", "pack"]);
    assert.equal(failed.code, 1, failed.out);
    assert.match(failed.out, /duplicate-key/);
  } finally {
    dir.cleanup();
  }
});

test("R-7: Ctrl-C cancels a CLI run (exit 1, status cancelled, cause Ctrl-C); `cancel` marks a run whose process died, and cancels a live one recording `switchyard cancel` as the cause", async () => {
  const dir = new TempDir("sy-cli-int-");
  try {
    const pids = join(dir.path, "pids");
    dir.file("pack/slow.star", `slow = command(name = "slow", run = "echo $$ >> ${pids}; exec sleep 30")\n`);
    const env = {
      ...process.env,
      ...storeEnv(join(dir.path, "state")),
      SWITCHYARD_HOME: join(dir.path, "state"),
      XDG_CONFIG_HOME: join(dir.path, "xdg"),
    };
    const { spawn } = await import("node:child_process");
    const startRun = () => {
      const child = spawn(process.execPath, [BIN, "run", "pack"], { cwd: dir.path, env, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
      const started = new Promise<void>((resolve) => {
        const check = () => (out.includes("instance_started") ? resolve() : setTimeout(check, 20));
        check();
      });
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      return { child, started, exit, out: () => out };
    };
    const a = startRun();
    await a.started;
    a.child.kill("SIGINT");
    assert.equal(await a.exit, 1);
    assert.match(a.out(), /run \S+: cancelled \(cancelled by Ctrl-C\)/);
    const st = JSON.parse((await here(dir.path, ["status", "--json"])).out);
    assert.equal(st.status, "cancelled");
    assert.equal(st.reason, "cancelled by Ctrl-C");
    assert.equal(st.tasks.slow.pending, 1);

    const b = startRun();
    await b.started;
    b.child.kill("SIGKILL");
    await b.exit;
    const id = JSON.parse((await here(dir.path, ["status", "--json"])).out).run;
    assert.equal(JSON.parse((await here(dir.path, ["status", "--json"])).out).status, "running");
    assert.match(sy(dir.path, ["cancel", id]).out, /cancelled \(no process was executing it\)/);
    const gone = JSON.parse((await here(dir.path, ["status", id, "--json"])).out);
    assert.equal(gone.status, "cancelled");
    assert.equal(gone.reason, `cancelled by \`switchyard cancel\` on ${hostname()} (its process was gone)`);

    // `switchyard cancel` while the run's process is alive: recorded and shown as such, not as Ctrl-C.
    const c = startRun();
    await c.started;
    const cid = JSON.parse((await here(dir.path, ["status", "--json"])).out).run;
    const asked = sy(dir.path, ["cancel", cid]);
    assert.equal(asked.code, 0, asked.err);
    assert.match(asked.out, new RegExp(`run ${cid}: cancelled`));
    assert.equal(await c.exit, 1);
    const by = `cancelled by \`switchyard cancel\` on ${hostname()}`;
    assert.ok(c.out().includes(`run ${cid}: cancelled (${by})`), c.out());
    const shown = JSON.parse((await here(dir.path, ["status", cid, "--json"])).out);
    assert.deepEqual([shown.status, shown.reason], ["cancelled", by]);
    assert.match((await here(dir.path, ["status", cid])).out, new RegExp(`cancelled \\(${by.replace(/[`]/g, ".")}\\)`));
    // The SIGKILLed run could not stop its command: end that process group by its recorded id
    // (there is none when both commands were stopped before their first line ran).
    // The file can exist but be empty (SIGINT between `>>` opening it and echo writing): an
    // empty line is not a pid, and kill(-0) would kill this test runner's own group (CI did).
    const recorded = existsSync(pids) ? readFileSync(pids, "utf8").split("\n").map(Number) : [];
    for (const pid of recorded.filter((p) => Number.isInteger(p) && p > 1)) signalGroup(pid, "SIGKILL");
  } finally {
    dir.cleanup();
  }
});

test("R-4: resume without --config reuses the run's own --config and --decide", async () => {
  const dir = new TempDir("sy-cli-inv-");
  try {
    dir.file("pack/demo.star", PLAYBOOK);
    dir.file("pack/data.json", JSON.stringify(DATA));
    // The runner fails until a marker file exists: the first run fails its agent instances.
    const marker = join(dir.path, "ready");
    const agent = dir.file("agent.sh", `#!/bin/sh\ntest -f "${marker}" || { echo "not ready" >&2; exit 3; }\ncat > NOTE.txt\n`, 0o755);
    // Not at the default config path: only --config finds it.
    dir.file("custom.toml", `[agents.default]\ncommand = ["${agent}"]\n`);
    const first = sy(dir.path, ["run", "pack", "--config", "custom.toml"]);
    assert.equal(first.code, 1, first.err + first.out);
    const id = /run (\S+): failed/.exec(first.out)?.[1];
    assert.ok(id, first.out);
    dir.file("ready", "");
    const resumed = sy(dir.path, ["resume", id]);
    assert.equal(resumed.code, 0, resumed.err + resumed.out);
    assert.match(resumed.err, /resuming with the run's own --config .*custom\.toml/);
    const shown = JSON.parse((await here(dir.path, ["show", id, "--json"])).out);
    assert.equal(shown.tasks.look.instances.a.status, "passed");
    assert.equal(shown.tasks.look.instances.b.status, "not_taken");
  } finally {
    dir.cleanup();
  }
});
