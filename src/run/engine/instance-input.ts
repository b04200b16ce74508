// What an instance reads (R-20, M-2, M-3): its input `{"key", "inputs", "statuses"}` built from
// its settled dependencies, the fold a mapped task hands its dependents, and a single field
// reference (a route's `source`, a dynamic option list) as one instance sees it.

import type { FieldRef } from "../../plan/plan.js";
import type { FoldSummary } from "../store/index.js";
import type { InstanceInput } from "../kinds/index.js";
import { UNMAPPED, type TaskState } from "./task-state.js";
import { isPlainObject } from "../values/index.js";
import { CodedError } from "../../shared/coded-error.js";
import { entryOf } from "../../shared/checked-index.js";

/** An instance's input cannot be built (a `keyed` entry or a route source missing): it fails, unretried. */
export class InputError extends CodedError {}

/** A mapped task's fold (M-2, G-7): passed outputs by key, every key's status, and the tally. */
export function taskFold(ts: TaskState): { items: Record<string, unknown>; status: Record<string, string>; summary: FoldSummary } {
  const summary: FoldSummary = {
    total: ts.total ?? 0,
    passed: ts.counts.passed,
    failed: ts.counts.failed,
    not_taken: ts.counts.not_taken,
    blocked: ts.counts.blocked,
  };
  const items: Record<string, unknown> = {};
  const statuses: Record<string, string> = {};
  for (const [k, inst] of ts.inst) {
    if (inst.status === "passed") items[k] = inst.output;
    statuses[k] = inst.status;
  }
  return { items, status: statuses, summary };
}

/** An instance's input: each dependency's output for its key (or whole, when not mapped alike), and its element. */
export function buildInput(ts: TaskState, key: string | null): InstanceInput {
  const k = key ?? UNMAPPED;
  const inputs: Record<string, unknown> = {};
  const settled = ts.plan.join === "settled";
  const statuses: Record<string, string> = {};
  for (const d of ts.deps) {
    if (ts.aligned.includes(d)) {
      const di = d.inst.get(k);
      inputs[d.name] = di?.status === "passed" ? di.output : null;
      if (settled) statuses[d.name] = di ? di.status : d.status;
    } else if (d.mapped) {
      inputs[d.name] = d.fold;
      if (settled) statuses[d.name] = d.status;
    } else {
      const di = d.inst.get(UNMAPPED);
      inputs[d.name] = di?.status === "passed" ? di.output : null;
      if (settled) statuses[d.name] = d.status;
    }
  }
  if (key !== null) {
    for (const ref of ts.plan.keyed) {
      const producer = inputs[ref.task];
      if (!isPlainObject(producer))
        throw new InputError(
          "keyed-missing",
          `${ref.task} did not pass, so ${ref.task}.${ref.field} has no entry for key ${JSON.stringify(key)} (M-3)`,
        );
      const obj = producer[ref.field];
      if (!isPlainObject(obj))
        throw new InputError("keyed-value-not-object", `${ref.task}.${ref.field} is not an object keyed by element (M-3)`);
      if (!Object.hasOwn(obj, key))
        throw new InputError("keyed-missing", `${ref.task}.${ref.field} has no entry for key ${JSON.stringify(key)} (M-3)`);
      inputs[ref.task] = { ...producer, [ref.field]: obj[key] };
    }
  }
  const input: InstanceInput = key !== null ? { key, inputs } : { inputs };
  if (settled) input.statuses = statuses;
  return input;
}

/** Reads `producer.field` as this instance sees it: aligned → own instance; mapped route → entry by key. */
export function readRef(
  ts: TaskState,
  key: string | null,
  ref: FieldRef,
  input: InstanceInput,
  tasks: ReadonlyMap<string, TaskState>,
): unknown {
  const dep = entryOf(tasks, ref.task, "the run's tasks");
  const k = key ?? UNMAPPED;
  if (ts.aligned.includes(dep)) {
    const di = dep.inst.get(k);
    if (!di || di.status !== "passed")
      throw new InputError("route-source-missing", `${ref.task}[${k}] did not pass (${di?.status ?? dep.status}) (T-3)`);
    return isPlainObject(di.output) ? di.output[ref.field] : undefined;
  }
  // Unmapped producer: read through the (possibly keyed-narrowed) input, else the raw output.
  const di = dep.inst.get(UNMAPPED);
  if (!di || di.status !== "passed")
    throw new InputError("route-source-missing", `${ref.task} did not pass (${di?.status ?? dep.status}) (T-3)`);
  const value = isPlainObject(di.output) ? di.output[ref.field] : undefined;
  if (key === null) return value;
  const narrowed = input.inputs[ref.task];
  if (ts.plan.keyed.some((r) => r.task === ref.task && r.field === ref.field) && isPlainObject(narrowed)) return narrowed[ref.field];
  if (!isPlainObject(value))
    throw new InputError("route-source-missing", `${ref.task}.${ref.field} is not an object keyed by element (T-3)`);
  if (!Object.hasOwn(value, key))
    throw new InputError("route-source-missing", `${ref.task}.${ref.field} has no entry for key ${JSON.stringify(key)} (T-3)`);
  return value[key];
}
