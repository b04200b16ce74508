// Cassettes (issue 29) with a worktree agent and a revise loop, recorded from a run that was killed
// with SIGKILL mid-turn and resumed: the cassette replays the patch into a fresh worktree of a
// fresh clone, the loop round by round, and gives the resumed run's records.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, startCli, until } from "../e2e/support/harness.js";

const PLAYBOOK = `
playbook(description = "fix per element in a worktree, then polish a note", concurrency = 2)

prepare = command(
    name = "prepare",
    run = "echo '{\\"members\\": [\\"a\\", \\"b\\"]}' > $SWITCHYARD_OUTPUT",
    emits = {"members": "list"},
)

fix = agent(
    name = "fix", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    runner = "coder", workspace = "worktree",
    prompt = "Fix element {{key}} in app.txt",
)

polish = revise(
    name = "polish", depends_on = [fix], max_rounds = 3,
    body = agent(name = "draft", runner = "coder", prompt = "Draft the note. Feedback: {{feedback}}", emits = {"text": "string"}),
    reviewer = agent(name = "critic", runner = "coder", prompt = "Review the note: {{inputs.draft.text}}", emits = {"verdict": "string", "feedback": "string"}),
)
`;

/**
 * The scripted agent: fix appends a line to app.txt (element b first waits for $GATE_FILE, so the
 * test can kill the run mid-turn); the draft names its round; the critic asks for one revision.
 */
const AGENT = `import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
const prompt = readFileSync(0, "utf8");
const input = JSON.parse(readFileSync(process.env.SWITCHYARD_INPUT, "utf8"));
const out = (o) => writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify(o));
if (prompt.startsWith("Fix")) {
  if (input.key === "b" && process.env.GATE_FILE && !existsSync(process.env.GATE_FILE)) {
    writeFileSync(process.env.WAITING_FILE, "waiting");
    while (!existsSync(process.env.GATE_FILE)) await new Promise((r) => setTimeout(r, 50));
  }
  appendFileSync("app.txt", "fixed " + input.key + "\\n");
  writeFileSync(process.env.SWITCHYARD_USAGE, JSON.stringify({ input_tokens: 100, output_tokens: 10, cost_usd: 0.01 }));
  out({ reply: "fixed " + input.key });
} else if (prompt.startsWith("Draft")) {
  out({ text: "note, round " + (input.round ?? 1) });
} else {
  const round = input.round;
  out(round < 2 ? { verdict: "revise", feedback: "shorter" } : { verdict: "accept", feedback: "" });
}
`;

const dir = mkdtempSync(join(tmpdir(), "sy-cassette-wt-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });

interface Shown {
  tasks: Record<string, { instances?: Record<string, { status: string; output?: unknown; attempts?: number }>; output?: unknown }>;
}

/** Records without what differs between two runs: ids, times, state folders, attempt numbers. */
function records(shown: Shown, state: string): unknown {
  const text = JSON.stringify(shown.tasks)
    .split(state)
    .join("STATE")
    .replace(/\d{8}-\d{6}-[0-9a-f]{6}/g, "RUN")
    .replace(/\.a\d+\//g, ".aN/")
    .replace(/\/a\d+-r/g, "/aN-r");
  return JSON.parse(text, (k, v: unknown) => (k === "latency_ms" || k === "attempts" || k.endsWith("_at") ? undefined : v));
}

test(
  "a worktree agent's patch and a revise loop replay from the cassette of a killed and resumed run: the same records",
  { timeout: 300_000 },
  async () => {
    const pack = join(dir, "pack");
    mkdirSync(pack);
    writeFileSync(join(pack, "flow.star"), PLAYBOOK);
    writeFileSync(join(pack, "agent.mjs"), AGENT);
    writeFileSync(join(dir, "config.toml"), `[agents.coder]\ncommand = ["node", ${JSON.stringify(join(pack, "agent.mjs"))}]\n`);
    const repo = join(dir, "repo");
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, "app.txt"), "app\n");
    git(repo, "add", "app.txt");
    git(repo, "commit", "-qm", "base");
    const state = join(dir, "recorded");
    const gate = join(dir, "gate");
    const waiting = join(dir, "waiting");
    const env = { XDG_CONFIG_HOME: join(dir, "xdg"), SWITCHYARD_HOME: "", GATE_FILE: gate, WAITING_FILE: waiting };
    const args = ["--config", join(dir, "config.toml"), "--state-dir", state, "-q"];

    // Record: fix[b] waits; the run is killed while it does, then resumed with the gate open.
    const first = startCli(["run", pack, "--repo", repo, ...args], { cwd: dir, env });
    await until("fix[b] to be mid-turn", () => existsSync(waiting), 120_000);
    first.child.kill("SIGKILL");
    await first.done;
    writeFileSync(gate, "open");
    const resumed = await cli(["resume", "latest", ...args], { cwd: dir, env });
    assert.equal(resumed.code, 0, `${resumed.out}\n${resumed.err}`);
    const shownRecorded = await cli(["show", "latest", "--json", "--state-dir", state], { cwd: dir, env });
    const recorded = JSON.parse(shownRecorded.out) as Shown;
    const fixB = recorded.tasks.fix!.instances!.b!;
    assert.equal(fixB.attempts, 2, "fix[b] ran again after the kill");
    const polish = recorded.tasks.polish!.output as { text: string; rounds: number };
    assert.deepEqual(polish, { text: "note, round 2", rounds: 2 });

    const cassette = join(dir, "cassette.jsonl");
    const w = await cli(["cassette", "latest", "--state-dir", state, "-o", cassette], { cwd: dir, env });
    assert.equal(w.code, 0, w.err);
    // 2 fix turns, and 2 rounds of draft + critic.
    assert.match(w.out, /: 6 agent turns, 0 decisions, /);
    const lines = readFileSync(cassette, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l) as { task: string; key: string | null; part?: string });
    assert.deepEqual(
      lines.map((e) => `${e.task}[${e.key ?? ""}]${e.part ? ` ${e.part}` : ""}`),
      ["fix[a]", "fix[b]", "polish[] r1-body", "polish[] r1-review", "polish[] r2-body", "polish[] r2-review"],
    );

    // Replay into a fresh clone: the patches are applied in fresh worktrees, the loop runs its two rounds.
    const clone = join(dir, "clone");
    git(dir, "clone", "-q", repo, clone);
    const replay = join(dir, "replay");
    rmSync(gate);
    const r = await cli(["test", pack, "--cassette", cassette, "--repo", clone, "--state-dir", replay], { cwd: dir, env });
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(r.out, /test flow: passed: 6 agent turns and 0 decisions answered from the cassette, 0 misses; the run passed/);
    const shownReplay = await cli(["show", "latest", "--json", "--state-dir", replay], { cwd: dir, env });
    const replayed = JSON.parse(shownReplay.out) as Shown;
    assert.deepEqual(records(replayed, replay), records(recorded, state));
    for (const key of ["a", "b"]) {
      const out = replayed.tasks.fix!.instances![key]!.output as { patch: string; files_changed: string[] };
      assert.deepEqual(out.files_changed, ["app.txt"]);
      assert.match(readFileSync(out.patch, "utf8"), new RegExp(`^\\+fixed ${key}$`, "m"));
    }
  },
);
