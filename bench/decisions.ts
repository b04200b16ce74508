// Decision throughput benchmark: N route instances — a mapped model-decided route over N
// elements, one choice question each — through the real engine, router and `systemone` provider,
// (the route reads each element's ticket from an aligned mapped `ticket` task, so its state is
// that ticket — ~170 bytes — and not the whole N-element list, which a route depending on the
// producer itself would carry in every state, R-21),
// against a local System One server PROCESS (dist/test/support/systemone-server.js) that answers
// at once, with decision_concurrency = 32. Compared with the practical limit: a plain keep-alive
// HTTP loop (node:http Agent, keepAlive, 32 requests in flight) sending the same requests to the
// same server. Targets: ≥ 1,500 decisions/s and ≥ 50 % of the plain loop's rate.
//
// Each round also runs the engine with every request sent through the official System One client
// (none directly, see src/decide/providers/systemone-direct.ts), for comparison in the same run.
//
// usage: node dist/bench/decisions.js [N] [--rounds R] [--engine-only] [--no-client-only]
//        (default N = 10000, R = 3; the best round of each is reported, the machine being shared;
//        --engine-only skips the plain loop, to profile the engine's side alone with node
//        --cpu-prof; --no-client-only skips the official-client-only runs)

import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadMachineConfig } from "../src/decide/config.js";
import { createJudge } from "../src/decide/router.js";
import { createProvider } from "../src/decide/providers/index.js";
import type { Plan } from "../src/plan/plan.js";
import { task } from "./plan-task.js";
import { admitRun, RunEngine, SqliteStore } from "../src/run/index.js";
import { scratchDir } from "./scratch.js";

const CONCURRENCY = 32;
const OPTIONS = { billing: "Payments, refunds, invoices", technical: "Bugs, outages, errors", other: "Anything else" };

function benchPlan(n: number): Plan {
  return {
    playbook: "decisions",
    source_file: "bench.star",
    pack_digest: "0".repeat(64),
    compiler_version: "bench",
    settings: { description: "", concurrency: 4, decision_concurrency: CONCURRENCY, max_duration_seconds: 3600 },
    tasks: [
      task("prepare", "evaluate", {
        evaluate: { module: "bench.star", function: "prepare" },
        emits: { members: "list", tickets: "object" },
      }),
      task("ticket", "evaluate", {
        evaluate: { module: "bench.star", function: "ticket" },
        depends_on: ["prepare"],
        over: { task: "prepare", field: "members" },
        max_fanout: n,
        keyed: [{ task: "prepare", field: "tickets" }],
        emits: { text: "string" },
      }),
      task("triage", "route", {
        depends_on: ["ticket"],
        aligned_with: ["ticket"],
        over: { task: "prepare", field: "members" },
        max_fanout: n,
        emits: { team: "string" },
        route: {
          decide: "model",
          min_confidence: 0.5,
          files: [],
          questions: [
            {
              name: "team",
              kind: "choice",
              ask: "Which team should handle this ticket?",
              labels: Object.keys(OPTIONS),
              descriptions: { ...OPTIONS },
              drop: [],
              type: "decisions.triage.team",
            },
          ],
        },
      }),
    ],
  };
}

function tickets(n: number): { members: string[]; tickets: Record<string, { text: string }> } {
  const members: string[] = [];
  const t: Record<string, { text: string }> = {};
  for (let i = 0; i < n; i++) {
    const k = `ticket-${i}`;
    members.push(k);
    t[k] = { text: `Customer ${i} reports being charged twice for order ${1000 + i}; please refund.` };
  }
  return { members, tickets: t };
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join("dist", "test", "support", "systemone-server.js"), "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const m = /^listening (http:\/\/\S+)/.exec(line);
    if (m) return { url: m[1]!, child };
  }
  throw new Error("the System One server did not start");
}

/** The plain loop: the same wire requests over a keep-alive agent, CONCURRENCY in flight. */
async function plainLoop(url: string, n: number): Promise<{ rate: number; cpuUs: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL("/v1/systemone", url);
  const t = tickets(n);
  const body = (i: number) =>
    JSON.stringify({
      state: { inputs: { ticket: t.tickets[t.members[i]!] }, key: t.members[i] },
      model: "jev-1",
      questions: { team: { type: "choice", instructions: "Which team should handle this ticket?", criteria: OPTIONS } },
    });
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const payload = body(i);
      const req = request(
        target,
        { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
            JSON.parse(Buffer.concat(chunks).toString("utf8"));
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await one(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  agent.destroy();
  return { rate: n / seconds, cpuUs: (used.user + used.system) / n };
}

/** The engine: admit, execute, check every element was decided by the model. */
async function engineRun(
  url: string,
  n: number,
  clientOnly = false,
): Promise<{ rate: number; seconds: number; routeSeconds: number; rssMb: number; cpuUs: number }> {
  const dir = scratchDir("sy-bench-decisions-");
  try {
    const pack = join(dir, "pack");
    mkdirSync(pack);
    writeFileSync(join(pack, "bench.star"), "# bench\n");
    const configPath = join(dir, "config.toml");
    writeFileSync(
      configPath,
      `[providers.s1]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${url}"\nmodels = ["jev-1"]\n\n[decisions]\ndefault = "s1/jev-1"\n`,
    );
    const config = loadMachineConfig(configPath, {});
    const providers = clientOnly ? { s1: createProvider(config.providers.s1!, { clientOnly }) } : undefined;
    const judge = createJudge({ config, stateDir: join(dir, "state"), providers });
    const store = new SqliteStore(join(dir, "state"));
    const data = tickets(n);
    const run = admitRun(store, { plan: benchPlan(n), packDir: pack, sourcePath: pack });
    const cpu = process.cpuUsage();
    const started = performance.now();
    // The route's own phase: from its first decision started to its fold settled.
    let first = 0;
    let last = 0;
    const engine = new RunEngine({
      store,
      run,
      resume: false,
      judge,
      evaluators: (t) =>
        t.name === "prepare"
          ? () => data
          : (i) => ({ text: (i as { inputs: { prepare: { tickets: { text: string } } } }).inputs.prepare.tickets.text }),
      onEvent: (e) => {
        if (e.task !== "triage") return;
        if (e.type === "instance_started" && first === 0) first = performance.now();
        if (e.type === "fold_settled") last = performance.now();
      },
    });
    const outcome = await engine.execute();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const routeSeconds = (last - first) / 1000;
    const rssMb = process.memoryUsage().rss / 1e6;
    await judge.close();
    if (outcome.status !== "passed") throw new Error(`the run ${outcome.status}: ${JSON.stringify(outcome).slice(0, 500)}`);
    const decided = store
      .instances(run, "triage")
      .filter((i) => i.status === "passed" && (i.output as { team?: { provider?: string } }).team?.provider === "s1").length;
    store.close();
    if (decided !== n) throw new Error(`${decided} of ${n} elements were decided by the model`);
    return { rate: n / routeSeconds, seconds, routeSeconds, rssMb, cpuUs: (used.user + used.system) / n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const ri = args.indexOf("--rounds");
  const rounds = ri >= 0 ? Number(args.splice(ri, 2)[1]) : 3;
  const ei = args.indexOf("--engine-only");
  const engineOnly = ei >= 0;
  if (engineOnly) args.splice(ei, 1);
  const ci = args.indexOf("--no-client-only");
  const clientToo = ci < 0;
  if (!clientToo) args.splice(ci, 1);
  const n = Number(args[0] ?? 10000);
  const { url, child } = await startServer();
  try {
    if (!engineOnly) await plainLoop(url, 500); // warm both ends up
    await engineRun(url, 200);
    let plain = { rate: 0, cpuUs: 0 };
    const none = { rate: 0, seconds: 0, routeSeconds: 0, rssMb: 0, cpuUs: 0 };
    let best = none;
    let client = none;
    for (let r = 0; r < rounds; r++) {
      const p = engineOnly ? plain : await plainLoop(url, n);
      if (p.rate > plain.rate) plain = p;
      const e = await engineRun(url, n);
      if (e.rate > best.rate) best = e;
      if (clientToo) {
        const c = await engineRun(url, n, true);
        if (c.rate > client.rate) client = c;
      }
    }
    const share = best.rate / plain.rate;
    const line = (v: typeof best) =>
      `${v.rate.toFixed(0)} decisions/s over the route's ${v.routeSeconds.toFixed(2)} s (${(n / v.seconds).toFixed(0)}/s over the whole run's ${v.seconds.toFixed(2)} s, ${v.rssMb.toFixed(0)} MB RSS; CPU ${v.cpuUs.toFixed(0)} µs per decision, engine + router + provider + store)`;
    console.log(
      `decisions: ${n} route instances, decision_concurrency ${CONCURRENCY}, System One server process at ${url} (best of ${rounds})`,
    );
    if (!engineOnly)
      console.log(`  plain keep-alive loop:   ${plain.rate.toFixed(0)} requests/s (client CPU ${plain.cpuUs.toFixed(0)} µs per request)`);
    console.log(`  switchyard run:          ${line(best)}`);
    if (clientToo)
      console.log(
        `  the same, every request through the official client: ${line(client)}${engineOnly ? "" : `; ${((client.rate / plain.rate) * 100).toFixed(0)} % of the loop`}`,
      );
    if (!engineOnly) console.log(`  share of the plain loop: ${(share * 100).toFixed(0)} %`);
    console.log(
      `  targets: >= 1500 decisions/s ${best.rate >= 1500 ? "met" : "MISSED"}${engineOnly ? "" : `; >= 50 % of the plain loop ${share >= 0.5 ? "met" : "MISSED"}`}`,
    );
  } finally {
    child.kill("SIGTERM");
  }
}

void main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
