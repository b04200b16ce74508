// Replay benchmark: a pack over N elements — a producer (Starlark evaluate), a mapped
// model-decided route over them (each element's ticket through `keyed`), and a mapped agent turn
// gated on the route for the tenth of the elements it sends there — run for real with the
// scripted runners through the CLI (`switchyard run`: a node agent script per turn, the decisions
// from a local System One server process, dist/test/support/systemone-server.js), its cassette
// written (`switchyard cassette`), then the same pack replayed from it (`switchyard test`). Target at 10,000 elements: the replay within 2× the
// scripted run's time; and both linear (1,000 → 10,000 elements about 10× the time).
// The figures are wall times of the whole command, starting Node included.
//
// usage: node dist/bench/replay.js [sizes...]        (default: 1000 10000)
//        SWITCHYARD_BENCH_PROF=DIR writes a CPU profile of each run's and replay's engine process there

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { scratchDir } from "./scratch.js";

const BIN = resolve("bin", "switchyard.js");
/** Every AGENT_EVERY-th element is sent to the agent by the route. */
const AGENT_EVERY = 10;

const PLAYBOOK = (n: number) => `
playbook(description = "replay bench", concurrency = 8, decision_concurrency = 32)

def tickets(input):
    members = ["ticket-%d" % i for i in range(${n})]
    facts = {}
    for i in range(${n}):
        facts["ticket-%d" % i] = {
            "text": "Customer %d reports being charged twice for order %d; please refund." % (i, 1000 + i),
            "needs": "agent" if i % ${AGENT_EVERY} == 0 else "none",
        }
    return {"members": members, "facts": facts}

def own(input):
    return input["inputs"]["prepare"]["facts"]

prepare = evaluate(name = "prepare", fn = tickets, emits = {"members": "list", "facts": "object"})

# Each element's ticket through its own instance, so a decision's state is that ticket (R-21), not
# the producer's N-element list (bench/decisions.ts reads it the same way).
ticket = evaluate(
    name = "ticket", depends_on = [prepare],
    over = prepare.members, max_fanout = ${n}, keyed = [prepare.facts],
    fn = own, emits = {"text": "string", "needs": "string"},
)

gate = route(
    name = "gate", depends_on = [ticket],
    over = prepare.members, max_fanout = ${n},
    questions = {"next": choice(
        ask = "Does this ticket need an agent?",
        options = {"done": "The facts settle it", "agent": "An agent must look"},
        drop = ["done", "uncertain"],
    )},
)

work = agent(
    name = "work", depends_on = [ticket, gate],
    over = prepare.members, max_fanout = ${n},
    when = gate.next, answers = "agent",
    prompt = "Handle {{key}}: {{inputs.ticket.text}}",
    emits = {"done": "string"},
)
`;

const AGENT = `import { writeFileSync } from "node:fs";
writeFileSync(process.env.SWITCHYARD_OUTPUT, JSON.stringify({ done: process.env.SWITCHYARD_KEY }));
writeFileSync(process.env.SWITCHYARD_USAGE, JSON.stringify({ input_tokens: 120, output_tokens: 12, cost_usd: 0.0003 }));
`;

/** The scripted decision model: "agent" for the tickets marked so, else its default, the first label ("done"). */
const ANSWERS = { rules: [{ match: '"needs":"agent"', answer: { probabilities: { agent: 0.95, done: 0.05 } } }] };

async function startServer(table: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join("dist", "test", "support", "systemone-server.js"), "--port", "0", "--answer-from", table], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /^listening (http:\/\/\S+)/.exec(line);
    if (m) return { url: m[1]!, child };
  }
  throw new Error("the System One server did not start");
}

/** Runs the CLI; returns its wall time in seconds and its output, failing the bench on a non-zero exit. */
function timed(args: string[], cwd: string, nodeArgs: string[] = []): { seconds: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...nodeArgs, BIN, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 26,
    env: { ...process.env, XDG_CONFIG_HOME: join(cwd, "xdg"), SWITCHYARD_HOME: "" },
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`switchyard ${args[0]} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return { seconds, out: r.stdout };
}

interface Figures {
  n: number;
  turns: number;
  scripted: number;
  replay: number;
  cassetteBytes: number;
}

async function oneSize(n: number): Promise<Figures> {
  const dir = scratchDir("sy-bench-replay-");
  const server = await startServer(writeJson(join(dir, "answers.json"), ANSWERS));
  try {
    const pack = join(dir, "pack");
    mkdirSync(pack);
    writeFileSync(join(pack, "pack.toml"), `[pack]\nname = "replaybench"\nversion = "0.1.0"\n`);
    writeFileSync(join(pack, "main.star"), PLAYBOOK(n));
    writeFileSync(join(dir, "agent.mjs"), AGENT);
    const config = join(dir, "config.toml");
    writeFileSync(
      config,
      `[agents.default]\ncommand = ["node", "./agent.mjs"]\n\n[providers.s1]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${server.url}"\nmodels = ["jev-1"]\n\n[decisions]\ndefault = "s1/jev-1"\n`,
    );
    const prof = process.env.SWITCHYARD_BENCH_PROF;
    const profile = (name: string) =>
      prof ? ["--cpu-prof", "--cpu-prof-dir", resolve(prof), "--cpu-prof-name", `${name}-${n}.cpuprofile`] : [];
    const first = timed(["run", "pack", "--config", config, "--state-dir", join(dir, "state1"), "-q"], dir, profile("scripted")).seconds;
    const cassette = join(dir, "cassette.jsonl");
    timed(["cassette", "latest", "--state-dir", join(dir, "state1"), "-o", cassette], dir);
    const replay = timed(["test", "pack", "--cassette", cassette], dir, profile("replay"));
    const turns = n / AGENT_EVERY;
    const expected = `${turns} agent turns and ${n} decisions answered from the cassette, 0 misses; the run passed`;
    if (!replay.out.includes(expected)) throw new Error(`the replay did not answer everything: ${replay.out}`);
    return { n, turns, scripted: first, replay: replay.seconds, cassetteBytes: statSync(cassette).size };
  } finally {
    server.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value));
  return path;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sizes = args.length ? args.map(Number) : [1000, 10000];
  console.log("elements  agent turns  scripted run (s)  replay (s)  replay / scripted  cassette (MB)  replay time vs previous size");
  let prev: Figures | undefined;
  for (const n of sizes) {
    const f = await oneSize(n);
    const growth = prev ? `${(f.replay / prev.replay).toFixed(1)}x for ${(f.n / prev.n).toFixed(0)}x the elements` : "";
    const cells = [
      String(n).padStart(8),
      String(f.turns).padStart(11),
      f.scripted.toFixed(2).padStart(16),
      f.replay.toFixed(2).padStart(10),
      (f.replay / f.scripted).toFixed(2).padStart(17),
      (f.cassetteBytes / 1e6).toFixed(1).padStart(13),
      growth,
    ];
    console.log(cells.join("  "));
    prev = f;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
