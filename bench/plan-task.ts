// A task of a hand-built benchmark plan, with the defaults a compiled plan would carry.

import type { Plan, TaskPlan } from "../src/plan/plan.js";

export function task(name: string, kind: TaskPlan["kind"], extra: Partial<TaskPlan>, file = "bench.star"): TaskPlan {
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
    declared_at: { file, line: 1, col: 1 },
    ...extra,
  } as TaskPlan; // `extra` carries the kind's spec
}

/** A benchmark plan: `tasks` at concurrency 4 and 16 decisions in flight, as a compiled plan would carry them. */
export function benchPlanOf(playbook: string, tasks: TaskPlan[]): Plan {
  return {
    playbook,
    source_file: "bench.star",
    pack_digest: "0".repeat(64),
    compiler_version: "bench",
    settings: { description: "", concurrency: 4, decision_concurrency: 16, max_duration_seconds: 3600 },
    tasks,
  };
}

/** The fan-out benches' output-decided route: each element's lane, read from the producer's `lanes`. */
export function laneGate(m: { over: { task: string; field: string }; max_fanout: number }): TaskPlan {
  return task("gate", "route", {
    depends_on: ["prepare"],
    ...m,
    emits: { lane: "string" },
    route: {
      decide: "output",
      source: { task: "prepare", field: "lanes" },
      min_confidence: 0,
      files: [],
      questions: [
        {
          name: "lane",
          kind: "choice",
          ask: "which lane?",
          labels: ["left", "right"],
          descriptions: { left: "", right: "" },
          drop: [],
          type: "fanout.gate.lane",
        },
      ],
    },
  });
}

/** Gates a task on the lane the route chose. */
export const laneWhen = (answer: string) => ({
  route: "gate",
  question: "lane",
  answers: [answer],
  otherwise: false,
  labels: [answer],
  any_option: false,
});
