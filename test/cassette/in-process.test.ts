// `switchyard test` answers a replayed agent turn in the engine's own process: every Node process
// the replay starts is logged by a `--require` hook in NODE_OPTIONS (which every process the
// engine starts inherits), and a replay of hits logs one, the CLI. A live miss is run by the real
// runner, started by the engine itself (its parent is the CLI), its stderr in the attempt's log;
// without --allow-live the miss fails with `cassette-miss`; and a turn that failed in the recorded
// run fails the same way again. Expected outputs and usage are what the scripted agent below
// writes, by hand.
import { before, after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, cli } from "../e2e/support/harness.js";

const playbook = (members: string[]) => `
playbook(description = "agent turns replayed in-process")

prepare = command(
    name = "prepare",
    run = "echo '{\\"members\\": ${JSON.stringify(members).replace(/"/g, '\\"')}}' > $SWITCHYARD_OUTPUT",
    emits = {"members": "list"},
)

look = agent(
    name = "look", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    runner = "coder", prompt = "Look at {{key}}", files = ["NOTE.md"], emits = {"verdict": "string"},
)
`;

/** The scripted agent: logs its call, says so on stderr, fails for $FAIL_KEY, else leaves a note, usage and a verdict. */
const AGENT = `import { appendFileSync, writeFileSync } from "node:fs";
const key = process.env.SWITCHYARD_KEY;
appendFileSync(process.env.CALLS_LOG, key + "\\n");
process.stderr.write("looking at " + key + "\\n");
if (key === process.env.FAIL_KEY) process.exit(1);
writeFileSync("NOTE.md", "a note on " + key + "\\n");
writeFileSync(process.env.SWITCHYARD_USAGE, JSON.stringify({ input_tokens: 10, output_tokens: 2, cost_usd: 0.001 }));
writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ verdict: "fine " + key }));
`;

/** Logs every Node process that starts with it in NODE_OPTIONS: its pid, its parent's, its script. */
const COUNTER = `require("node:fs").appendFileSync(process.env.NODE_STARTS, JSON.stringify({ pid: process.pid, ppid: process.ppid, script: process.argv[1] ?? "" }) + "\\n");\n`;

interface Inst {
  status: string;
  output?: unknown;
  error: string | null;
  usage?: unknown;
}
interface Shown {
  status: string;
  tasks: Record<string, { instances?: Record<string, Inst> }>;
}
interface Start {
  pid: number;
  ppid: number;
  script: string;
}

const USAGE = { input_tokens: 10, output_tokens: 2, cost_usd: 0.001 };
const passedLook = (key: string) => ({
  status: "passed",
  output: { verdict: `fine ${key}`, files: { "NOTE.md": `a note on ${key}\n` } },
  usage: USAGE,
});

let dir: string;
let pack: string;
let config: string;
let calls: string;
let counter: string;
let cassette: string;
let recorded: Shown;

const sy = (args: string[], env: Record<string, string> = {}) =>
  cli(args, { cwd: dir, env: { XDG_CONFIG_HOME: join(dir, "xdg"), SWITCHYARD_HOME: "", CALLS_LOG: calls, ...env } });

/** The CLI with every Node process it leads to logged in `starts`. */
const counted = (args: string[], starts: string) => sy(args, { NODE_OPTIONS: `--require=${counter}`, NODE_STARTS: starts });

const startsOf = (file: string): Start[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Start);

/** The keys the real runner was called for, sorted (turns run two at a time). */
const callsMade = () => readFileSync(calls, "utf8").trim().split("\n").sort();

async function show(state: string): Promise<Shown> {
  const r = await sy(["show", "latest", "--json", "--state-dir", state]);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as Shown;
}

/** The instances of `look`, each with its status, output, error and usage only. */
function looks(shown: Shown): Record<string, Partial<Inst>> {
  const out: Record<string, Partial<Inst>> = {};
  for (const [k, i] of Object.entries(shown.tasks.look!.instances!))
    out[k] = { status: i.status, ...(i.output ? { output: i.output } : {}), ...(i.error ? { error: i.error } : {}), usage: i.usage };
  return out;
}

function writePack(name: string, members: string[]): string {
  const p = join(dir, name);
  mkdirSync(p);
  writeFileSync(join(p, "flow.star"), playbook(members));
  return p;
}

/** Asserts the one Node process logged is the CLI. */
function onlyTheCli(starts: string): Start {
  const all = startsOf(starts);
  assert.deepEqual(
    all.map((s) => realpathSync(s.script)),
    [realpathSync(BIN)],
    "the CLI is the only Node process started",
  );
  return all[0]!;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "sy-cassette-inproc-"));
  calls = join(dir, "calls.log");
  counter = join(dir, "count-starts.cjs");
  writeFileSync(counter, COUNTER);
  const agent = join(dir, "agent.mjs");
  writeFileSync(agent, AGENT);
  config = join(dir, "config.toml");
  writeFileSync(config, `[agents.coder]\ncommand = ["node", ${JSON.stringify(agent)}]\n`);
  pack = writePack("pack", ["a", "b", "c"]);
  const state = join(dir, "recorded");
  const r = await sy(["run", pack, "--config", config, "--state-dir", state, "-q"]);
  assert.equal(r.code, 0, `the recorded run passes\n${r.out}\n${r.err}`);
  recorded = await show(state);
  assert.deepEqual(looks(recorded), { a: passedLook("a"), b: passedLook("b"), c: passedLook("c") });
  cassette = join(dir, "cassette.jsonl");
  const w = await sy(["cassette", "latest", "--state-dir", state, "-o", cassette]);
  assert.equal(w.code, 0, w.err);
  assert.deepEqual(callsMade(), ["a", "b", "c"]);
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("replayed hits start no process: the CLI is the only Node process of the replay, and the records are the recorded run's", async () => {
  const starts = join(dir, "hits.starts");
  const state = join(dir, "replay-hits");
  // --allow-live puts the real runner behind the cassette: a hit must not reach it.
  const r = await counted(["test", pack, "--cassette", cassette, "--config", config, "--allow-live", "--state-dir", state], starts);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /^test flow: passed: 3 agent turns and 0 decisions answered from the cassette, 0 misses; the run passed$/m);
  onlyTheCli(starts);
  assert.deepEqual(callsMade(), ["a", "b", "c"], "the runner was not called");
  const replayed = await show(state);
  assert.equal(replayed.status, "passed");
  assert.deepEqual(looks(replayed), looks(recorded));
});

test("a miss without --allow-live fails its element with cassette-miss, nothing started; with it, the engine runs the real runner", async () => {
  const changed = writePack("pack-added", ["a", "b", "c", "d"]);
  const offlineStarts = join(dir, "offline.starts");
  const offlineState = join(dir, "replay-offline");
  const offline = await counted(["test", changed, "--cassette", cassette, "--state-dir", offlineState], offlineStarts);
  assert.equal(offline.code, 1, `${offline.out}\n${offline.err}`);
  assert.deepEqual(
    offline.out.split("\n").filter((l) => l.startsWith("  agent turn")),
    ["  agent turn look[d]: a new element: the cassette has no turn for it"],
  );
  onlyTheCli(offlineStarts);
  assert.deepEqual(callsMade(), ["a", "b", "c"]);
  const missed = looks(await show(offlineState));
  assert.deepEqual(missed.d, {
    status: "failed",
    error:
      "cassette-miss: the cassette has no answer for this turn: a new element: the cassette has no turn for it; nothing was run (--allow-live runs it)",
    usage: undefined,
  });

  const liveStarts = join(dir, "live.starts");
  const liveState = join(dir, "replay-live");
  const live = await counted(
    ["test", changed, "--cassette", cassette, "--config", config, "--allow-live", "--state-dir", liveState],
    liveStarts,
  );
  assert.equal(live.code, 0, `${live.out}\n${live.err}`);
  assert.match(live.out, /^1 miss \(not in the cassette; run and asked live\):\n {2}agent turn look\[d\]: a new element/m);
  assert.match(live.out, /^test flow: passed: 3 agent turns and 0 decisions answered from the cassette, 1 miss; the run passed$/m);
  assert.deepEqual(callsMade(), ["a", "b", "c", "d"], "the real runner ran the missed turn, once");
  // Two Node processes: the CLI, and the real runner, started by the CLI itself (no program between).
  const all = startsOf(liveStarts);
  assert.deepEqual(
    all.map((s) => realpathSync(s.script)),
    [realpathSync(BIN), realpathSync(join(dir, "agent.mjs"))],
  );
  assert.equal(all[1]!.ppid, all[0]!.pid, "the runner's parent is the engine's process");
  assert.deepEqual(looks(await show(liveState)), { a: passedLook("a"), b: passedLook("b"), c: passedLook("c"), d: passedLook("d") });
  // Its stderr went to the attempt's log, as in `switchyard run`.
  const [run] = readdirSync(join(liveState, "runs"));
  const work = join(liveState, "runs", run!, "work", "look");
  const logs = readdirSync(work).filter((f) => /^d\.a\d+\.log$/.test(f));
  assert.equal(logs.length, 1, readdirSync(work).join(", "));
  assert.equal(readFileSync(join(work, logs[0]!), "utf8"), "looking at d\n");
});

test("a turn that failed in the recorded run fails again in the replay, with the recorded code and words, nothing started", async () => {
  const state = join(dir, "recorded-failing");
  const rec = await sy(["run", pack, "--config", config, "--state-dir", state, "-q"], { FAIL_KEY: "b" });
  assert.equal(rec.code, 1, `the recorded run fails at b\n${rec.out}\n${rec.err}`);
  const failing = looks(await show(state));
  const recordedError = failing.b!.error!;
  assert.match(recordedError, /^command-failed: agent runner "coder" exited with status 1 \(log: /);
  const failingCassette = join(dir, "failing.jsonl");
  const w = await sy(["cassette", "latest", "--state-dir", state, "-o", failingCassette]);
  assert.equal(w.code, 0, w.err);
  const before = callsMade();

  const starts = join(dir, "failed.starts");
  const replay = join(dir, "replay-failed");
  const r = await counted(["test", pack, "--cassette", failingCassette, "--state-dir", replay], starts);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(r.out, /^test flow: FAILED: 3 agent turns and 0 decisions answered from the cassette, 0 misses; the run failed$/m);
  onlyTheCli(starts);
  assert.deepEqual(callsMade(), before);
  const replayed = looks(await show(replay));
  assert.deepEqual(replayed.a, passedLook("a"));
  assert.equal(replayed.b!.status, "failed");
  assert.equal(
    replayed.b!.error,
    `command-failed: the recorded turn failed (replayed from the cassette): ${recordedError.slice("command-failed: ".length)}`,
  );
});
