// The library API (docs/api.md) end to end on real SQLite state folders: check and compile, a run
// started with an agent runner and a decision provider given as code, its events as they land,
// cancel, resume (a decision never asked twice, a recorded turn never run again), rerun, show and
// runs. Known answers are worked out by hand from the tiny pack below.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { PACK } from "./support/pack.js";
import {
  ApiOptionError,
  check,
  compile,
  DiagnosticError,
  openState,
  type State,
  type AgentTurn,
  type DecisionProvider,
  type DecisionRequest,
  type RunEvent,
} from "../../src/api/index.js";

/** Says yes to a and b, no to c, counting the requests per key. */
function yesToAB(asked: Map<string, number>): DecisionProvider {
  return {
    async decide(req: DecisionRequest) {
      asked.set(req.key ?? "", (asked.get(req.key ?? "") ?? 0) + 1);
      const yes = req.key === "c" ? 0.05 : 0.95;
      return { answers: Object.fromEntries(req.questions.map((q) => [q.id, { probabilities: { yes, no: 1 - yes } }])) };
    },
  };
}

/** Runs `body` with a fresh pack and an open state folder, then closes and removes them. */
async function withState(body: (s: ReturnType<typeof setup>, state: State) => Promise<void>): Promise<void> {
  const s = setup();
  const state = openState({ stateDir: s.stateDir });
  try {
    await body(s, state);
  } finally {
    state.close();
    s.dir.cleanup();
  }
}

function setup() {
  const dir = new TempDir("sy-api-");
  const pack = dir.file("pack/main.star", PACK);
  const config = dir.file("config.toml", `[decisions]\nhost = "tty"\n`);
  return { dir, pack: join(dir.path, "pack"), star: pack, config, stateDir: join(dir.path, "state") };
}

test("check and compile: a clean pack's plan and TOML; a broken one's diagnostics, thrown by compile as a DiagnosticError", () => {
  const s = setup();
  try {
    const ok = check(s.pack);
    assert.deepEqual({ ok: ok.ok, playbook: ok.playbook, tasks: ok.tasks }, { ok: true, playbook: "main", tasks: 3 });
    const c = compile(s.pack);
    assert.deepEqual(
      c.plan.tasks.map((t) => t.name),
      ["items", "gate", "work"],
    );
    assert.match(c.toml, /name = "work"/);
    const bad = s.dir.file("bad/main.star", `x = command(name = "x", run = 1)\n`);
    const r = check(bad);
    assert.equal(r.ok, false);
    assert.ok(r.diagnostics.some((d) => d.severity === "error"));
    assert.throws(
      () => compile(bad),
      (e: unknown) => e instanceof DiagnosticError && e.diagnostics.length > 0,
    );
  } finally {
    s.dir.cleanup();
  }
});

test("run with a code runner and provider: decisions land as events, only the yes keys reach the runner, show and runs agree", () =>
  withState(async (s, state) => {
    const asked = new Map<string, number>();
    const turns: AgentTurn[] = [];
    const run = await state.run(s.pack, {
      config: s.config,
      concurrency: 2,
      decisions: { default: "mine/m1" },
      providers: { mine: yesToAB(asked) },
      runners: {
        coder: async (turn) => {
          turns.push(turn);
          return { output: { text: `did ${turn.key}` }, usage: { cost_usd: 0.25 } };
        },
      },
    });
    const decided: string[] = [];
    const types: string[] = [];
    for await (const e of run.events) {
      types.push(e.type);
      if (e.type === "decision_recorded") decided.push(`${e.key}=${e.payload.record.go?.label}`);
    }
    const outcome = await run.done;
    assert.equal(outcome.status, "passed");
    assert.deepEqual(decided.sort(), ["a=yes", "b=yes", "c=no"]);
    assert.deepEqual([...asked.entries()].sort(), [
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
    assert.deepEqual(turns.map((t) => t.key).sort(), ["a", "b"]);
    assert.equal(turns[0]!.prompt, `Do ${turns[0]!.key}`);
    assert.equal(types.at(-1), "run_finished");
    const shown = state.show(run.id);
    assert.equal(shown.status, "passed");
    const work = shown.tasks.work!.instances!;
    assert.deepEqual(
      Object.entries(work).map(([k, i]) => [k, i.status]),
      [
        ["a", "passed"],
        ["b", "passed"],
        ["c", "not_taken"],
      ],
    );
    assert.equal(run.spentUsd(), 0.5); // two turns at $0.25 each
    assert.deepEqual(
      state.runs().map((r) => r.run),
      [run.id],
    );
  }));

test("R-4 with code: cancel mid-run, resume twice: no decision is asked again and no recorded turn runs again", () =>
  withState(async (s, state) => {
    const asked = new Map<string, number>();
    const ran: string[] = [];
    const opts = (runner: (t: AgentTurn, signal: AbortSignal) => Promise<{ output: Record<string, unknown> }>) => ({
      config: s.config,
      decisions: { types: { "main.gate.go": "mine/m1" } },
      providers: { mine: yesToAB(asked) },
      runners: { coder: runner },
    });
    // First invocation: a passes; b waits until the run is cancelled (cancelled once a's turn is recorded).
    const first = await state.run(
      s.pack,
      opts(async (t, signal) => {
        ran.push(`1:${t.key}`);
        if (t.key === "a") return { output: { text: "a" } };
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
        throw new Error("unreachable");
      }),
    );
    const seen: RunEvent[] = [];
    let bStarted = false;
    let aPassed = false;
    for await (const e of first.events) {
      seen.push(e);
      if (e.task === "work" && e.key === "b" && e.type === "instance_started") bStarted = true;
      if (e.task === "work" && e.key === "a" && e.type === "instance_finished") aPassed = e.payload.status === "passed";
      if (bStarted && aPassed) first.cancel("enough");
    }
    const o1 = await first.done;
    assert.equal(o1.status, "cancelled");
    assert.ok(seen.some((e) => e.type === "instance_interrupted" && e.key === "b"));
    // Second invocation: only b runs again; nothing is asked.
    const second = await state.resume(
      first.id,
      opts(async (t) => (ran.push(`2:${t.key}`), { output: { text: t.key ?? "" } })),
    );
    assert.equal((await second.done).status, "passed");
    // Third: a finished run resumed runs nothing and asks nothing.
    const third = await state.resume(
      first.id,
      opts(async (t) => (ran.push(`3:${t.key}`), { output: { text: "" } })),
    );
    assert.equal((await third.done).status, "passed");
    assert.deepEqual(ran.sort(), ["1:a", "1:b", "2:b"]);
    assert.deepEqual([...asked.entries()].sort(), [
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
  }));

test("a runner that throws fails its attempt with its words; rerun runs the chosen key again, and the failed one with it", () =>
  withState(async (s, state) => {
    let calls = 0;
    const o = {
      config: s.config,
      decisions: { default: "mine/m1" },
      providers: { mine: yesToAB(new Map()) },
      runners: {
        coder: async (t: AgentTurn) => {
          calls += 1;
          if (t.key === "a") throw new Error("the model is tired");
          return { output: { text: "ok" } };
        },
      },
    };
    const run = await state.run(s.pack, o);
    assert.equal((await run.done).status, "failed");
    const a = state.show(run.id).tasks.work!.instances!.a!;
    assert.equal(a.status, "failed");
    assert.match(a.error ?? "", /agent-runner-failed: .*threw: the model is tired/);
    assert.equal(calls, 2); // a once (no retries declared) and b once
    const again = await state.rerun(run.id, { ...o, tasks: ["work"], keys: ["b"] });
    assert.equal((await again.done).status, "failed"); // a fails again
    assert.equal(calls, 4); // b, cleared by the rerun, and a, failed (a resume runs failed instances again)
  }));

test("wrong options are refused before anything is admitted: a concurrency of 0, a bad mode, a provider without decide, a missing runner", () =>
  withState(async (s, state) => {
    await assert.rejects(state.run(s.pack, { config: s.config, concurrency: 0 }), ApiOptionError);
    await assert.rejects(state.run(s.pack, { config: s.config, decisions: { default: "nomodel" } }), /decisions.default/);
    await assert.rejects(
      state.run(s.pack, { config: s.config, providers: { mine: {} as DecisionProvider } }),
      /providers.mine must be an object with a decide/,
    );
    // Routed to a provider given as code, but no runner for the agent task: refused, naming it.
    await assert.rejects(
      state.run(s.pack, { config: s.config, decisions: { default: "mine/m1" }, providers: { mine: yesToAB(new Map()) } }),
      (e: unknown) => e instanceof ApiOptionError && /^no agent runner for work \(runner "coder"\)/.test(e.message),
    );
    assert.deepEqual(state.runs(), []);
  }));

test("D-20: a runner given as code under the name [decisions] host gives does agent turns; the config file's runner of that name still answers as the host", () =>
  withState(async (s, state) => {
    const config = s.dir.file(
      "host.toml",
      `[agents.coder]\ncommand = ["sh", "-c", "cat > /dev/null; echo yes"]\n\n[decisions]\nhost = "coder"\n`,
    );
    const turns: string[] = [];
    const run = await state.run(s.pack, {
      config,
      runners: { coder: async (t) => (turns.push(t.key ?? ""), { output: { text: "done" } }) },
    });
    assert.equal((await run.done).status, "passed");
    const gate = state.show(run.id).tasks.gate!.instances!;
    assert.deepEqual(Object.keys(gate), ["a", "b", "c"]);
    for (const i of Object.values(gate)) assert.equal(i.status, "passed");
    assert.deepEqual(turns.sort(), ["a", "b", "c"]);
  }));
