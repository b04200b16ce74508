// A finished run of N elements × 6 mapped tasks (a route deciding a lane with a confidence, two
// gated evaluates, an aligned judge route, a settled summary and a tail), made in-process with
// the real engine and store, for the web view's bench and its 10,000-element browser test.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Plan, TaskPlan } from "../src/plan/plan.js";
import { admitRun, RunEngine, SqliteStore } from "../src/run/index.js";

function task(name: string, kind: TaskPlan["kind"], extra: Partial<TaskPlan>): TaskPlan {
  return {
    name,
    kind,
    depends_on: [],
    join: "all",
    aligned_with: [],
    keyed: [],
    timeout_seconds: 60,
    retries: 0,
    emits: {},
    declared_at: { file: "big.star", line: 1, col: 1 },
    ...extra,
  } as TaskPlan; // `extra` carries the kind's spec
}

function plan(n: number): Plan {
  const m = { over: { task: "prepare", field: "members" }, max_fanout: n };
  const ev = (fn: string) => ({ evaluate: { module: "big.star", function: fn } });
  const route = (name: string, source: string, labels: string[], deps: string[]): TaskPlan =>
    task(name, "route", {
      depends_on: deps,
      aligned_with: deps.filter((d) => d !== "prepare"),
      ...m,
      emits: { q: "string" },
      route: {
        decide: "output",
        source: { task: "prepare", field: source },
        min_confidence: 0,
        files: [],
        questions: [
          {
            name: "q",
            kind: "choice",
            ask: "?",
            labels,
            descriptions: Object.fromEntries(labels.map((l) => [l, ""])),
            drop: [],
            type: `big.${name}.q`,
          },
        ],
      },
    });
  const when = (route: string, labels: string[]) => ({
    route,
    question: "q",
    answers: labels,
    otherwise: false,
    labels,
    any_option: false,
  });
  return {
    playbook: "big",
    source_file: "big.star",
    pack_digest: "0".repeat(64),
    compiler_version: "bench",
    settings: { description: "", concurrency: 4, decision_concurrency: 16, max_duration_seconds: 3600 },
    tasks: [
      task("prepare", "evaluate", { ...ev("prepare"), emits: { members: "list", lanes: "object", verdicts: "object" } }),
      route("lane", "lanes", ["left", "right"], ["prepare"]),
      task("left", "evaluate", { ...ev("side"), depends_on: ["lane"], ...m, aligned_with: ["lane"], when: when("lane", ["left"]) }),
      task("right", "evaluate", { ...ev("side"), depends_on: ["lane"], ...m, aligned_with: ["lane"], when: when("lane", ["right"]) }),
      task("merge", "evaluate", { ...ev("merge"), depends_on: ["left", "right"], join: "settled", ...m, aligned_with: ["left", "right"] }),
      route("verdict", "verdicts", ["ok", "redo"], ["prepare", "merge"]),
      task("redo", "evaluate", {
        ...ev("side"),
        depends_on: ["verdict"],
        ...m,
        aligned_with: ["verdict"],
        when: when("verdict", ["redo"]),
      }),
    ],
  };
}

function evaluators(n: number) {
  const fns: Record<string, (i: { key: string }) => unknown> = {
    prepare: () => {
      const members: string[] = [];
      const lanes: Record<string, unknown> = {};
      const verdicts: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const k = `ticket-${String(i).padStart(5, "0")}`;
        members.push(k);
        lanes[k] = { q: i % 3 === 0 ? "right" : "left" };
        verdicts[k] = { q: i % 7 === 0 ? "redo" : "ok" };
      }
      return { members, lanes, verdicts };
    },
    side: (i) => ({ key: i.key }),
    merge: (i) => ({ merged: i.key }),
  };
  return (t: TaskPlan) => fns[t.evaluate!.function]! as (input: unknown) => unknown;
}

/** Makes the run in `stateDir`; returns its id. */
export async function makeBigRun(stateDir: string, n: number): Promise<string> {
  const pack = join(stateDir, "..", "big-pack");
  mkdirSync(pack, { recursive: true });
  const store = new SqliteStore(stateDir);
  try {
    const run = admitRun(store, { plan: plan(n), packDir: pack, sourcePath: pack });
    const outcome = await new RunEngine({ store, run, resume: false, evaluators: evaluators(n) }).execute();
    if (outcome.status !== "passed") throw new Error(`the big run ${outcome.status}`);
    return run;
  } finally {
    store.close();
  }
}
