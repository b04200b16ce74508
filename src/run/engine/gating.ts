// Whether an instance runs (G-1 … G-6), decided at its task's expansion from its dependencies'
// statuses — per key on aligned edges, per task otherwise — and its gate; and closing the ones
// that will not run as `not_taken` or `blocked`, recording only what the log does not already say.

import { UNCERTAIN } from "../../plan/plan.js";
import type { EventPayloads, EventType } from "../store/index.js";
import type { DecisionRecord } from "../kinds/index.js";
import { UNMAPPED, type Inst, type TaskState } from "./task-state.js";
import { entryOf } from "../../shared/checked-index.js";

/**
 * Why an instance will not run. `reason` is wording for people; what the outcome *is* — its
 * status and label, or its status and code — is what resume compares with the log (R-4).
 */
export type Disposition =
  { status: "not_taken"; label?: string; reason: string } | { status: "blocked"; code: BlockedCode; reason: string };

/** Why an instance is blocked: a dependency failed or was blocked (G-5), or its gate has no answer (G-1, G-2). */
export type BlockedCode = "dependency-failed" | "gate-unanswered";

/** Appends one event to the run's log. */
export type Emit = <T extends EventType>(type: T, task: string | null, key: string | null, payload: EventPayloads[T]) => void;

/**
 * Disposition shared by every instance: only when the task has no aligned dependency and its
 * gate (if any) is on an unmapped route; then one answer serves all keys.
 */
export function sharedDisposition(ts: TaskState, tasks: ReadonlyMap<string, TaskState>): Disposition | null | undefined {
  if (ts.aligned.length > 0) return undefined;
  const w = ts.plan.when;
  if (w && entryOf(tasks, w.route, "the run's tasks").mapped) return undefined;
  return disposition(ts, null, tasks);
}

/** Why an instance will not run (not taken or blocked), or null if it runs. */
export function disposition(ts: TaskState, key: string | null, tasks: ReadonlyMap<string, TaskState>): Disposition | null {
  const k = key ?? UNMAPPED;
  if (ts.plan.join === "all") {
    // G-5: not taken wins over failed/blocked.
    let blocked: string | null = null;
    for (const d of ts.deps) {
      const aligned = ts.aligned.includes(d);
      const di = aligned ? d.inst.get(k) : undefined;
      const st = di ? di.status : d.status;
      if (st === "not_taken") {
        const label = di ? di.label : d.mapped ? d.label : (d.inst.get(UNMAPPED)?.label ?? d.label);
        return { status: "not_taken", label, reason: `dependency ${d.name}${aligned ? `[${k}]` : ""} was not taken (G-5)` };
      }
      if ((st === "failed" || st === "blocked") && blocked === null) blocked = `dependency ${d.name}${aligned ? `[${k}]` : ""} ${st} (G-5)`;
    }
    if (blocked) return { status: "blocked", code: "dependency-failed", reason: blocked };
  } else if (ts.aligned.length > 0 && key !== null) {
    // G-6: an element untaken on every aligned dependency stays untaken down its chain.
    let label: string | undefined;
    let all = true;
    for (const d of ts.aligned) {
      const di = d.inst.get(k);
      if ((di ? di.status : d.status) !== "not_taken") {
        all = false;
        break;
      }
      label ??= di ? di.label : d.label;
    }
    if (all) return { status: "not_taken", label, reason: "every aligned dependency was not taken for this key (G-6)" };
  }
  const w = ts.plan.when;
  if (w) {
    const route = entryOf(tasks, w.route, "the run's tasks");
    if (route.mapped && key === null)
      return { status: "blocked", code: "gate-unanswered", reason: `gate on mapped route ${w.route} from an unmapped task (G-2)` };
    const ri = route.mapped ? route.inst.get(k) : route.inst.get(UNMAPPED);
    if (!ri) return { status: "blocked", code: "gate-unanswered", reason: `route ${w.route} has no instance for key ${k} (G-2)` };
    if (ri.status === "not_taken") return { status: "not_taken", label: ri.label, reason: `gate route ${w.route} was not taken (G-5)` };
    if (ri.status !== "passed")
      return {
        status: "blocked",
        code: "gate-unanswered",
        reason: `gate route ${w.route}${route.mapped ? `[${k}]` : ""} ${ri.status}; its answer is unknown (G-1)`,
      };
    const answer = (ri.output as DecisionRecord | undefined)?.[w.question];
    const label = answer?.label;
    if (typeof label !== "string")
      return { status: "blocked", code: "gate-unanswered", reason: `route ${w.route} recorded no answer to ${w.question} (G-1)` };
    const open = w.labels.includes(label) || (w.any_option && label !== UNCERTAIN);
    if (!open) return { status: "not_taken", label, reason: `gate closed: ${w.route}.${w.question} answered ${label} (G-1)` };
  }
  return null;
}

/** Ends an instance that will not run; an event the log already holds (resume) is not written again. */
export function closeInstance(ts: TaskState, inst: Inst, d: Disposition, emit: Emit): void {
  const rec = inst.rec;
  if (d.status === "not_taken") {
    inst.label = d.label;
    if (!(rec?.status === "not_taken" && rec.label === d.label)) {
      emit("gate_closed", ts.name, inst.key, { ...(d.label !== undefined ? { label: d.label } : {}), reason: d.reason });
    }
  } else {
    inst.error = d.reason;
    // A blocked record without a code was written before blocked outcomes had codes: same status, same outcome.
    if (!(rec?.status === "blocked" && (rec.code === undefined || rec.code === d.code))) {
      emit("instance_finished", ts.name, inst.key, { attempt: inst.attempts, status: "blocked", error: d.reason, code: d.code });
    }
  }
  ts.setStatus(inst, d.status);
}
