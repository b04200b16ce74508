// The producers `switchyard estimate` can run without paying (X-5): the commands and evaluates
// that the lists mapped tasks go over come from, with every task they depend on, when all of
// those are commands or evaluates too and none is gated. They run as a run of their own in a
// scratch state folder that is removed afterwards: no agent turn, no decision, no run in the
// user's state. What they emit gives the real element counts and field sizes.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Plan, TaskPlan } from "../plan/index.js";
import { admitRun, openStore, showRun } from "../run/index.js";
import { launch } from "../api/run-handle.js";
import { wireRun } from "../api/wiring.js";
import { isPlainObject } from "../run/values/index.js";
import { messageOf } from "../shared/thrown.js";

/** What running the producers learnt: outputs of those that passed, and why the others gave nothing. */
export interface ProducerRun {
  /** Unmapped producers that passed → their output. */
  outputs: Map<string, Record<string, unknown>>;
  /** Producer → why its list is not known from a run (not cheap, failed, not a list). */
  unknown: Map<string, string>;
  /** The tasks that were run, in order. */
  ran: string[];
}

/** Why `t` cannot be run for free, or undefined when it can (with every dependency). */
function notCheap(t: TaskPlan, byName: ReadonlyMap<string, TaskPlan>, seen = new Set<string>()): string | undefined {
  if (t.kind !== "command" && t.kind !== "evaluate") return `${t.name} is ${t.kind === "agent" ? "an agent" : `a ${t.kind}`}`;
  if (t.when) return `${t.name} is gated by ${t.when.route}`;
  seen.add(t.name);
  for (const d of t.depends_on) {
    const dep = byName.get(d);
    if (!dep || seen.has(d)) continue;
    const why = notCheap(dep, byName, seen);
    if (why) return `${t.name} depends on ${d}: ${why}`;
  }
  return undefined;
}

/** The producers of the lists mapped tasks go over, split into the ones that can run for free (with their dependencies) and the others with the reason. */
export function cheapProducers(plan: Plan): { run: TaskPlan[]; unknown: Map<string, string> } {
  const byName = new Map(plan.tasks.map((t) => [t.name, t]));
  const producers = [...new Set(plan.tasks.flatMap((t) => (t.over ? [t.over.task] : [])))];
  const unknown = new Map<string, string>();
  const keep = new Set<string>();
  const add = (name: string) => {
    if (keep.has(name)) return;
    keep.add(name);
    for (const d of byName.get(name)?.depends_on ?? []) add(d);
  };
  for (const p of producers) {
    const t = byName.get(p);
    const why = t ? notCheap(t, byName) : `${p} is not a task`;
    if (why) unknown.set(p, why);
    else add(p);
  }
  return { run: plan.tasks.filter((t) => keep.has(t.name)), unknown };
}

/** An error naming a log in the scratch folder (removed afterwards) ends with the log's last line instead. */
function withoutScratchLog(error: string, dir: string): string {
  const m = /\s*\(log: ([^)]*)\)/.exec(error);
  if (!m?.[1]?.startsWith(dir)) return error;
  let last = "";
  try {
    last = readFileSync(m[1], "utf8").trimEnd().split("\n").at(-1) ?? "";
  } catch {
    // The log could not be read: the error is said without it.
  }
  return error.replace(m[0], "") + (last ? `; its log ends: ${last}` : "");
}

/** Runs the cheap producers of `plan` in a scratch state folder that is removed afterwards. */
export async function runProducers(plan: Plan, packRoot: string, configPath: string | undefined): Promise<ProducerRun> {
  const { run: tasks, unknown } = cheapProducers(plan);
  const outputs = new Map<string, Record<string, unknown>>();
  if (tasks.length === 0) return { outputs, unknown, ran: [] };
  const dir = mkdtempSync(join(tmpdir(), "switchyard-estimate-"));
  const store = openStore(undefined, dir);
  try {
    const wiring = wireRun({ configPath, stateDir: dir, store, overrides: {}, decide: {} });
    const sub: Plan = { ...plan, tasks };
    const id = admitRun(store, { plan: sub, packDir: packRoot, sourcePath: packRoot });
    await (
      await launch(store, id, { resume: false, wiring })
    ).done;
    const shown = showRun(store, id);
    for (const t of tasks) {
      const task = shown?.tasks[t.name];
      if (task && task.status === "passed" && !task.mapped && isPlainObject(task.output)) outputs.set(t.name, task.output);
      else if (unknown.get(t.name) === undefined && plan.tasks.some((m) => m.over?.task === t.name))
        unknown.set(t.name, `${t.name} ${task?.status ?? "did not run"}${task?.error ? `: ${withoutScratchLog(task.error, dir)}` : ""}`);
    }
  } catch (err) {
    for (const t of tasks)
      if (!outputs.has(t.name) && plan.tasks.some((m) => m.over?.task === t.name))
        unknown.set(t.name, `${t.name} could not be run: ${messageOf(err)}`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { outputs, unknown, ran: tasks.map((t) => t.name) };
}
