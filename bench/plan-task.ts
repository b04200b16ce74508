// A task of a hand-built benchmark plan, with the defaults a compiled plan would carry.

import type { TaskPlan } from "../src/plan/plan.js";

export function task(name: string, kind: TaskPlan["kind"], extra: Partial<TaskPlan>): TaskPlan {
  return { name, kind, depends_on: [], join: "all", aligned_with: [], keyed: [], timeout_seconds: 60, retries: 0, emits: {}, declared_at: { file: "bench.star", line: 1, col: 1 }, ...extra };
}
