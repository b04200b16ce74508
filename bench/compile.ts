// Compile-time benchmark (the compiler's quality bar): a generated 1,000-task playbook built with helper
// functions from a lib module, loops and comprehensions; prints the compile time (target < 1 s).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./scratch.js";
import { compilePath, writePlanToml } from "../src/plan/index.js";

const GROUPS = 90; // each group declares 11 tasks; plus 10 shared tasks → 1,000

function pack(): Record<string, string> {
  const lib = `
def lane(prep, gate, i):
    """One lane: a mapped route gating three agents, then a reducer."""
    r = route(
        name = "route_%d" % i, depends_on = [prep, gate], over = prep.members, max_fanout = 500,
        keyed = [prep.facts], min_confidence = 0.6, when = gate.go, answers = "yes",
        questions = {"depth": choice(ask = "How deep for lane %d?" % i,
                                     options = {l: "level " + l for l in ["settled", "quick", "deep"]},
                                     drop = ["settled"])},
    )
    q = agent(name = "quick_%d" % i, depends_on = [prep, r], over = prep.members, max_fanout = 500,
              keyed = [prep.facts], when = r.depth, answers = "quick", effort = "low",
              prompt = "Check {{key}}: {{inputs.prep.facts}}", files = ["R.json"])
    d = agent(name = "deep_%d" % i, depends_on = [prep, r], over = prep.members, max_fanout = 500,
              keyed = [prep.facts], when = r.depth, otherwise = True, effort = "high",
              prompt = "Investigate {{key}}", files = ["R.json"])
    j = route(name = "judge_%d" % i, depends_on = [q, d], join = "settled", over = prep.members,
              max_fanout = 500, files = ["R.json"],
              questions = {"ok": noul(ask = "Supported?", drop = ["yes"])})
    fix = agent(name = "fix_%d" % i, depends_on = [j], over = prep.members, max_fanout = 500,
                when = j.ok, otherwise = True, prompt = "Redo {{key}}")
    steps = [command(name = "step_%d_%d" % (i, k), depends_on = [fix], run = "echo %d" % k,
                     emits = {"n": "number"}) for k in range(5)]
    return evaluate(name = "sum_%d" % i, depends_on = steps, join = "settled", fn = total,
                    emits = {"total": "number"})

def total(input):
    return {"total": len(input)}
`;
  const main = `
load("lib/lanes.star", "lane")
playbook(description = "generated", concurrency = 8)
prep = command(name = "prep", run = "true", emits = {"members": "list", "facts": "object"})
gate = route(name = "gate", depends_on = [prep], questions = {"go": noul(ask = "Run?", drop = ["no", "uncertain"])})
sums = [lane(prep, gate, i) for i in range(${GROUPS})]
extra = [command(name = "extra_%d" % i, depends_on = [sums[i]], run = "true") for i in range(8)]
`;
  return { "main.star": main, "lib/lanes.star": lib };
}

const dir = scratchDir("sy-bench-");
try {
  for (const [rel, text] of Object.entries(pack())) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  const times: number[] = [];
  let tasks = 0;
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = compilePath(dir);
    const t1 = performance.now();
    if (!r.plan) {
      console.error(r.diagnostics.slice(0, 5));
      process.exit(1);
    }
    tasks = r.plan.tasks.length;
    bytes = writePlanToml(r.plan).length;
    times.push(t1 - t0);
  }
  const best = Math.min(...times);
  console.log(
    `compile: ${tasks} tasks, first ${times[0].toFixed(0)} ms, best of 5 ${best.toFixed(0)} ms (target < 1000 ms); plan ${(bytes / 1024).toFixed(0)} KiB of TOML`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
