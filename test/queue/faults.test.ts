// Faults: a 500-element run in workers mode — shell commands on
// the workers, agent turns on the workers (a fake `claude` on PATH replying in Claude Code's JSON
// format), model decisions asked by the coordinator over HTTP (a Decisions API server on
// 127.0.0.1) — while at least 50 random `kill -9`s land on the three workers and the coordinator.
// A killed worker is replaced by a new one (its jobs are released by the sweeper); a killed
// coordinator is resumed. The final records must equal an uninterrupted single-machine run; no
// decision recorded before a coordinator's life is asked in it (re-asks only of unrecorded answers,
// within the window docs/runs.md documents); no key passes twice; an attempt n > 1 exists only
// because attempt n − 1 was in flight.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { startDecisionsServer } from "../support/decisions-server.js";
import { decisionsCounts, startCli, type CliResult } from "../e2e/support/harness.js";
import type { AnswerRule } from "../support/scripted-answers.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";
import { PostgresStore } from "../../src/run/store/store-postgres.js";
import { SqliteStore, type Store } from "../../src/run/index.js";
import type { RunEvent } from "../../src/run/store/events.js";
import { sweepIntervalMs } from "../../src/run/queue/names.js";
import { startWorkerProc, type WorkerProc } from "./support.js";

const KILLS = 50;
const N = 500;
const KEYS = Array.from({ length: N }, (_, i) => `k${String(i).padStart(3, "0")}`);
const DECISION_CONCURRENCY = 4;
const LANES = ["agent", "shell", "skip"] as const;
const laneOf = (i: number) => LANES[i % 3]!;
/**
 * The sweeper looks every 300 ms, not every 2 s, in the coordinator and the workers: the jobs of
 * a killed worker go back to the queue sooner, so the lives between kills spend less time waiting.
 */
const QUEUE_ENV = { SWITCHYARD_QUEUE_SWEEP_MS: "300" };

const playbook = `
playbook(description = "workers fault campaign", concurrency = 24, decision_concurrency = ${DECISION_CONCURRENCY})

prepare = command(name = "prepare", run = """echo '${JSON.stringify({ members: KEYS })}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

lane = route(
    name = "lane", depends_on = [prepare], over = prepare.members, max_fanout = 1000,
    questions = {"lane": choice(
        ask = "Which lane does this ticket take?",
        options = {"agent": "an agent turn fixes it", "shell": "a script fixes it", "skip": "nothing to do"},
        drop = ["skip"],
    )},
)

fix = agent(
    name = "fix", depends_on = [lane], over = prepare.members, max_fanout = 1000,
    when = lane.lane, answers = "agent",
    prompt = "Fix ticket {{key}}.\\nWRITE NOTE.txt\\n",
)

patch = command(
    name = "patch", depends_on = [lane], over = prepare.members, max_fanout = 1000,
    when = lane.lane, otherwise = True,
    run = """printf '{"patched": "%s"}' "$SWITCHYARD_KEY" > $SWITCHYARD_OUTPUT""",
    emits = {"patched": "string"},
)

def total(input):
    return {"statuses": input["statuses"]}

report = evaluate(name = "report", depends_on = [fix, patch], join = "settled", fn = total)
`;

const rules: AnswerRule[] = KEYS.map((key, i) => ({
  match: `"key":"${key}"`,
  question: "lane",
  answer: { probabilities: Object.fromEntries(LANES.map((l) => [l, l === laneOf(i) ? 0.9 : 0.05])) },
}));

function withStore<T>(store: Store, f: (s: Store) => T): T {
  try {
    return f(store);
  } finally {
    store.close();
  }
}

/** Per task and key: status, output (latencies aside) and label. */
function records(store: Store, run: string): unknown[] {
  return store.instances(run).map((i) => ({
    task: i.task,
    key: i.key,
    status: i.status,
    label: i.label,
    output: JSON.parse(JSON.stringify(i.output ?? null), (name, v: unknown) => (name === "latency_ms" ? undefined : v)),
  }));
}

const decidedKeys = (evs: RunEvent[]) => new Set(evs.filter((e) => e.type === "decision_recorded").map((e) => `lane:${e.key}`));

/** No key passed or decided twice; an attempt n > 1 only after attempt n − 1 was started and never ended. */
function checkLog(evs: RunEvent[]): number {
  const once = new Map<string, number>();
  const attempts = new Map<string, { started: Set<number>; ended: Set<number> }>();
  for (const e of evs) {
    const id = `${e.task}[${e.key}]`;
    const p = e.payload as { status?: string; attempt?: number };
    if ((e.type === "instance_finished" && p.status === "passed") || e.type === "decision_recorded")
      once.set(`${e.type} ${id}`, (once.get(`${e.type} ${id}`) ?? 0) + 1);
    if (p.attempt === undefined || !e.task) continue;
    const a = attempts.get(id) ?? { started: new Set<number>(), ended: new Set<number>() };
    attempts.set(id, a);
    if (e.type === "instance_started") a.started.add(p.attempt);
    if (["instance_finished", "decision_recorded", "instance_retried"].includes(e.type)) a.ended.add(p.attempt);
  }
  for (const [what, n] of once) assert.equal(n, 1, `${what} recorded ${n} times`);
  let reruns = 0;
  for (const [id, a] of attempts)
    for (const n of a.started) {
      if (n === 1) continue;
      reruns++;
      assert.ok(a.started.has(n - 1) && !a.ended.has(n - 1), `${id} attempt ${n} ran although attempt ${n - 1} had ended`);
    }
  return reruns;
}

test(
  "faults: 50+ kill -9 across three workers and the coordinator of a 500-element run — same records as one machine, no recorded decision asked again, no key passed twice, reruns only of in-flight attempts",
  // Ten minutes: on the shared 2-core machine at load average 36 the campaign alone took 280 s.
  { ...pgSkip, timeout: 600000 },
  async () => {
    const server = await startDecisionsServer({ table: { rules }, latencyMs: 5 });
    const dir = new TempDir("sy-faults-");
    const db = await freshDatabase();
    const workers: WorkerProc[] = [];
    const starting: Promise<unknown>[] = [];
    try {
      dir.file("pack/main.star", playbook);
      const config = dir.file(
        "config.toml",
        `[agents.default]\npreset = "claude-code"\n\n[providers.oai]\nkind = "openai"\nvendor = "openai"\nbase_url = "${server.url}"\n` +
          `models = ["gpt-6-luna"]\nmax_retries = 0\n\n[decisions]\nhost = "default"\ndefault = "oai/gpt-6-luna"\n`,
      );
      // Claude Code's recorded success, replayed by the shell fake without a Node start-up per turn
      // (test/support/fake-agent-sh.ts).
      const bin = fakeAgentBin(dir.path, ["claude"]);
      const env = {
        ...process.env,
        ...QUEUE_ENV,
        PATH: `${bin}:${process.env.PATH}`,
        XDG_CONFIG_HOME: join(dir.path, "xdg"),
      };
      assert.equal(sweepIntervalMs(env), 300, "the shortened sweep is in force");
      const cli = (args: string[], state: string, e = env) =>
        startCli([...args, "--json", "--state-dir", join(dir.path, state)], { cwd: dir.path, env: e });
      // The coordinator's machine has no agent CLI: only the workers' machines do.
      const coordinatorEnv = { ...env, PATH: process.env.PATH ?? "" };

      const addWorker = async () => workers.push(await startWorkerProc(db.url, ["--config", config, "--concurrency", "4"], env));
      // The three workers start side by side, while the reference runs.
      const firstWorkers = Promise.all([0, 1, 2].map(() => addWorker()));
      starting.push(firstWorkers);

      // The reference: one uninterrupted run on one machine (SQLite, local executor).
      const ref = await cli(["run", "pack", "--config", config], "ref").done;
      assert.equal(ref.code, 0, ref.err);
      const refId = /"run":"([^"]+)"/.exec(ref.out)![1]!;
      const expected = withStore(new SqliteStore(join(dir.path, "ref")), (s) => records(s, refId));
      assert.equal(expected.filter((r) => (r as { task: string }).task === "lane").length, N);
      const refAsked = decisionsCounts(server.requests.splice(0));

      await firstWorkers;
      const pg = () => new PostgresStore(db.url, join(dir.path, "reader"));
      const coordArgs = ["--store", db.url, "--executor", "workers", "--config", config];

      let seed = 17;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      let kills = 0;
      let coordinatorKills = 0;
      let run = "";
      let reasked = 0;
      let reruns = 0;
      const t0 = Date.now();
      for (;;) {
        const before = run ? withStore(pg(), (s) => decidedKeys([...s.events(run)])) : new Set<string>();
        const asked = server.requests.length;
        const c = cli(run ? ["resume", run, ...coordArgs] : ["run", "pack", ...coordArgs], "coordinator", coordinatorEnv);
        const ended = c.done.then((r) => r);
        let result: CliResult | undefined;
        void ended.then((r) => (result = r));
        // This coordinator's life: a few worker kills at random moments, then (most lives) its own,
        // once it has printed its first event (or ended).
        await new Promise<void>((started) => {
          let out = "";
          c.child.stdout!.on("data", (b: Buffer) => {
            out += b.toString();
            if (/"seq":\d+/.test(out)) started();
          });
          void ended.then(() => started());
        });
        const workerKills = Math.floor(random() * 4);
        for (let i = 0; i < workerKills && result === undefined && kills < KILLS; i++) {
          await new Promise((r) => setTimeout(r, 50 + random() * 250));
          if (result !== undefined || workers.length === 0) break;
          const victim = workers.splice(Math.floor(random() * workers.length), 1)[0]!;
          victim.proc.kill("SIGKILL");
          await victim.exited;
          kills++;
          starting.push(addWorker()); // its replacement starts meanwhile
        }
        if (result === undefined && kills < KILLS) {
          await new Promise((r) => setTimeout(r, 50 + random() * 400));
          if (result === undefined) c.child.kill("SIGKILL");
        }
        const r = await ended;
        run ||= /"run":"([^"]+)"/.exec(r.out)?.[1] ?? "";
        assert.ok(run, `no run id: ${r.err}`);
        // No decision recorded before this life was asked in it.
        const lifeAsked = decisionsCounts(server.requests.slice(asked));
        for (const key of Object.keys(lifeAsked)) assert.ok(!before.has(key), `${key} was asked again after its decision was recorded`);
        if (r.signal !== "SIGKILL") {
          assert.equal(r.code, 0, `the run ends passed\n${r.err.slice(-3000)}`);
          if (kills >= KILLS) break;
          // Finished before the campaign had its kills: start the same pack again from scratch.
          const all = decisionsCounts(server.requests.splice(0));
          reasked += Object.values(all).reduce((a, b) => a + b, 0) - Object.keys(refAsked).length;
          await checkFinished(run);
          run = "";
          continue;
        }
        kills++;
        coordinatorKills++;
      }
      async function checkFinished(id: string): Promise<void> {
        withStore(pg(), (s) => {
          assert.deepEqual(records(s, id), expected, `run ${id}: the same records as the uninterrupted run`);
          reruns += checkLog([...s.events(id)]);
        });
      }
      await Promise.all(starting);
      const all = decisionsCounts(server.requests.splice(0));
      reasked += Object.values(all).reduce((a, b) => a + b, 0) - Object.keys(refAsked).length;
      await checkFinished(run);
      assert.ok(kills >= KILLS, `only ${kills} kills`);
      assert.ok(coordinatorKills >= 5, `only ${coordinatorKills} of the kills hit the coordinator`);
      assert.ok(
        reasked <= coordinatorKills * (2 * DECISION_CONCURRENCY - 1),
        `${reasked} re-asks of unrecorded decisions after ${coordinatorKills} coordinator kills`,
      );
      console.log(
        `# workers fault campaign: ${kills} kills (${coordinatorKills} of the coordinator) in ${Date.now() - t0} ms; ${reruns} in-flight attempts re-run, ${reasked} unrecorded decisions re-asked`,
      );
    } finally {
      await Promise.allSettled(starting);
      for (const w of workers) w.proc.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await server.close();
      await db.drop();
      dir.cleanup();
    }
  },
);
