// Folding a run's event log into what resume needs: the admitted plan and pack snapshot,
// the settings in force, what each task and instance last recorded, the wall-clock time spent by
// earlier invocations and the cost agents reported.

import type { Plan } from "../plan/plan.js";
import type { EventPayloads, Settings } from "./events.js";
import type { Usage } from "./judge.js";
import { RunRefused } from "./run-refused.js";
import type { Store } from "./store.js";
import { UNMAPPED, type Recorded, type TaskRecord } from "./task-state.js";

export interface FoldedRun {
  plan: Plan;
  packDir: string;
  /** The settings last recorded (admission or the latest resume), before this invocation's flags. */
  settings: Settings;
  /** task → key (UNMAPPED for an unmapped task) → what the log says about that instance. */
  recorded: Map<string, Map<string, Recorded>>;
  taskRecords: Map<string, TaskRecord>;
  /** Wall-clock time of every earlier invocation (for max_duration, R-6). */
  priorMs: number;
  /** Cost reported by agents so far (for budget_usd, R-6). */
  spentUsd: number;
}

export function foldEvents(store: Store, run: string): FoldedRun {
  let plan: Plan | undefined;
  let packDir = "";
  let settings: Settings | undefined;
  let invStartMs = 0;
  let lastMs = 0;
  let prior = 0;
  let spent = 0;
  const recorded = new Map<string, Map<string, Recorded>>();
  const rec = (task: string, key: string | null): Recorded => {
    let m = recorded.get(task);
    if (!m) recorded.set(task, (m = new Map()));
    const k = key ?? UNMAPPED;
    let r = m.get(k);
    if (!r) m.set(k, (r = { status: "pending", attempts: 0, rounds: [] }));
    return r;
  };
  const taskRec = new Map<string, TaskRecord>();
  const tr = (t: string) => {
    let x = taskRec.get(t);
    if (!x) taskRec.set(t, (x = {}));
    return x;
  };
  const charge = (u?: Usage) => {
    if (u?.cost_usd) spent += u.cost_usd;
  };
  for (const e of store.events(run)) {
    const t = Date.parse(e.time);
    switch (e.type) {
      case "plan_admitted": {
        const p = e.payload as EventPayloads["plan_admitted"];
        plan = p.plan;
        packDir = p.snapshot.dir;
        settings = p.settings;
        invStartMs = t;
        break;
      }
      case "run_resumed":
        prior += lastMs - invStartMs;
        invStartMs = t;
        settings = (e.payload as EventPayloads["run_resumed"]).settings;
        break;
      case "task_expanded":
        tr(e.task!).expanded = (e.payload as EventPayloads["task_expanded"]).count;
        break;
      case "task_failed":
        tr(e.task!).failed = { code: (e.payload as EventPayloads["task_failed"]).code };
        break;
      case "fold_settled":
      case "task_settled":
        tr(e.task!).settled = (e.payload as EventPayloads["task_settled"]).status;
        break;
      case "instance_started": {
        const r = rec(e.task!, e.key);
        r.status = "running";
        r.attempts = Math.max(r.attempts, (e.payload as EventPayloads["instance_started"]).attempt);
        break;
      }
      case "instance_finished": {
        const p = e.payload as EventPayloads["instance_finished"];
        const r = rec(e.task!, e.key);
        r.status = p.status;
        r.output = p.output;
        r.error = p.error;
        r.code = p.code;
        r.label = undefined;
        r.attempts = Math.max(r.attempts, p.attempt);
        charge(p.usage);
        break;
      }
      case "decision_recorded": {
        const p = e.payload as EventPayloads["decision_recorded"];
        const r = rec(e.task!, e.key);
        r.status = "passed";
        r.output = p.record;
        r.kept = undefined;
        r.attempts = Math.max(r.attempts, p.attempt);
        break;
      }
      case "instance_retried": {
        const p = e.payload as EventPayloads["instance_retried"];
        const r = rec(e.task!, e.key);
        r.status = "pending";
        r.attempts = Math.max(r.attempts, p.attempt);
        charge(p.usage);
        break;
      }
      case "instance_interrupted":
        rec(e.task!, e.key).status = "pending";
        break;
      case "gate_closed": {
        const r = rec(e.task!, e.key);
        r.status = "not_taken";
        r.label = (e.payload as EventPayloads["gate_closed"]).label;
        r.output = undefined;
        break;
      }
      case "instance_reset": {
        const p = e.payload as EventPayloads["instance_reset"];
        const r = rec(e.task!, e.key);
        r.kept = p.keep_decision && p.previous.status === "passed" ? p.previous.output : undefined;
        r.status = "pending";
        r.output = r.error = r.code = r.label = undefined;
        r.rounds = [];
        break;
      }
      case "task_reset": {
        const x = tr(e.task!);
        x.settled = x.failed = undefined;
        break;
      }
      case "pack_refreshed":
        packDir = (e.payload as EventPayloads["pack_refreshed"]).snapshot.dir;
        break;
      case "revise_round": {
        const p = e.payload as EventPayloads["revise_round"];
        const r = rec(e.task!, e.key);
        r.rounds = r.rounds.slice(0, p.round - 1);
        r.rounds.push({ round: p.round, body: p.body, verdict: p.verdict, ...(p.feedback !== undefined ? { feedback: p.feedback } : {}) });
        charge(p.usage);
        break;
      }
    }
    lastMs = t;
  }
  if (!plan || !settings) throw new RunRefused(`unknown-run: no run ${run} in ${store.stateDir}`, "unknown-run");
  return { plan, packDir, settings, recorded, taskRecords: taskRec, priorMs: prior + (lastMs - invStartMs), spentUsd: spent };
}
