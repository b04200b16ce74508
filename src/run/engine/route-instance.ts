// Running one route instance (T-3): an output-decided route turns its source's entry into a
// decision record in the engine; a model-decided one resolves its questions, builds the state
// (R-21) and asks the decision layer (D-1). Either way the outcome is recorded by the engine.

import type { FieldRef, RouteSpec } from "../../plan/plan.js";
import type { Judge, ResolvedQuestion } from "../kinds/index.js";
import type { GroupHooks } from "../process/index.js";
import { DecisionFailure, ReviewNeeded, type DecisionRecord, type ReviewQuestion } from "../kinds/index.js";
import { failedOutcome, type InstanceInput, type Outcome } from "../kinds/index.js";
import { outputDecision, resolveQuestions, RouteError } from "../kinds/index.js";
import { OptionsError } from "../kinds/index.js";
import { InputError, readRef } from "./instance-input.js";
import { UNMAPPED, type TaskState } from "./task-state.js";
import { errorText, isPlainObject } from "../values/index.js";
import { stateJson } from "../kinds/index.js";

/** Where a route read a value, for messages: `task.field`, with `[key]` for an instance of a mapped route. */
function refAt(ref: FieldRef, key: string | null): string {
  return `${ref.task}.${ref.field}${key !== null ? `[${JSON.stringify(key)}]` : ""}`;
}

/** A `decide = "output"` route instance: the label its producer computed, with probability 1. */
export function outputRoute(
  ts: TaskState,
  route: RouteSpec,
  key: string | null,
  input: InstanceInput,
  tasks: ReadonlyMap<string, TaskState>,
): Outcome {
  const source = route.source;
  // The compiler requires a source with decide = "output"; a hand-edited plan may lack it.
  if (!source) return failedOutcome("bad-plan", `route ${ts.name} has decide = "output" but no source; recompile the playbook`);
  try {
    const entry = readRef(ts, key, source, input, tasks);
    return { status: "passed", output: outputDecision(route, entry, refAt(source, key)) };
  } catch (err) {
    if (!(err instanceof RouteError || err instanceof InputError)) throw err;
    return failedOutcome(err.code, err.message);
  }
}

/** What deciding a model route needs: the judge, the run and its limits. */
export interface ModelRouteContext {
  judge: Judge;
  run: string;
  playbook: string;
  tasks: ReadonlyMap<string, TaskState>;
  signal: AbortSignal;
  /** Whether the run was cancelled: a request it aborted is then an interruption, not a failure. */
  cancelled: () => boolean;
  /** The instance's attempt (recorded with shadow pairs). */
  attempt?: number;
  /** Records the process groups the decision starts. */
  groups?: GroupHooks;
}

/**
 * What a model-decided route instance asks (R-21, Q-30 … Q-32): its resolved questions and its
 * state. Shared by the engine and by cassettes, which name a decision by exactly this request.
 */
export function routeRequest(
  ts: TaskState,
  route: RouteSpec,
  key: string | null,
  input: InstanceInput,
  tasks: ReadonlyMap<string, TaskState>,
): { questions: ResolvedQuestion[]; state: Record<string, unknown> } {
  const lists: Record<string, unknown> = {};
  for (const q of route.questions) if (q.dynamic) lists[q.name] = readRef(ts, key, q.dynamic, input, tasks);
  const questions = resolveQuestions(route, lists, (ref) => refAt(ref, key));
  const state: Record<string, unknown> = { ...input };
  if (route.files.length > 0) {
    const files: Record<string, Record<string, unknown>> = {};
    for (const d of ts.deps) {
      const di = ts.aligned.includes(d) ? d.inst.get(key ?? UNMAPPED) : d.mapped ? undefined : d.inst.get(UNMAPPED);
      if (!di || di.status !== "passed" || !isPlainObject(di.output)) continue;
      const have = di.output.files;
      if (!isPlainObject(have)) continue;
      const declared = d.plan.agent?.files ?? d.plan.revise?.body.agent?.files ?? [];
      for (const name of route.files) {
        if (declared.includes(name) && Object.hasOwn(have, name)) (files[d.name] ??= {})[name] = have[name];
      }
    }
    state.files = files;
  }
  return { questions, state };
}

/** Some questions of the instance went to people (D-62): what to record while it waits. */
export interface WaitingOutcome {
  status: "waiting";
  questions: ReviewQuestion[];
  decided: DecisionRecord;
  state: unknown;
}

/** A model-decided route instance (T-3, R-21, Q-30 … Q-32): resolve, then ask the judge. */
export async function decideModelRoute(
  ts: TaskState,
  route: RouteSpec,
  key: string | null,
  input: InstanceInput,
  c: ModelRouteContext,
): Promise<Outcome | WaitingOutcome> {
  let request;
  try {
    request = routeRequest(ts, route, key, input, c.tasks);
  } catch (err) {
    if (err instanceof OptionsError || err instanceof InputError) return failedOutcome(err.code, err.message);
    throw err;
  }
  const { questions, state } = request;
  try {
    const record = await c.judge.judge({
      run: c.run,
      playbook: c.playbook,
      task: ts.name,
      key,
      state,
      state_text: stateJson.input(state),
      questions,
      signal: c.signal,
      ...(c.attempt !== undefined ? { attempt: c.attempt } : {}),
      ...(c.groups ? { groups: c.groups } : {}),
    });
    for (const q of questions) {
      const d = record[q.id];
      if (!d || typeof d.label !== "string") {
        return failedOutcome("decision-failed", `the decision layer returned no answer for question ${q.id}`);
      }
      if (q.resolved_options && !d.options) d.options = q.resolved_options;
    }
    return { status: "passed", output: record };
  } catch (err) {
    if (c.cancelled()) return { status: "interrupted" };
    if (err instanceof ReviewNeeded) return { status: "waiting", questions: err.questions, decided: err.decided, state };
    // What the host spent before it failed is charged with the failed instance, as a failed turn's is.
    if (err instanceof DecisionFailure) return failedOutcome(err.code, err.message, err.usage);
    return failedOutcome("decision-failed", errorText(err));
  }
}
