// Fan-out benchmark without `keyed`: the flow of bench/fanout.ts written the common
// other way. An `evaluate` producer (a real Starlark function, as a pack has) emits the member
// list and an object with one entry per member; a mapped output-decided route reads its label
// from that object; two gated mapped `evaluate` tasks and a settled mapped judge each read the
// producer's whole output and pick their own entry; an unmapped settled reducer reads the
// judge's fold and the producer. Nothing is narrowed by `keyed`, so every instance's input holds
// the producer's whole output: the engine must convert it once per run, not once per instance.
// Targets at 10,000 elements on the 2-core machine: ≤ 5 s wall, ≤ 500 MB peak RSS, linear from
// 1,000 to 50,000. Each size runs in its own process (peak RSS).
//
// usage: node dist/bench/fanout-unkeyed.js [sizes...]      (default: 1000 10000 50000)

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FieldType, Plan } from "../src/plan/plan.js";
import { loadEvaluator } from "../src/plan/index.js";
import { benchPlanOf, task } from "./plan-task.js";
import { perSize, runAndResume } from "./per-size.js";

const PACK = (n: number) => `
def prepare(input):
    members = ["ticket-%d" % i for i in range(${n})]
    lanes = {}
    for i, k in enumerate(members):
        lanes[k] = {"lane": "right" if i % 3 == 0 else "left"}
    return {"members": members, "lanes": lanes}

def left(input):
    entry = input["inputs"]["prepare"]["lanes"][input["key"]]
    return {"side": "left", "key": input["key"], "lane": entry["lane"]}

def right(input):
    entry = input["inputs"]["prepare"]["lanes"][input["key"]]
    return {"side": "right", "key": input["key"], "lane": entry["lane"]}

def judge(input):
    side = input["inputs"]["left"] or input["inputs"]["right"]
    want = input["inputs"]["prepare"]["lanes"][input["key"]]["lane"]
    return {"ok": side != None and side["lane"] == want}

def reduce(input):
    fold = input["inputs"]["judge"]
    ok = len([k for k, v in fold["items"].items() if v["ok"]])
    return {"ok": ok, "members": len(input["inputs"]["prepare"]["members"]), "summary": fold["summary"]}
`;

function benchPlan(n: number): Plan {
  const over = { task: "prepare", field: "members" };
  const m = { over, max_fanout: n };
  const ev = (name: string) => ({ evaluate: { module: "bench.star", function: name } });
  const emits: Record<string, FieldType> = { lane: "string" };
  const lane = (answer: string) => ({
    route: "gate",
    question: "lane",
    answers: [answer],
    otherwise: false,
    labels: [answer],
    any_option: false,
  });
  return benchPlanOf("fanout_unkeyed", [
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
    task("left", "evaluate", { ...ev("left"), depends_on: ["gate", "prepare"], ...m, aligned_with: ["gate"], when: lane("left") }),
    task("right", "evaluate", { ...ev("right"), depends_on: ["gate", "prepare"], ...m, aligned_with: ["gate"], when: lane("right") }),
    task("judge", "evaluate", {
      ...ev("judge"),
      depends_on: ["left", "right", "prepare"],
      join: "settled",
      ...m,
      aligned_with: ["left", "right"],
    }),
    task("reduce", "evaluate", { ...ev("reduce"), depends_on: ["judge", "prepare"], join: "settled" }),
  ]);
}

perSize(
  fileURLToPath(import.meta.url),
  async (n) => {
    const plan = benchPlan(n);
    const figures = await runAndResume(
      plan,
      (pack) => (t) => loadEvaluator(pack, plan, t),
      (pack) => writeFileSync(join(pack, "bench.star"), PACK(n)),
    );
    return { ...figures, n };
  },
  [1000, 10000, 50000],
).catch((err) => {
  console.error(err);
  process.exit(1);
});
