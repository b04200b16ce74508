// Golden event logs: small runs recorded once and committed under test/fixtures/logs/.
// Every later version must fold each log to the same records and resume it without recording
// anything about a task or an instance — the replay guarantee Temporal tests with recorded
// histories. This module reads and normalises them; `node dist/test/support/golden-logs.js
// record` records the logs listed in RECORDINGS that do not exist yet. Never re-record an existing
// log to make a test pass: a log that no longer folds the same is the regression it exists to catch.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import { recordRerun, planRerun, type Store } from "../../src/run/index.js";
import type { StoredEvent } from "../../src/run/store/events.js";
import { FakeJudge } from "../run/fake-judge.js";
import {
  agent,
  choice,
  command,
  evaluate,
  harness,
  mapped,
  modelRoute,
  plan,
  ref,
  resumePlan,
  runPlan,
  runner,
  when,
  writeJson,
  type Harness,
} from "../run/helpers.js";

export const LOGS_DIR = join("test", "fixtures", "logs");

/** One stored log: the run id and its events as the events table holds them. */
export interface GoldenLog {
  run: string;
  events: StoredEvent[];
}

export function readLog(name: string): GoldenLog {
  const lines = readFileSync(join(LOGS_DIR, `${name}.events.jsonl`), "utf8")
    .trim()
    .split("\n");
  const events = lines.map((l) => JSON.parse(l) as StoredEvent & { run: string });
  return { run: events[0]!.run, events: events.map(({ run: _, ...e }) => e) };
}

/** Writes a log's events into a store as they were committed (then its projections are rebuilt). */
export function loadLog(store: Store, log: GoldenLog): void {
  const insert = { sqlite: "INSERT INTO events (run, seq, time, type, task, key, payload) VALUES (?, ?, ?, ?, ?, ?, ?)" };
  for (const e of log.events) store.exec(insert, [log.run, e.seq, e.time, e.type, e.task, e.key, e.payload]);
  store.rebuild(log.run);
}

/** What resume folds from a log, as plain JSON (maps as objects, keys in order). */
export function foldedRecords(store: Store, run: string): unknown {
  const f = foldEvents(store, run);
  const sorted = <V>(m: Map<string, V>, map: (v: V) => unknown) => Object.fromEntries([...m.keys()].sort().map((k) => [k, map(m.get(k)!)]));
  return JSON.parse(
    JSON.stringify({
      packDir: f.packDir,
      settings: f.settings,
      priorMs: f.priorMs,
      spentUsd: f.spentUsd,
      tasks: sorted(f.taskRecords, (r) => r),
      instances: sorted(f.recorded, (m) => sorted(m, (r) => r)),
    }),
  );
}

/** The projections (runs, tasks, instances rows) of a run. */
export function projection(store: Store, run: string): unknown {
  return {
    run: store.select({ sqlite: "SELECT * FROM runs WHERE run = ?" }, [run]),
    tasks: store.select({ sqlite: "SELECT * FROM tasks WHERE run = ? ORDER BY task" }, [run]),
    instances: store.select({ sqlite: "SELECT * FROM instances WHERE run = ? ORDER BY task, key" }, [run]),
  };
}

const AGENT = `#!/bin/sh
cat > /dev/null
printf '{"cost_usd": 0.01, "input_tokens": 3}' > "$SWITCHYARD_USAGE"
printf '{"key":"%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT"
`;

/** The recorded runs: each returns the run id whose log is kept. */
export const RECORDINGS: Record<string, (h: Harness) => Promise<string>> = {
  // A model route per element, a gate that closes for some, a settled join over the fan-out.
  "gated-fanout": async (h) => {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("triage", [choice("severity", ["high", "low"], { drop: ["low"] })], { depends_on: ["prepare"], ...m }),
      evaluate("fix", { depends_on: ["triage"], ...m, when: when("triage", "severity", ["high", "uncertain"]) }),
      evaluate("report", { depends_on: ["fix"], join: "settled" }),
    ]);
    const judge = new FakeJudge((key) => (key === "b" || key === "d" ? "low" : "high"));
    const fns = {
      prepare: () => ({ members: ["a", "b", "c", "d"] }),
      fix: (i: { key: string }) => ({ fixed: i.key }),
      report: () => ({ done: true }),
    };
    return (await runPlan(h, p, { judge, fns })).run;
  },
  // Agents that report cost, a command retried once, a ceiling reached and a resume past it.
  "agents-budget-retry": async (h) => {
    const marker = join(h.dir.path, "flaky-marker");
    const p = plan(
      [
        command("prepare", writeJson({ members: ["a", "b", "c"] }), { emits: { members: "list" } }),
        agent("turn", "look at {{key}}", { depends_on: ["prepare"], ...mapped(ref("prepare", "members")) }),
        command("flaky", `if [ -f '${marker}' ]; then ${writeJson({ ok: true })}; else touch '${marker}'; exit 3; fi`, {
          depends_on: ["turn"],
          retries: 1,
        }),
      ],
      { concurrency: 1, budget_usd: 0.015 },
    );
    const agentRunners = runner("default", [h.dir.file("agent.sh", AGENT, 0o755)]);
    const first = await runPlan(h, p, { agentRunners });
    if (first.outcome.status !== "stopped") throw new Error(`expected a stopped run, got ${first.outcome.status}`);
    const second = await resumePlan(h, first.run, { agentRunners, overrides: { budget_usd: 1 } });
    if (second.outcome.status !== "passed") throw new Error(`expected a passed resume, got ${second.outcome.status}`);
    return first.run;
  },
  // A finished run rerun for one element (its decision re-asked), then resumed to the end.
  "rerun-element": async (h) => {
    const m = mapped(ref("prepare", "members"));
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("triage", [choice("severity", ["high", "low"])], { depends_on: ["prepare"], ...m }),
      evaluate("fix", { depends_on: ["triage"], ...m, when: when("triage", "severity", ["high"]) }),
    ]);
    let asked = 0;
    const judge = new FakeJudge((key) => (key === "b" && asked++ > 0 ? "high" : key === "b" ? "low" : "high"));
    const fns = { prepare: () => ({ members: ["a", "b"] }), fix: (i: { key: string }) => ({ fixed: i.key }) };
    const { run } = await runPlan(h, p, { judge, fns });
    const req = { tasks: ["triage"], keys: ["b"], failed: false, downstream: true, redecide: true, refresh_pack: false };
    recordRerun(h.store, run, req, planRerun(h.store, run, req));
    const again = await resumePlan(h, run, { judge, fns });
    if (again.outcome.status !== "passed") throw new Error(`expected a passed rerun, got ${again.outcome.status}`);
    return run;
  },
};

/** Judges and evaluators that fail if resume ever asks or runs anything. */
export function refusingJudge(): FakeJudge {
  return new FakeJudge(() => new Error("a golden log's resume asked for a decision"));
}

async function record(): Promise<void> {
  mkdirSync(LOGS_DIR, { recursive: true });
  for (const [name, make] of Object.entries(RECORDINGS)) {
    const file = join(LOGS_DIR, `${name}.events.jsonl`);
    if (existsSync(file)) continue;
    const h = harness();
    try {
      const run = await make(h);
      h.store.flush();
      const rows = h.store.select({ sqlite: "SELECT run, seq, time, type, task, key, payload FROM events WHERE run = ? ORDER BY seq" }, [
        run,
      ]);
      writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      const log = readLog(name);
      writeFileSync(
        join(LOGS_DIR, `${name}.expected.json`),
        JSON.stringify({ folded: foldedRecords(h.store, log.run), projection: projection(h.store, log.run) }, null, 2) + "\n",
      );
      process.stdout.write(`recorded ${file} (${rows.length} events)\n`);
    } finally {
      h.store.close();
      h.dir.cleanup();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "record") await record();
