// A task of a hand-built benchmark plan, with the defaults a compiled plan would carry.

import type { Plan, TaskPlan } from "../src/plan/plan.js";

export function task(name: string, kind: TaskPlan["kind"], extra: Partial<TaskPlan>): TaskPlan {
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
    declared_at: { file: "bench.star", line: 1, col: 1 },
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
