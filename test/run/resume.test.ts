// T-5 and retries/timeouts: the durable side of the engine.

import { TABLE } from "../support/test-store.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  harness,
  plan,
  evaluate,
  command,
  modelRoute,
  choice,
  noul,
  when,
  mapped,
  ref,
  runPlan,
  resumePlan,
  statuses,
  writeJson,
  evaluators,
} from "./helpers.js";
import { FakeJudge } from "./fake-judge.js";
import { admitRun, RunEngine, showRun, RunRefused } from "../../src/run/index.js";
import type { TaskPlan } from "../../src/plan/plan.js";

test("R-3: projections are rebuilt from the events alone, identical to the live ones", async () => {
  const h = harness();
  try {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      evaluate("each", { depends_on: ["prepare"], ...m }),
      evaluate("bad", { depends_on: ["prepare"], ...m }),
      evaluate("sum", { depends_on: ["each", "bad"], join: "settled" }),
    ]);
    const { run } = await runPlan(h, p, {
      fns: {
        prepare: () => ({ members: ["a", "b", "c"] }),
        each: (i) => ({ k: i.key }),
        bad: (i) => {
          if (i.key === "b") throw new Error("x");
          return {};
        },
        sum: (i) => ({ s: i.statuses }),
      },
    });
    const dump = () => ({
      run: h.store.select(TABLE.runs),
      tasks: h.store.select(TABLE.tasks),
      instances: h.store.select(TABLE.instances),
    });
    const before = dump();
    assert.equal((before.instances as unknown[]).length, 1 + 3 + 3 + 1);
    for (const table of ["runs", "tasks", "instances"]) h.store.exec({ sqlite: `DELETE FROM ${table}` });
    assert.equal(showRun(h.store, run), undefined);
    h.store.rebuild();
    assert.deepEqual(dump(), before);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-4: a recorded decision is never asked again; failed instances run again in a new attempt", async () => {
  const h = harness();
  try {
    const judge = new FakeJudge((key) => (key === "a" ? "go" : "stop"));
    let fail = true;
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("gate", [choice("d", ["go", "stop"], { drop: ["stop"] })], { depends_on: ["prepare"], ...m }),
      evaluate("work", { depends_on: ["gate"], ...m, when: when("gate", "d", ["go", "uncertain"]) }),
    ]);
    const fns = {
      prepare: () => ({ members: ["a", "b"] }),
      work: () => {
        if (fail) throw new Error("flaky");
        return { ok: 1 };
      },
    };
    const first = await runPlan(h, p, { judge, fns });
    assert.equal(first.outcome.status, "failed");
    assert.equal(judge.calls.length, 2);
    fail = false;
    const second = await resumePlan(h, first.run, { judge, fns });
    assert.equal(second.outcome.status, "passed");
    assert.equal(judge.calls.length, 2, "decisions were not asked again");
    assert.deepEqual(statuses(second.show, "work"), { a: "passed", b: "not_taken" });
    assert.equal(second.show.tasks.work!.instances!.a!.attempts, 2);
    const third = await resumePlan(h, first.run, { judge, fns });
    assert.equal(third.outcome.status, "passed");
    const types = [...h.store.events(first.run)].slice(-2).map((e) => e.type);
    assert.deepEqual(types, ["run_resumed", "run_finished"], "resuming a finished run runs nothing");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-1: resume uses the admitted plan's pack snapshot, never the current files", async () => {
  const h = harness();
  try {
    writeFileSync(join(h.pack, "v.txt"), "old");
    const marker = join(h.dir.path, "fail-now");
    writeFileSync(marker, "");
    const p = plan([
      command("read", `[ -e '${marker}' ] && exit 1; printf '{"v":"%s"}' "$(cat "$SWITCHYARD_PACK/v.txt")" > "$SWITCHYARD_OUTPUT"`, {
        emits: { v: "string" },
      }),
    ]);
    const first = await runPlan(h, p);
    assert.equal(first.outcome.status, "failed");
    writeFileSync(join(h.pack, "v.txt"), "new");
    rmSync(marker);
    const second = await resumePlan(h, first.run);
    assert.deepEqual(second.show.tasks.read!.output, { v: "old" });
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-7: cancel kills running process groups, records cancelled, and resume finishes the run", { timeout: 120_000 }, async () => {
  const h = harness();
  try {
    const pids = join(h.dir.path, "pids");
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      command("prepare", writeJson({ members: ["a", "b", "c"] }), { emits: { members: "list" } }),
      command("slow", `sleep 30 & echo $! >> '${pids}'; wait; ${writeJson({})}`, { depends_on: ["prepare"], ...m }),
    ]);
    const run = admitRun(h.store, { plan: p, packDir: h.pack, sourcePath: h.pack });
    const engine = new RunEngine({ store: h.store, run, resume: false });
    const done = engine.execute();
    // Wait for the three instances to have started their sleeps (the test's timeout bounds it).
    while (!(existsSync(pids) && readFileSync(pids, "utf8").trim().split("\n").length === 3)) await new Promise((r) => setTimeout(r, 20));
    engine.cancel("test cancel");
    const t0 = Date.now();
    const outcome = await done;
    assert.equal(outcome.status, "cancelled");
    // The groups were sent SIGKILL: wait for the sleeps to die, which they would not for 30 s otherwise.
    const sleeps = readFileSync(pids, "utf8").trim().split("\n").map(Number);
    while (sleeps.some(alive) && Date.now() - t0 < 25000) await new Promise((r) => setTimeout(r, 20));
    for (const pid of sleeps) {
      assert.ok(!alive(pid), `the group's sleep (pid ${pid}) was killed`);
    }
    const shown = showRun(h.store, run)!;
    assert.equal(shown.status, "cancelled");
    assert.deepEqual(statuses(shown, "slow"), { a: "pending", b: "pending", c: "pending" });
    // Resume with a fast command is impossible (the plan is fixed, R-1), so resume and cancel at once:
    const again = new RunEngine({ store: h.store, run, resume: true });
    const p2 = again.execute();
    again.cancel();
    assert.equal((await p2).status, "cancelled");
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("R-20: commands see the SWITCHYARD_* environment and their input, never the configured secrets", async () => {
  const h = harness();
  process.env.SY_TEST_PROVIDER_KEY = "sk-secret";
  process.env.SY_TEST_VISIBLE = "visible";
  try {
    const m = mapped(ref("prepare", "members"));
    const script = `node -e '
const e = process.env; const fs = require("fs");
fs.writeFileSync(e.SWITCHYARD_OUTPUT, JSON.stringify({ run: e.SWITCHYARD_RUN, task: e.SWITCHYARD_TASK, key: e.SWITCHYARD_KEY,
  ws: e.SWITCHYARD_WORKSPACE === process.cwd(), pack: e.SWITCHYARD_PACK, secret: e.SY_TEST_PROVIDER_KEY ?? null,
  visible: e.SY_TEST_VISIBLE, own: e.OWN, input: JSON.parse(fs.readFileSync(e.SWITCHYARD_INPUT, "utf8")) }));'`;
    const envTask: TaskPlan = command("env", script, { depends_on: ["prepare"], ...m });
    envTask.command!.env = { OWN: "mine" };
    const p = plan([command("prepare", writeJson({ members: ["k1"] }), { emits: { members: "list" } }), envTask]);
    const { show, run } = await runPlan(h, p, { secretEnv: ["SY_TEST_PROVIDER_KEY"] });
    const out = show.tasks.env!.instances!.k1!.output as Record<string, unknown>;
    assert.equal(out.run, run);
    assert.equal(out.task, "env");
    assert.equal(out.key, "k1");
    assert.equal(out.ws, true);
    assert.equal(out.pack, join(h.state, "runs", run, "pack"));
    assert.equal(out.secret, null);
    assert.equal(out.visible, "visible");
    assert.equal(out.own, "mine");
    assert.deepEqual(out.input, { key: "k1", inputs: { prepare: { members: ["k1"] } } });
  } finally {
    delete process.env.SY_TEST_PROVIDER_KEY;
    delete process.env.SY_TEST_VISIBLE;
    h.store.close();
    h.dir.cleanup();
  }
});

for (const directSpawn of [false, true])
  test(`timeouts kill the instance's process group; retries run a failed instance again after a backoff (${directSpawn ? "spawned from Node" : "launcher shells"})`, async () => {
    const h = harness();
    try {
      const counter = join(h.dir.path, "count");
      const p = plan([
        command("slow", "sleep 20", { timeout_seconds: 0.3 }),
        command(
          "flaky",
          `n=$(cat '${counter}' 2>/dev/null || echo 0); echo $((n+1)) > '${counter}'; [ "$n" -ge 2 ] || exit 1; ${writeJson({ n: 1 })}`,
          { retries: 2, emits: { n: "number" } },
        ),
      ]);
      const t0 = Date.now();
      const { show, run } = await runPlan(h, p, { retryBaseMs: 20, directSpawn });
      assert.ok(Date.now() - t0 < 15000, "the timeout ended the 20 s sleep");
      assert.match(show.tasks.slow!.error!, /^timeout: the command ran longer than its timeout of 0.3s and was killed/);
      assert.equal(show.tasks.flaky!.status, "passed");
      assert.equal(show.tasks.flaky!.output && (show.tasks.flaky!.output as { n: number }).n, 1);
      const retried = [...h.store.events(run)].filter((e) => e.type === "instance_retried");
      assert.deepEqual(
        retried.map((e) => (e.payload as { delay_ms: number }).delay_ms),
        [20, 40],
      );
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  });

test("T-5: revise rounds are recorded and a resumed loop continues after the last finished round", { timeout: 120_000 }, async () => {
  const h = harness();
  try {
    const bodyLog = join(h.dir.path, "body.log");
    const hold = join(h.dir.path, "hold");
    writeFileSync(hold, "");
    // Round 2's body waits while `hold` exists, so the test can cancel mid-loop.
    const body = command(
      "draft",
      `echo "round \${SWITCHYARD_TASK}" >> '${bodyLog}'; r=$(node -e 'const i=require(process.env.SWITCHYARD_INPUT); console.log(i.round||1)'); [ "$r" = 2 ] && while [ -e '${hold}' ]; do sleep 0.05; done; printf '{"text":"v%s"}' "$r" > "$SWITCHYARD_OUTPUT"`,
      { emits: { text: "string" } },
    );
    const reviewer = evaluate("critic", { emits: { verdict: "string" } });
    const loop: TaskPlan = { ...command("loop", "unused"), kind: "revise", command: undefined, revise: { body, reviewer, max_rounds: 3 } };
    const p = plan([loop]);
    const fns = {
      critic: (i: { inputs: { draft: { text: string } } }) =>
        i.inputs.draft.text === "v1" ? { verdict: "revise", feedback: "more" } : { verdict: "accept" },
    };
    const run = admitRun(h.store, { plan: p, packDir: h.pack, sourcePath: h.pack });
    const engine = new RunEngine({ store: h.store, run, resume: false, evaluators: evaluators(fns) });
    const done = engine.execute();
    // Wait for round 2's body to have started (the test's timeout bounds it).
    while (!(existsSync(bodyLog) && readFileSync(bodyLog, "utf8").trim().split("\n").length === 2))
      await new Promise((r) => setTimeout(r, 20));
    engine.cancel();
    assert.equal((await done).status, "cancelled");
    const rounds = [...h.store.events(run)].filter((e) => e.type === "revise_round");
    assert.equal(rounds.length, 1);
    rmSync(hold);
    const again = await resumePlan(h, run, { fns });
    assert.equal(again.outcome.status, "passed");
    assert.deepEqual(again.show.tasks.loop!.output, { text: "v2", rounds: 2 });
    // Round 1 ran once; round 2 ran twice (interrupted, then resumed) — round 1 never again.
    assert.equal(readFileSync(bodyLog, "utf8").trim().split("\n").length, 3);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

test("D-30: the judge's preflight problems refuse the run before anything starts; a model route needs a judge", async () => {
  const h = harness();
  try {
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("gate", [choice("d", ["a", "b"], { type: "t.gate" })], { depends_on: ["prepare"] }),
    ]);
    const run = admitRun(h.store, { plan: p, packDir: h.pack, sourcePath: h.pack });
    const judge = new FakeJudge(() => "a", ["t.gate: model acme/x is not listed in providers.acme.models"]);
    assert.throws(
      () => new RunEngine({ store: h.store, run, resume: false, judge }).execute(),
      (e: unknown) => e instanceof RunRefused && /acme\/x is not listed/.test(e.message),
    );
    assert.throws(() => new RunEngine({ store: h.store, run, resume: false }).execute(), { code: "no-judge" });
    assert.equal(judge.calls.length, 0);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});

/** Alive and not a zombie (containers may not reap orphans). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

test("R-5: at most `concurrency` commands and `decision_concurrency` decision requests run at once", { timeout: 120_000 }, async () => {
  const h = harness();
  try {
    const spans = join(h.dir.path, "spans");
    const m = mapped(ref("prepare", "members"));
    const ELEMENTS = 8;
    // The limits are asserted from recorded start/end markers, and the limit being reached is made
    // certain by barriers, not by timing: each command, once started, waits until two have started
    // (the engine starts two at once), and each decision request waits until three are in flight
    // or no more can come (every command has ended, so every request has been made).
    let inFlight = 0;
    let maxInFlight = 0;
    const inner = new FakeJudge(() => "yes", [], 30);
    const ended = () =>
      existsSync(spans)
        ? readFileSync(spans, "utf8")
            .split("\n")
            .filter((l) => l.startsWith("-")).length
        : 0;
    const judge = {
      calls: inner.calls,
      preflight: () => [],
      judge: async (r: Parameters<FakeJudge["judge"]>[0]) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          while (inFlight < 3 && maxInFlight < 3 && ended() < ELEMENTS) await new Promise((res) => setTimeout(res, 10));
          return await inner.judge(r);
        } finally {
          inFlight--;
        }
      },
    };
    const started = `[ "$(grep -c '^+' '${spans}')" -ge 2 ]`;
    const p = plan(
      [
        command("prepare", writeJson({ members: Array.from({ length: ELEMENTS }, (_, i) => i + 1) }), { emits: { members: "list" } }),
        command(
          "work",
          `echo "+ $(date +%s%N)" >> '${spans}'; until ${started}; do sleep 0.01; done; sleep 0.1; echo "- $(date +%s%N)" >> '${spans}'`,
          { depends_on: ["prepare"], ...m },
        ),
        modelRoute("ask", [noul("ok")], { depends_on: ["work"], ...m }),
      ],
      { concurrency: 2, decision_concurrency: 3 },
    );
    const { outcome } = await runPlan(h, p, { judge });
    assert.equal(outcome.status, "passed");
    const events = readFileSync(spans, "utf8")
      .trim()
      .split("\n")
      .map((l) => [l[0], BigInt(l.slice(2))] as const)
      .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] === "-" ? -1 : 1));
    let now = 0;
    let peak = 0;
    for (const [sign] of events) {
      now += sign === "+" ? 1 : -1;
      peak = Math.max(peak, now);
    }
    assert.equal(peak, 2);
    assert.equal(judge.calls.length, ELEMENTS);
    assert.equal(maxInFlight, 3, `decisions in flight: ${maxInFlight}`);
  } finally {
    h.store.close();
    h.dir.cleanup();
  }
});
