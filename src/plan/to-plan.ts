// Plan conversion (C-20): a checked declared task becomes a TaskPlan with every field resolved.

import type { CheckOptions } from "./checks.js";
import type { DeclQuestion, DeclRef, DeclTask } from "./declared.js";
import type { Gate } from "./gates.js";
import type { FieldRef, QuestionPlan, TaskPlan, WhenPlan } from "./plan.js";
import { sameField } from "./refs.js";

function fieldRef(r: DeclRef): FieldRef {
  return { task: r.producer.name, field: r.field };
}

function questionPlan(route: DeclTask, q: DeclQuestion, playbook: string): QuestionPlan {
  const out: QuestionPlan = {
    name: q.name,
    kind: q.kind,
    ask: q.ask,
    labels: q.dynamic ? [] : [...q.labels],
    descriptions: q.dynamic ? {} : Object.fromEntries(q.labels.map((l) => [l, q.descriptions[l] ?? ""])),
    drop: [...q.drop],
    type: q.type ?? `${playbook}.${route.name}.${q.name}`,
  };
  if (q.dynamic) out.dynamic = fieldRef(q.dynamic);
  if (q.min_confidence !== undefined) out.min_confidence = q.min_confidence;
  return out;
}

export function toTaskPlan(t: DeclTask, gates: Map<DeclTask, Gate>, opts: CheckOptions): TaskPlan {
  const deps = t.depends_on.map((d) => d.task);
  const plan: TaskPlan = {
    name: t.name,
    kind: t.kind,
    depends_on: deps.map((d) => d.name),
    join: t.join,
    aligned_with: t.over ? deps.filter((d) => sameField(d.over, t.over)).map((d) => d.name) : [],
    keyed: t.keyed.map(fieldRef),
    timeout_seconds: t.timeout_seconds,
    retries: t.retries,
    emits: { ...t.emits },
    declared_at: { file: t.file, line: t.pos.line, col: t.pos.col },
  };
  if (t.over) plan.over = fieldRef(t.over);
  if (t.max_fanout) plan.max_fanout = t.max_fanout.value;
  if (t.when) {
    const g = gates.get(t);
    const w: WhenPlan = {
      route: t.when.ref.producer.name,
      question: t.when.ref.field,
      otherwise: t.when.otherwise,
      labels: g ? g.labels : [],
      any_option: g ? g.anyOption : false,
    };
    if (t.when.answers !== undefined) w.answers = [...t.when.answers];
    plan.when = w;
  }
  if (t.command) plan.command = { run: t.command.run, env: { ...t.command.env } };
  if (t.agent) {
    plan.agent = { prompt: t.agent.prompt, effort: t.agent.effort, files: [...t.agent.files], runner: t.agent.runner };
    if (t.agent.workspace) plan.agent.workspace = t.agent.workspace;
  }
  if (t.route) {
    const r = t.route;
    plan.route = { decide: r.decide, min_confidence: r.min_confidence, files: [...r.files], questions: r.questions.map((q) => questionPlan(t, q, opts.playbook)) };
    if (r.source) plan.route.source = fieldRef(r.source);
  }
  if (t.evaluate) plan.evaluate = { module: t.evaluate.module, function: t.evaluate.function };
  if (t.revise) plan.revise = { body: toTaskPlan(t.revise.body, gates, opts), reviewer: toTaskPlan(t.revise.reviewer, gates, opts), max_rounds: t.revise.max_rounds };
  return plan;
}
