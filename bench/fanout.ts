// Fan-out benchmark: a producer, a mapped output-decided route, two gated mapped
// evaluate tasks, an aligned settled judge and an unmapped settled reducer, over N elements.
// Every mapped task reads its per-element facts through its own instance (aligned) or `keyed`;
// bench/fanout-unkeyed.ts is the same flow read the other way.
// Targets at 10,000 elements on the 2-core machine: ≤ 5 s wall, ≤ 500 MB peak RSS, and resuming
// the finished run ≤ 1.5 s running nothing. Each size runs in its own process (peak RSS).
//
// usage: node dist/bench/fanout.js [sizes...]      (default: 1000 10000 50000)

import { fileURLToPath } from "node:url";
import type { FieldType, Plan, TaskPlan } from "../src/plan/plan.js";
import { benchPlanOf, task } from "./plan-task.js";
import { perSize, runAndResume } from "./per-size.js";

function benchPlan(n: number): Plan {
  const over = { task: "prepare", field: "members" };
  const m = { over, max_fanout: n };
  const ev = (name: string) => ({ evaluate: { module: "bench.star", function: name } });
  const emits: Record<string, FieldType> = { lane: "string" };
  return benchPlanOf("fanout", [
    task("prepare", "evaluate", { ...ev("prepare"), emits: { members: "list", lanes: "object" } }),
    task("gate", "route", {
      depends_on: ["prepare"],
      ...m,
      emits,
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
    }),
    task("left", "evaluate", {
      ...ev("left"),
      depends_on: ["gate"],
      ...m,
      aligned_with: ["gate"],
      when: { route: "gate", question: "lane", answers: ["left"], otherwise: false, labels: ["left"], any_option: false },
    }),
    task("right", "evaluate", {
      ...ev("right"),
      depends_on: ["gate"],
      ...m,
      aligned_with: ["gate"],
      when: { route: "gate", question: "lane", answers: ["right"], otherwise: false, labels: ["right"], any_option: false },
    }),
    task("judge", "evaluate", { ...ev("judge"), depends_on: ["left", "right"], join: "settled", ...m, aligned_with: ["left", "right"] }),
    task("reduce", "evaluate", { ...ev("reduce"), depends_on: ["judge"], join: "settled" }),
  ]);
}

type Input = { key: string; inputs: Record<string, Record<string, unknown> | null>; statuses?: Record<string, string> };

function evaluators(n: number) {
  const fns: Record<string, (i: Input) => unknown> = {
    prepare: () => {
      const members: string[] = [];
      const lanes: Record<string, { lane: string }> = {};
      for (let i = 0; i < n; i++) {
        const k = `ticket-${i}`;
        members.push(k);
        lanes[k] = { lane: i % 3 === 0 ? "right" : "left" };
      }
      return { members, lanes };
    },
    left: (i) => ({ side: "left", key: i.key }),
    right: (i) => ({ side: "right", key: i.key }),
    judge: (i) => ({ ok: (i.inputs.left ?? i.inputs.right) !== null }),
    reduce: (i) => ({ summary: (i.inputs.judge as { summary: unknown }).summary }),
  };
  return (t: TaskPlan) => fns[t.evaluate!.function]! as (input: unknown) => unknown;
}

perSize(
  fileURLToPath(import.meta.url),
  async (n) => ({ ...(await runAndResume(benchPlan(n), () => evaluators(n))), n }),
  [1000, 10000, 50000],
).catch((err) => {
  console.error(err);
  process.exit(1);
});
