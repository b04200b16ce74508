// the crash campaign on a mixed pack. The CLI runs a playbook of
// shell commands, agent turns (a fake `claude` on PATH replying in Claude Code's JSON format), model
// decisions over HTTP (a Decisions API server on 127.0.0.1) and a revise loop, and is killed with
// SIGKILL at random short moments after each (re)start, then resumed, at least 50 times; when a run
// finishes before the campaign has its kills, another run of the same pack starts. Every run must
// end with the records of an uninterrupted run, never ask a recorded decision again (the only
// re-asks allowed are those of the window docs/runs.md documents: unrecorded answers, at most
// 2 × decision_concurrency − 1 per kill), never pass a key twice, and run an instance (or a revise
// round) again only when its attempt was in flight at the kill.

import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { startDecisionsServer } from "../support/decisions-server.js";
import { decisionsCounts, startCli, type CliResult } from "../e2e/support/harness.js";
import type { ChildProcess } from "node:child_process";
import type { AnswerRule } from "../support/scripted-answers.js";

const KILLS = 50;
const KEYS = Array.from({ length: 12 }, (_, i) => `k${String(i).padStart(2, "0")}`);
const DECISION_CONCURRENCY = 2;
const LANES = ["agent", "shell", "skip"] as const;
const laneOf = (i: number) => LANES[i % 3]!;
const soundOf = (i: number) => i % 4 !== 3;

// Every process-backed execution appends "TASK KEY [rN]" to $SIDE_LOG as it starts (the agent's
// line comes from the fake CLI's FAKE_AGENT_LOG); rounds of `polish` are logged with their number.
const playbook = `
playbook(description = "mixed crash campaign", concurrency = 4, decision_concurrency = ${DECISION_CONCURRENCY})

prepare = command(name = "prepare", run = """echo '${JSON.stringify({ members: KEYS })}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

lane = route(
    name = "lane", depends_on = [prepare], over = prepare.members, max_fanout = 100,
    questions = {"lane": choice(
        ask = "Which lane does this ticket take?",
        options = {"agent": "an agent turn fixes it", "shell": "a script fixes it", "skip": "nothing to do"},
        drop = ["skip"],
    )},
)

fix = agent(
    name = "fix", depends_on = [lane], over = prepare.members, max_fanout = 100,
    when = lane.lane, answers = "agent",
    prompt = "Fix ticket {{key}}.\\nWRITE NOTE.txt\\n",
)

patch = command(
    name = "patch", depends_on = [lane], over = prepare.members, max_fanout = 100,
    when = lane.lane, otherwise = True,
    run = """echo "patch $SWITCHYARD_KEY" >> "$SIDE_LOG"; sleep 0.1; printf '{"patched": "%s"}' "$SWITCHYARD_KEY" > $SWITCHYARD_OUTPUT""",
    emits = {"patched": "string"},
)

def review(input):
    need = 2 if int(input["key"][1:]) % 2 == 0 else 3
    return {"verdict": "accept" if input["inputs"]["draft"]["round"] >= need else "revise", "feedback": "again"}

polish = revise(
    name = "polish", depends_on = [fix, patch], join = "settled", over = prepare.members, max_fanout = 100, max_rounds = 3,
    body = command(
        name = "draft",
        run = """r=$(sed -n 's/.*"round":\\\\([0-9]*\\\\).*/\\\\1/p' "$SWITCHYARD_INPUT"); r=\${r:-1}
echo "polish $SWITCHYARD_KEY r$r" >> "$SIDE_LOG"; sleep 0.05
printf '{"round": %s, "key": "%s"}' "$r" "$SWITCHYARD_KEY" > $SWITCHYARD_OUTPUT""",
        emits = {"round": "number", "key": "string"},
    ),
    reviewer = evaluate(name = "check", fn = review, emits = {"verdict": "string", "feedback": "string"}),
)

ship = route(
    name = "ship", depends_on = [polish], over = prepare.members, max_fanout = 100,
    questions = {"sound": noul(ask = "Is the polished fix sound?", drop = ["no", "uncertain"])},
)

publish = command(
    name = "publish", depends_on = [ship], over = prepare.members, max_fanout = 100,
    when = ship.sound, answers = "yes",
    run = """echo "publish $SWITCHYARD_KEY" >> "$SIDE_LOG"; printf '{"done": true}' > $SWITCHYARD_OUTPUT""",
    emits = {"done": "bool"},
)

def total(input):
    return {"statuses": input["statuses"]}

report = evaluate(name = "report", depends_on = [publish], join = "settled", fn = total)
`;

const k = (key: string) => `"key":"${key}"`;
const rules: AnswerRule[] = KEYS.flatMap((key, i) => [
  {
    match: k(key),
    question: "lane",
    answer: { probabilities: Object.fromEntries(LANES.map((l) => [l, l === laneOf(i) ? 0.9 : 0.05])) },
  },
  { match: k(key), question: "sound", answer: { p_yes: soundOf(i) ? 0.9 : 0.2 } },
]);

interface EventRow {
  seq: number;
  type: string;
  task: string | null;
  key: string | null;
  payload: string;
}

function events(state: string, run: string): EventRow[] {
  const file = join(state, "switchyard.db");
  if (!run || !existsSync(file)) return [];
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT seq, type, task, key, payload FROM events WHERE run = ? ORDER BY seq").all(run) as EventRow[];
  } finally {
    db.close();
  }
}

/** Per-key records, without what differs between two runs of the same work (latencies). */
function records(state: string, run: string): unknown[] {
  const db = new Database(join(state, "switchyard.db"), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT task, key, status, output, label FROM instances WHERE run = ? ORDER BY task, key").all(run) as {
      output: string | null;
    }[];
    return rows.map((r) => ({
      ...r,
      output: JSON.parse(r.output ?? "null", (name, v: unknown) => (name === "latency_ms" ? undefined : v)),
    }));
  } finally {
    db.close();
  }
}

/** What a log says is done: "TASK KEY" of passed instances (and "polish KEY rN" of recorded rounds), decisions by "QUESTION:KEY". */
function done(evs: EventRow[]): { work: Set<string>; decided: Set<string> } {
  const work = new Set<string>();
  const decided = new Set<string>();
  for (const e of evs) {
    const p = JSON.parse(e.payload) as { status?: string; round?: number; record?: { question?: string } };
    if (e.type === "instance_finished" && p.status === "passed") work.add(`${e.task} ${e.key}`);
    if (e.type === "revise_round") work.add(`${e.task} ${e.key} r${p.round}`);
    if (e.type === "decision_recorded") decided.add(`${e.task === "lane" ? "lane" : "sound"}:${e.key}`);
  }
  return { work, decided };
}

/** The executions the side logs hold: "TASK KEY" or "polish KEY rN"; the agent's from the fake CLI's log. */
function executions(sideLog: string, agentLog: string): { side: string[]; agent: string[] } {
  const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);
  return {
    side: lines(sideLog),
    agent: lines(agentLog).map((l) => {
      const j = JSON.parse(l) as { key: string; context: Record<string, string> };
      return `${j.context.SWITCHYARD_TASK} ${j.key}`;
    }),
  };
}

/** The log's own guarantees, for one finished run after `kills` kills. */
function checkLog(evs: EventRow[], kills: number): number {
  const passed = new Map<string, number>();
  const attempts = new Map<string, { started: Set<number>; ended: Set<number> }>();
  for (const e of evs) {
    const id = `${e.task}[${e.key}]`;
    const p = JSON.parse(e.payload) as { status?: string; attempt?: number };
    if ((e.type === "instance_finished" && p.status === "passed") || e.type === "decision_recorded")
      passed.set(`${e.type} ${id}`, (passed.get(`${e.type} ${id}`) ?? 0) + 1);
    if (p.attempt === undefined || !e.task) continue;
    const a = attempts.get(id) ?? { started: new Set<number>(), ended: new Set<number>() };
    attempts.set(id, a);
    if (e.type === "instance_started") a.started.add(p.attempt);
    if (["instance_finished", "decision_recorded", "instance_retried"].includes(e.type)) a.ended.add(p.attempt);
  }
  for (const [what, n] of passed) assert.equal(n, 1, `${what} recorded ${n} times (no reset happened)`);
  let reruns = 0;
  for (const [id, a] of attempts) {
    for (const n of a.started) {
      if (n === 1) continue;
      reruns++;
      // Attempt n exists only because attempt n−1 was started and never ended: it was in flight.
      assert.ok(a.started.has(n - 1) && !a.ended.has(n - 1), `${id} attempt ${n} ran although attempt ${n - 1} had ended`);
    }
  }
  return reruns;
}

/**
 * Resolves once the CLI's --json output has shown an event and then `finishes` things finished (an
 * instance, a round, a decision), or the process has exited: read as each line arrives.
 */
function lifeReady(child: ChildProcess, finishes: number): Promise<void> {
  return new Promise((ready) => {
    let partial = "";
    let seen = false;
    let finished = 0;
    const onData = (b: Buffer) => {
      const lines = (partial + b.toString()).split("\n");
      partial = lines.pop()!;
      for (const l of lines) {
        if (/"seq":\d+/.test(l)) seen = true;
        if (/"type":"(instance_finished|revise_round|decision_recorded)"/.test(l)) finished++;
      }
      if (seen && finished >= finishes) done();
    };
    const done = () => {
      child.stdout!.off("data", onData);
      child.off("exit", done);
      ready();
    };
    child.stdout!.on("data", onData);
    child.once("exit", done);
    if (child.exitCode !== null) done();
  });
}

test(
  "crash campaign, mixed pack: 50+ kill -9 of the engine over commands, agent turns, HTTP decisions and a revise loop — same records, no recorded decision re-asked, no key passed twice, reruns only of in-flight attempts",
  { timeout: 2_400_000 },
  async () => {
    const server = await startDecisionsServer({ table: { rules }, latencyMs: 20 });
    const dir = new TempDir("sy-mixed-crash-");
    try {
      dir.file("pack/main.star", playbook);
      const config = dir.file(
        "config.toml",
        `[agents.default]\npreset = "claude-code"\n\n[providers.oai]\nkind = "openai"\nvendor = "openai"\nbase_url = "${server.url}"\n` +
          `models = ["gpt-6-luna"]\nmax_retries = 0\n\n[decisions]\nhost = "default"\ndefault = "oai/gpt-6-luna"\n`,
      );
      const bin = fakeAgentBin(dir.path, ["claude"]);
      const start = (name: string, args: string[]) => {
        const env = {
          PATH: `${bin}:${process.env.PATH}`,
          SIDE_LOG: join(dir.path, `${name}.side.log`),
          FAKE_AGENT_LOG: join(dir.path, `${name}.agent.log`),
          XDG_CONFIG_HOME: join(dir.path, "xdg"),
        };
        return startCli([...args, "--json", "--state-dir", join(dir.path, name)], { cwd: dir.path, env });
      };
      const logsOf = (name: string) => executions(join(dir.path, `${name}.side.log`), join(dir.path, `${name}.agent.log`));
      const sideLogs = (name: string) => Object.values(logsOf(name)).flat();

      // The reference: one uninterrupted run.
      const refRun = await start("ref", ["run", "pack", "--config", config]).done;
      assert.equal(refRun.code, 0, refRun.err + refRun.out);
      const refId = /"run":"([^"]+)"/.exec(refRun.out)![1]!;
      const expected = records(join(dir.path, "ref"), refId);
      const refExecutions = sideLogs("ref").sort();
      const refAsked = decisionsCounts(server.requests.splice(0));
      assert.ok(Object.values(refAsked).every((n) => n === 1));

      let seed = 9;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      let kills = 0;
      const t0 = Date.now();
      const runs: { name: string; id: string; kills: number; asked: Record<string, number> }[] = [];
      while (kills < KILLS) {
        // A new run of the same pack, in its own state folder, killed and resumed until it passes.
        const name = `crash${runs.length}`;
        const state = join(dir.path, name);
        const current = { name, id: "", kills: 0, asked: {} as Record<string, number> };
        runs.push(current);
        for (;;) {
          const before = done(events(state, current.id));
          const seen = logsOf(name);
          const asked = server.requests.length;
          const c = start(name, current.id ? ["resume", current.id] : ["run", "pack", "--config", config]);
          // Killed at a random moment of this life: after its first event (run_resumed; for a new run
          // the first event after run_started), or after one or two things it finished (an instance,
          // a round, a decision), then a random few milliseconds more; each life so makes progress.
          const finishes = Math.floor(random() * 3);
          await lifeReady(c.child, finishes);
          await new Promise((r) => setTimeout(r, random() * 60));
          if (c.child.exitCode === null && kills < KILLS) c.child.kill("SIGKILL");
          const r: CliResult = await c.done;
          // A life that ended by itself just before the signal counts as a finished run, not a kill.
          const killed = r.signal === "SIGKILL";
          current.id ||= /"run":"([^"]+)"/.exec(r.out)?.[1] ?? "";
          assert.ok(current.id, `no run id: ${r.err}`);

          // What was recorded before this life is never done again in it.
          const now = logsOf(name);
          for (const x of [...now.side.slice(seen.side.length), ...now.agent.slice(seen.agent.length)])
            assert.ok(!before.work.has(x), `${x} ran again after it was recorded`);
          for (const key of Object.keys(decisionsCounts(server.requests.slice(asked))))
            assert.ok(!before.decided.has(key), `${key} was asked again after its decision was recorded`);
          if (!killed) {
            assert.equal(r.code, 0, `the run ends passed\n${r.err}`);
            break;
          }
          kills++;
          current.kills++;
        }
        current.asked = decisionsCounts(server.requests.splice(0));
      }
      const campaignMs = Date.now() - t0;

      let reasked = 0;
      let reruns = 0;
      for (const r of runs) {
        const state = join(dir.path, r.name);
        assert.deepEqual(records(state, r.id), expected, `${r.name}: the same records as the uninterrupted run`);
        reruns += checkLog(events(state, r.id), r.kills);
        // Every decision of the reference was asked; re-asks only inside the documented window.
        assert.deepEqual(Object.keys(r.asked).sort(), Object.keys(refAsked).sort());
        const extra = Object.values(r.asked).reduce((a, b) => a + b, 0) - Object.keys(refAsked).length;
        reasked += extra;
        assert.ok(extra <= r.kills * (2 * DECISION_CONCURRENCY - 1), `${r.name}: ${extra} re-asks after ${r.kills} kills`);
        // Every execution of the reference happened; any more were reruns of in-flight attempts (checked per life above).
        const ex = sideLogs(r.name);
        for (const x of refExecutions) assert.ok(ex.includes(x), `${r.name}: ${x} never ran`);
      }
      assert.ok(kills >= KILLS);
      console.log(
        `# mixed crash campaign: ${kills} kills over ${runs.length} run(s) in ${campaignMs} ms; ${reruns} in-flight attempts re-run, ${reasked} unrecorded decisions re-asked`,
      );
    } finally {
      await server.close();
      dir.cleanup();
    }
  },
);
