// Clearing part of a run so that it runs again (as Airflow's `tasks clear`). A rerun
// appends events — `rerun_requested`, then `instance_reset` per cleared instance and `task_reset`
// per task whose fold must settle again, and `pack_refreshed` for a new snapshot — and the run is
// then resumed by the ordinary engine, which folds those events like any others. Nothing is
// edited or deleted: the log keeps every earlier answer beside the new one, and the projections
// are rebuilt from it as always.
//
// What is cleared: the chosen instances of the named tasks (all, the given keys, or the failed
// ones) and, with `downstream`, everything that read them — per element along aligned edges, the
// whole task where a fold or an unmapped output was read. A model-decided route named by `--task`
// is asked again only with `redecide`; one reached only downstream keeps its recorded decision,
// which is reused if its gate is still open (an element is asked once per attempt of the run's
// decision, never because something upstream ran again).

import type { Plan, TaskPlan } from "../../plan/plan.js";
import { nearestName } from "../../lang/diagnostic.js";
import type { EventPayloads, RerunRequest } from "../store/index.js";
import { isTerminal } from "../store/index.js";
import { foldEvents, type FoldedRun } from "./fold-events.js";
import { RunNotFound } from "../store/index.js";
import type { Store } from "../store/index.js";
import { UNMAPPED, type Recorded } from "./task-state.js";
import { CodedError } from "../../shared/coded-error.js";

/** A rerun asked for something the run does not have, or that would break a rule. */
export class RerunError extends CodedError {}

/** One instance a rerun resets: asked for, or downstream of one; whether its decision is kept; and its result before. */
export interface InstanceReset {
  task: string;
  /** null for an unmapped task's instance. */
  key: string | null;
  reason: "rerun" | "downstream";
  keepDecision: boolean;
  previous: Recorded;
}

/** What a rerun does: the instances it resets and the tasks it reopens. */
export interface RerunPlan {
  resets: InstanceReset[];
  /** Tasks whose settled status is cleared (every task with a reset, and whole-task resets). */
  tasks: string[];
  /** Dependents left as they are because `downstream` was not asked for. */
  untouchedDependents: string[];
}

const isModelRoute = (t: TaskPlan) => t.kind === "route" && t.route?.decide === "model";

/** Works out what a rerun clears, from the run's log; throws RerunError for a bad request. */
export function planRerun(store: Store, run: string, req: RerunRequest): RerunPlan {
  const folded = foldEvents(store, run);
  const plan = folded.plan;
  const named = requestedTasks(plan, folded, run, req);
  const resets = new Resets(req);
  for (const t of named) chooseRequested(t, folded, req, resets);
  const { reached, untouched } = reachDependents(plan, req, resets);
  if (req.downstream) {
    for (const t of plan.tasks) {
      if (req.tasks.includes(t.name)) continue;
      const keys = reached.get(t.name);
      if (keys === undefined) continue;
      if (keys === "all") resets.wholeTasks.add(t.name);
      for (const [k, r] of folded.recorded.get(t.name) ?? []) if (keys === "all" || keys.has(k)) resets.add(t, k, r, "downstream");
    }
  }
  const out: InstanceReset[] = [];
  const tasks: string[] = [];
  for (const t of plan.tasks) {
    const m = resets.chosen.get(t.name);
    if (m) out.push(...[...m.values()].sort((a, b) => ((a.key ?? "") < (b.key ?? "") ? -1 : 1)));
    if (m || resets.wholeTasks.has(t.name)) tasks.push(t.name);
  }
  return { resets: out, tasks, untouchedDependents: [...untouched].filter((n) => !resets.chosen.has(n)) };
}

/** The tasks a request names, checked: at least one, each in the plan, and `--key` only on mapped tasks with those keys. */
function requestedTasks(plan: Plan, folded: FoldedRun, run: string, req: RerunRequest): TaskPlan[] {
  const byName = new Map(plan.tasks.map((t) => [t.name, t]));
  const allNames = () => `tasks: ${plan.tasks.map((t) => t.name).join(", ")}`;
  if (req.tasks.length === 0) throw new RerunError("usage", "say which task to run again with --task TASK", { hint: allNames() });
  const named = req.tasks.map((name) => {
    const t = byName.get(name);
    if (t) return t;
    const near = nearestName(name, byName.keys());
    throw new RerunError("usage", `run ${run} has no task ${name}`, { hint: near ? `did you mean ${near}?` : allNames() });
  });
  if (!req.keys.length) return named;
  const unmapped = named.filter((t) => !t.over).map((t) => t.name);
  if (unmapped.length)
    throw new RerunError(
      "usage",
      `--key selects elements of mapped tasks, but ${unmapped.join(", ")} ${unmapped.length > 1 ? "are" : "is"} not mapped`,
      { hint: "leave out --key to run an unmapped task again" },
    );
  const known = new Set<string>();
  for (const n of req.tasks) for (const k of folded.recorded.get(n)?.keys() ?? []) known.add(k);
  for (const k of req.keys) {
    if (!known.has(k)) {
      const near = nearestName(k, known);
      throw new RerunError("usage", `no instance of ${req.tasks.join(", ")} has the key ${k}`, {
        hint: near ? `did you mean ${near}?` : "keys are the elements of the task's `over` list; see `switchyard show RUN --task TASK`",
      });
    }
  }
  return named;
}

/** The instances a rerun resets so far, per task and key, and the tasks reset whole. */
class Resets {
  /** Task name → key → its reset. */
  readonly chosen = new Map<string, Map<string, InstanceReset>>();
  readonly wholeTasks = new Set<string>();

  constructor(private readonly req: RerunRequest) {}

  /** Resets one finished instance (once); pending or running ones run on resume anyway. */
  add(t: TaskPlan, k: string, r: Recorded, reason: InstanceReset["reason"]): void {
    if (!isTerminal(r.status)) return;
    let m = this.chosen.get(t.name);
    if (!m) this.chosen.set(t.name, (m = new Map()));
    if (m.has(k)) return;
    const keepDecision = isModelRoute(t) && !(reason === "rerun" && this.req.redecide);
    m.set(k, { task: t.name, key: k === UNMAPPED ? null : k, reason, keepDecision, previous: r });
  }
}

/** The instances of a named task that the request selects (all, the given keys, or the failed ones). */
function chooseRequested(t: TaskPlan, folded: FoldedRun, req: RerunRequest, resets: Resets): void {
  const name = t.name;
  for (const [k, r] of folded.recorded.get(name) ?? new Map<string, Recorded>()) {
    if (req.keys.length && !req.keys.includes(k)) continue;
    if (req.failed && r.status !== "failed") continue;
    if (isModelRoute(t) && r.status === "passed" && !req.redecide) {
      throw new RerunError(
        "usage",
        `${name} is a model-decided route and its decisions are recorded; they are kept unless you ask for them again`,
        { hint: `add --redecide to ask ${name} again (the record keeps the earlier answer beside the new one)` },
      );
    }
    resets.add(t, k, r, "rerun");
  }
  if (!req.keys.length && !req.failed) resets.wholeTasks.add(name);
  else if (folded.taskRecords.get(name)?.failed && !req.keys.length) resets.wholeTasks.add(name);
}

/**
 * The keys each dependent is reached at ("all" for the whole task), walked in plan order (a
 * topological order): per element along aligned edges, the whole task otherwise. Without
 * `downstream`, the dependents are only listed as left untouched.
 */
function reachDependents(
  plan: Plan,
  req: RerunRequest,
  resets: Resets,
): { reached: Map<string, Set<string> | "all">; untouched: Set<string> } {
  const dependents = new Map<string, TaskPlan[]>();
  for (const t of plan.tasks)
    for (const d of t.depends_on) {
      const list = dependents.get(d);
      if (list) list.push(t);
      else dependents.set(d, [t]);
    }
  const untouched = new Set<string>();
  const reached = new Map<string, Set<string> | "all">();
  for (const name of req.tasks) reached.set(name, req.keys.length || req.failed ? new Set(resets.chosen.get(name)?.keys() ?? []) : "all");
  for (const t of plan.tasks) {
    const keys = reached.get(t.name);
    if (keys === undefined) continue;
    if (keys !== "all" && keys.size === 0 && !resets.wholeTasks.has(t.name)) continue;
    for (const d of dependents.get(t.name) ?? []) {
      if (!req.downstream) {
        untouched.add(d.name);
        continue;
      }
      const aligned = !!d.over && !!t.over && d.aligned_with.includes(t.name);
      const next: Set<string> | "all" = aligned ? keys : "all";
      const before = reached.get(d.name);
      if (before === "all") continue;
      if (next === "all") reached.set(d.name, "all");
      else reached.set(d.name, new Set([...(before ?? []), ...next]));
    }
  }
  return { reached, untouched };
}

/** The playbook's plan without what does not change what runs (compiler version, positions, the pack digest). */
function planShape(p: Plan): string {
  return JSON.stringify({
    playbook: p.playbook,
    source_file: p.source_file,
    settings: p.settings,
    tasks: p.tasks.map(({ declared_at: _, ...rest }) => rest),
  });
}

/** Whether a freshly compiled plan runs the same tasks as the run's own (so a refreshed pack may be used). */
export function samePlan(recorded: Plan, fresh: Plan): boolean {
  return planShape(recorded) === planShape(fresh);
}

/** Appends the rerun's events and commits them; the run is then resumed. */
export function recordRerun(store: Store, run: string, req: RerunRequest, p: RerunPlan, refreshed?: EventPayloads["pack_refreshed"]): void {
  store.append(run, "rerun_requested", null, null, { ...req, reset: p.resets.length, pid: process.pid });
  if (refreshed) store.append(run, "pack_refreshed", null, null, refreshed);
  for (const r of p.resets) {
    const prev = r.previous;
    const previous: EventPayloads["instance_reset"]["previous"] = {
      status: prev.status,
      attempts: prev.attempts,
      ...(prev.output !== undefined ? { output: prev.output } : {}),
      ...(prev.error !== undefined ? { error: prev.error } : {}),
      ...(prev.label !== undefined ? { label: prev.label } : {}),
    };
    store.append(run, "instance_reset", r.task, r.key, { reason: r.reason, previous, ...(r.keepDecision ? { keep_decision: true } : {}) });
  }
  for (const t of p.tasks) store.append(run, "task_reset", t, null, { reason: req.tasks.includes(t) ? "rerun" : "downstream" });
  store.flush();
}

/** What the run was admitted with: its plan, the path the person ran and the pack folder copied. */
export function foldRunPlan(store: Store, run: string): { plan: Plan; sourcePath: string; packSource: string } {
  for (const e of store.events(run)) {
    if (e.type !== "plan_admitted") break;
    const p = e.payload;
    return { plan: p.plan, sourcePath: p.source_path, packSource: p.snapshot.source };
  }
  throw new RunNotFound("unknown-run", `no run ${run} in ${store.stateDir}`);
}
