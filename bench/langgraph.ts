// The same 1,000-element flow in switchyard and in LangGraph.js, in one invocation: a producer
// lists the elements, a route decides a label per element, two gated steps (one per label) run
// for the elements sent their way, and a join reads both. Target: switchyard ≥ 10× faster.
//
// How the two are kept comparable:
// - switchyard runs the whole CLI, `switchyard run FLOW.star --quiet` in a fresh state folder, on a
//   generated playbook: an `evaluate` producer, an output-decided route (the decision source that
//   needs no model: the producer names each element's label, `decide = "output"`), two gated
//   mapped `evaluate` steps and a `settled` `evaluate` join. Every step is recorded durably in the
//   SQLite event log, as any run is.
// - LangGraph.js runs a generated script in its own Node process: a StateGraph with the same five
//   steps, one `Send` per element to the route node, whose decision is a plain function returning
//   the same label (element index divisible by 3: "left", else "right") and which sends the element
//   on to the step of that label (a `Command`); both steps lead to the join. No checkpointer: it
//   records nothing, which favours LangGraph.
// - Each side is timed as a whole process (Node's start, loading its modules, the run), wall time
//   and CPU (user + system of the process and its children). Each is run ROUNDS times, the rounds
//   alternating, and the best of each is printed.
//
// LangGraph is not a dependency of switchyard: the bench installs the pinned versions below into
// the bench scratch folder (`npm install --prefix SCRATCH/langgraph`) the first time it runs, and
// reuses them afterwards. Without network access at that first run, it says so and exits 2.
//
// usage: node dist/bench/langgraph.js [elements] [rounds]      (default 1000 elements, 3 rounds)

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const LANGGRAPH = "@langchain/langgraph@1.7.3";
const LANGCHAIN_CORE = "@langchain/core@1.4.0";
const BIN = resolve(fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url)));
const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Figure {
  ms: number;
  /** CPU milliseconds of the child process (user + system, its own children included). */
  cpu: number;
}

/** cutime + cstime of this process in ms: the CPU of the children it has reaped. */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) * TICK_MS;
}

function timed(file: string, args: string[], cwd: string): { fig: Figure; stdout: string } {
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(file, args, { cwd, encoding: "utf8", maxBuffer: 1 << 24 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${file} ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return { fig: { ms, cpu: childrenCpuMs() - c0 }, stdout: r.stdout };
}

function playbook(n: number): string {
  return `playbook(description = "the LangGraph comparison's flow", concurrency = 4)

def prepare(input):
    members = [str(i) for i in range(${n})]
    return {"members": members, "lanes": {k: {"lane": "left" if int(k) % 3 == 0 else "right"} for k in members}}

def step_left(input):
    return {"out": "L" + input["key"]}

def step_right(input):
    return {"out": "R" + input["key"]}

def join_all(input):
    return {"left": len(input["inputs"]["left"]["items"]), "right": len(input["inputs"]["right"]["items"])}

prep = evaluate(name = "prepare", fn = prepare, emits = {"members": "list", "lanes": "object"})
gate = route(name = "gate", depends_on = [prep], over = prep.members, max_fanout = ${n},
             decide = "output", source = prep.lanes,
             questions = {"lane": choice(ask = "Which step?", options = {"left": "the left step", "right": "the right step"})})
left = evaluate(name = "left", depends_on = [gate], over = prep.members, max_fanout = ${n},
                when = gate.lane, answers = "left", fn = step_left, emits = {"out": "string"})
right = evaluate(name = "right", depends_on = [gate], over = prep.members, max_fanout = ${n},
                 when = gate.lane, answers = "right", fn = step_right, emits = {"out": "string"})
done = evaluate(name = "join", depends_on = [left, right], join = "settled", fn = join_all,
                emits = {"left": "number", "right": "number"})
`;
}

function langgraphScript(n: number): string {
  return `import { Annotation, Command, END, Send, START, StateGraph } from "@langchain/langgraph";

const concat = { reducer: (a, b) => a.concat(b), default: () => [] };
const State = Annotation.Root({
  members: Annotation(),
  decisions: Annotation(concat),
  leftOut: Annotation(concat),
  rightOut: Annotation(concat),
  summary: Annotation(),
});
// The decision: the same label switchyard's producer names for the element.
const decide = (key) => (Number(key) % 3 === 0 ? "left" : "right");
const graph = new StateGraph(State)
  .addNode("prepare", () => ({ members: Array.from({ length: ${n} }, (_, i) => String(i)) }))
  .addNode(
    "gate",
    ({ key }) => {
      const lane = decide(key);
      return new Command({ update: { decisions: [{ key, lane }] }, goto: new Send(lane, { key }) });
    },
    { ends: ["left", "right"] },
  )
  .addNode("left", ({ key }) => ({ leftOut: [{ key, out: "L" + key }] }))
  .addNode("right", ({ key }) => ({ rightOut: [{ key, out: "R" + key }] }))
  .addNode("join", (s) => ({ summary: { left: s.leftOut.length, right: s.rightOut.length } }))
  .addEdge(START, "prepare")
  .addConditionalEdges("prepare", (s) => s.members.map((key) => new Send("gate", { key })))
  .addEdge("left", "join")
  .addEdge("right", "join")
  .addEdge("join", END)
  .compile();
const out = await graph.invoke({}, { recursionLimit: 100 });
console.log(JSON.stringify(out.summary));
`;
}

/** The folder holding the pinned LangGraph packages, installed there at first use. */
function langgraphFolder(base: string): string {
  const dir = join(base, "langgraph");
  if (!existsSync(join(dir, "node_modules", "@langchain", "langgraph", "package.json"))) {
    mkdirSync(dir, { recursive: true });
    console.log(`installing ${LANGGRAPH} and ${LANGCHAIN_CORE} into ${dir} (once)`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = spawnSync(npm, ["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", LANGGRAPH, LANGCHAIN_CORE], {
      stdio: "inherit",
    });
    if (r.status !== 0) {
      console.error(`could not install LangGraph.js (npm exited ${r.status}); the comparison needs it once, with network access`);
      process.exit(2);
    }
  }
  return dir;
}

function main(): void {
  const n = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 3);
  const base = resolve(process.env.SWITCHYARD_BENCH_DIR ?? ".bench-scratch");
  mkdirSync(base, { recursive: true });
  const lg = langgraphFolder(base);
  const script = join(lg, `flow-${n}.mjs`);
  writeFileSync(script, langgraphScript(n));
  const work = mkdtempSync(join(base, "sy-bench-langgraph-"));
  const star = join(work, "flow.star");
  writeFileSync(star, playbook(n));
  const expected = { left: Math.ceil(n / 3), right: n - Math.ceil(n / 3) };
  const sy: Figure[] = [];
  const lgs: Figure[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const state = join(work, `state-${i}`);
      sy.push(timed(process.execPath, [BIN, "run", star, "--state-dir", state, "--quiet"], work).fig);
      const l = timed(process.execPath, [script], lg);
      const got = JSON.parse(l.stdout.trim()) as unknown;
      if (JSON.stringify(got) !== JSON.stringify(expected))
        throw new Error(`LangGraph's join saw ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
      lgs.push(l.fig);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const best = (a: Figure[]): Figure => ({ ms: Math.min(...a.map((f) => f.ms)), cpu: Math.min(...a.map((f) => f.cpu)) });
  const s = best(sy);
  const g = best(lgs);
  const line = (name: string, f: Figure) =>
    console.log(`${name.padEnd(24)}: ${(f.ms / 1000).toFixed(3)} s wall, ${(f.cpu / 1000).toFixed(2)} s CPU`);
  console.log(`the same ${n}-element flow (producer, a route per element, two gated steps, a join), best of ${rounds}`);
  line(`LangGraph.js ${LANGGRAPH.split("@")[2]}`, g);
  line("switchyard run", s);
  console.log(
    `ratio                   : switchyard ${(g.ms / s.ms).toFixed(1)}x faster in wall time (target ≥ 10x), ${(g.cpu / s.cpu).toFixed(1)}x in CPU`,
  );
}

main();
