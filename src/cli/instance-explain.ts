// `switchyard explain RUN TASK[KEY]` (and `show RUN --why TASK[KEY]`): why an instance is in its
// state, in words, the way `kubectl describe` reads — its dependencies and their states, the gate
// with the label, confidence and threshold that opened or closed it, each attempt and how it
// ended, the ceilings that bound it, and what reruns cleared. Everything is read from the run's
// recorded plan and event log; nothing is written.

import type { Plan, TaskPlan } from "../plan/plan.js";
import { decodeEvent, runView, type RunEvent, type Store } from "../run/index.js";
import type { QuestionDecision, Settings, StoredEvent } from "../run/store/index.js";
import { formatElapsed } from "./run-lookup.js";
import { instanceOf } from "./instance-spec.js";
import { describeDecisions, isDecision, isDecisionRecord } from "./decision-text.js";
import { isPlainObject } from "../shared/primitives.js";
import { forPeople } from "./words.js";
import { appliedThreshold, questionThreshold } from "../ui/decisions.js";

/** What the explanation reads: the run's plan and settings, and the instance's events. */
interface Context {
  store: Store;
  run: string;
  plan: Plan;
  settings: Settings;
  task: TaskPlan;
  key: string | null;
  events: RunEvent[];
}

/** The explanation of one instance as lines of text, sections titled kubectl-style. */
export function explainInstance(store: Store, run: string, spec: string): string[] {
  const { inst } = instanceOf(store, run, spec);
  const admitted = runView.admittedPayload(store, run);
  const payload = admitted ? (JSON.parse(admitted) as { plan: Plan; settings: Settings }) : undefined;
  const task = payload?.plan.tasks.find((t) => t.name === inst.task);
  if (!payload || !task) return [`${spec}: ${inst.status} (the run's plan is not in its log)`];
  const events = runView.instanceEvents(store, run, inst.task, inst.key).map((r) => decodeEvent(run, r as StoredEvent));
  const cx: Context = { store, run, plan: payload.plan, settings: payload.settings, task, key: inst.key, events };
  const row = store.run(run);
  const out = [
    `Instance:      ${spec}`,
    `Run:           ${run} (${row?.playbook ?? payload.plan.playbook}, ${row?.status ?? "?"})`,
    `Task:          ${describeTask(task)}`,
    `Status:        ${inst.status}${inst.attempts > 0 ? ` after ${inst.attempts} attempt${inst.attempts === 1 ? "" : "s"}` : ""}`,
  ];
  const why = reason(cx, inst.status, inst.error);
  if (why) out.push(`${inst.status === "failed" ? "Error" : "Reason"}:${" ".repeat(inst.status === "failed" ? 9 : 8)}${why}`);
  out.push("", ...dependencies(cx), ...gate(cx), ...decision(cx, inst.output), ...attempts(cx), ...ceilings(cx), ...resets(cx));
  return out;
}

function describeTask(t: TaskPlan): string {
  const over = t.over ? `, mapped over ${t.over.task}.${t.over.field} (max_fanout ${t.max_fanout})` : "";
  return `${t.kind}${over}, join ${t.join}, declared at ${t.declared_at.file}:${t.declared_at.line}`;
}

/** Why it is not passed: the last gate_closed's reason, a blocked or failed attempt's error. */
function reason(cx: Context, status: string, error: string | null): string | undefined {
  if (status === "passed" || status === "running" || status === "pending") return undefined;
  for (const e of [...cx.events].reverse()) {
    if (e.type === "gate_closed") return forPeople(`${e.payload.reason}${e.payload.label ? ` (label ${e.payload.label})` : ""}`);
    if (e.type === "instance_finished" && e.payload.error) return forPeople(withCode(e.payload.error, e.payload.code));
  }
  return error ? forPeople(error) : undefined;
}

function withCode(error: string, code: string | undefined): string {
  return code && !error.startsWith(`${code}:`) ? `error[${code}]: ${error}` : error.replace(/^([a-z][a-z0-9-]*): /, "error[$1]: ");
}

/** Each direct dependency and its state: its own instance for this key when aligned, else its fold. */
function dependencies(cx: Context): string[] {
  if (cx.task.depends_on.length === 0) return ["Dependencies:  none"];
  const out = [
    `Dependencies (join ${cx.task.join}: ${cx.task.join === "all" ? "runs when every one passed" : "runs once every one settled"}):`,
  ];
  const tasks = new Map(cx.store.tasks(cx.run).map((t) => [t.task, t]));
  for (const d of cx.task.depends_on) {
    const row = tasks.get(d);
    if (cx.task.aligned_with.includes(d) && cx.key !== null) {
      const i = cx.store.instances(cx.run, d).find((x) => x.key === cx.key);
      out.push(
        `  ${d}[${cx.key}]`.padEnd(24) +
          `${i?.status ?? "not reached"}${i?.label ? ` (label ${i.label})` : ""}  (aligned: this key's instance)`,
      );
    } else if (row?.mapped) {
      const s = row.summary as { passed?: number; failed?: number; not_taken?: number; blocked?: number } | null;
      const counts = s
        ? ` (${s.passed ?? 0} passed, ${s.failed ?? 0} failed, ${s.not_taken ?? 0} not_taken, ${s.blocked ?? 0} blocked)`
        : "";
      out.push(`  ${d}`.padEnd(24) + `${row.status}${counts}  (mapped: its fold)`);
    } else out.push(`  ${d}`.padEnd(24) + `${row?.status ?? "not reached"}`);
  }
  return out;
}

/** The gate (`when`): the route's answer for this key, its confidence against the threshold, and whether it opened. */
function gate(cx: Context): string[] {
  const w = cx.task.when;
  if (!w) return [];
  const opens = w.any_option ? "any resolved option" : w.labels.join(", ");
  const out = [
    "",
    `Gate:          ${w.route}.${w.question}, opens on ${opens}${w.otherwise ? " (otherwise: every label no other task takes)" : ""}`,
  ];
  const route = cx.store.tasks(cx.run).find((t) => t.task === w.route);
  const inst = cx.store.instances(cx.run, w.route).find((i) => i.key === (route?.mapped ? cx.key : null));
  if (!inst || inst.status !== "passed") {
    out.push(`  the route's instance is ${inst?.status ?? "not reached"}: no answer${inst?.label ? ` (label ${inst.label})` : ""}`);
    return out;
  }
  const answer = isPlainObject(inst.output) ? inst.output[w.question] : undefined;
  const d = isDecision(answer) ? answer : undefined;
  if (!d) return [...out, `  the route recorded no answer to ${w.question}`];
  const open = w.any_option || w.labels.includes(d.label);
  out.push(`  answered ${d.label}: ${answerWords(d, questionThreshold(cx.plan, w.route, w.question))}`);
  out.push(`  so the gate ${open ? "opened" : "closed"}`);
  return out;
}

/**
 * A question's answer in words: confidence against the threshold applied, the top label, who
 * answered, calibration and audit. `playbook` is the playbook's threshold (undefined: not asked of
 * a model); the record's own wins (a machine config's min_confidence for the type, D-33).
 */
export function answerWords(d: QuestionDecision, playbook: number | undefined): string {
  const parts: string[] = [];
  const conf = d.confidence.toFixed(2);
  const min = appliedThreshold(d, playbook)?.min;
  if (min !== undefined && playbook !== undefined && d.mode !== "output") {
    const whose = min === playbook ? "" : ` (the machine config's for ${d.judgement_type}; the playbook's is ${playbook.toFixed(2)})`;
    parts.push(`confidence ${conf} ${d.confidence < min ? "<" : "≥"} min_confidence ${min.toFixed(2)}${whose}`);
  } else parts.push(`confidence ${conf}`);
  const top = Object.entries(d.probabilities).sort((a, b) => b[1] - a[1])[0];
  if (d.label === "uncertain" && top && !d.refused) parts.push(`the most likely label was ${top[0]} (${top[1].toFixed(2)})`);
  if (d.refused) parts.push("the model refused");
  parts.push(d.mode === "output" ? "read from an output" : `${d.mode} ${d.provider ?? "?"}/${d.model ?? "?"}`);
  if (d.raw_confidence !== undefined) parts.push(`raw confidence ${d.raw_confidence.toFixed(2)} calibrated by ${d.calibration ?? "?"}`);
  if (d.audit) parts.push(`audited: the host answered ${d.audit.host_label}`);
  if (d.receipt) parts.push(`${d.receipt.provider}/${d.receipt.model} could not answer (${d.receipt.reason}); the host did`);
  return parts.join("; ");
}

/** A route instance's own decision, per question. */
function decision(cx: Context, output: unknown): string[] {
  if (cx.task.kind !== "route" || !isDecisionRecord(output) || !describeDecisions(output)) return [];
  const out = ["", "Decision:"];
  for (const [q, d] of Object.entries(output))
    out.push(`  ${q} = ${d.label}: ${answerWords(d, questionThreshold(cx.plan, cx.task.name, q))}`);
  return out;
}

/** Each attempt: when it started, how long it took, how it ended. */
function attempts(cx: Context): string[] {
  const out: string[] = [];
  let started: { attempt: number; time: string } | undefined;
  const end = (attempt: number, time: string, how: string) => {
    const ms = started?.attempt === attempt ? Date.parse(time) - Date.parse(started.time) : undefined;
    out.push(`  ${attempt}  ${time}${ms !== undefined ? ` (${ms < 1000 ? `${ms}ms` : formatElapsed(ms)})` : ""}  ${how}`);
    started = undefined;
  };
  for (const e of cx.events) {
    if (e.type === "instance_started") started = { attempt: e.payload.attempt, time: e.time };
    else if (e.type === "instance_retried")
      end(
        e.payload.attempt,
        e.time,
        `failed, retried after ${e.payload.delay_ms}ms: ${forPeople(withCode(e.payload.error, e.payload.code))}`,
      );
    else if (e.type === "instance_interrupted")
      end(e.payload.attempt, e.time, "interrupted (the run was cancelled or stopped); runs again on resume");
    else if (e.type === "revise_round") out.push(`     round ${e.payload.round}: the reviewer said ${e.payload.verdict}`);
    else if (e.type === "decision_recorded")
      end(e.payload.attempt, e.time, e.payload.reused ? "passed: a kept decision reused" : "passed: decided");
    else if (e.type === "instance_finished" && e.payload.attempt > 0)
      end(
        e.payload.attempt,
        e.time,
        e.payload.error ? `${e.payload.status}: ${forPeople(withCode(e.payload.error, e.payload.code))}` : e.payload.status,
      );
  }
  if (started) out.push(`  ${started.attempt}  ${started.time}  running`);
  return out.length ? ["", "Attempts:", ...out] : ["", "Attempts:      none (it never ran)"];
}

/** The ceilings that bound it: per attempt, retries, and the run's wall clock and budget (and which one stopped the run). */
function ceilings(cx: Context): string[] {
  const t = cx.task;
  const s = cx.settings;
  const rounds = t.revise ? `, at most ${t.revise.max_rounds} rounds per attempt` : "";
  const out = [
    "",
    "Ceilings:",
    `  per attempt: timeout ${formatElapsed(t.timeout_seconds * 1000)}; retries ${t.retries} (${t.retries + 1} attempt${t.retries ? "s" : ""} at most)${rounds}`,
    `  run: max_duration ${formatElapsed(s.max_duration_seconds * 1000)}; budget ${s.budget_usd !== undefined ? `$${s.budget_usd}` : "none"}`,
  ];
  const row = cx.store.run(cx.run);
  if (row && (row.status === "stopped" || row.status === "cancelled"))
    out.push(`  the run was ${row.status}${row.stop_reason ? `: ${forPeople(row.stop_reason)}` : ""}`);
  return out;
}

/** What reruns cleared of this instance. */
function resets(cx: Context): string[] {
  const out = cx.events.flatMap((e) =>
    e.type === "instance_reset"
      ? [
          `  ${e.time}  cleared by ${e.payload.reason === "rerun" ? "a rerun" : "a rerun upstream"}: it was ${e.payload.previous.status}${e.payload.keep_decision ? " (decision kept)" : ""}`,
        ]
      : [],
  );
  return out.length ? ["", "Reruns:", ...out] : [];
}
