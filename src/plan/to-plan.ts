// Plan conversion (C-20): a checked declared task becomes a TaskPlan with every field resolved.

import type { CheckOptions, DeclQuestion, DeclRef, DeclTask } from "./declared.js";
import type { Gate } from "./gates.js";
import type { FieldRef, QuestionPlan, TaskBase, TaskKind, TaskPlan, TaskSpec, WhenPlan } from "./plan.js";
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

/**
 * The plan of a declared task, or undefined when its own arguments were broken (a kind's spec
 * was never built, e.g. an evaluate fn that is a lambda): that error is reported where it was
 * found, and no plan is made from such a file.
 */
export function toTaskPlan(t: DeclTask, gates: Map<DeclTask, Gate>, opts: CheckOptions): TaskPlan | undefined {
  const deps = t.depends_on.map((d) => d.task);
  const plan: TaskBase & { kind: TaskKind } = {
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
  // The spec goes last, as the kind's key, so the plan's JSON keeps its key order.
  const spec = taskSpec(t, gates, opts);
  return spec && { ...plan, ...spec };
}

/** A declared task's kind and spec; undefined when the spec was never built (see toTaskPlan). */
function taskSpec(t: DeclTask, gates: Map<DeclTask, Gate>, opts: CheckOptions): TaskSpec | undefined {
  switch (t.kind) {
    case "command": {
      if (!t.command) return undefined;
      return { kind: t.kind, command: { run: t.command.run, env: { ...t.command.env } } };
    }
    case "agent": {
      if (!t.agent) return undefined;
      const agent: TaskSpec & { kind: "agent" } = {
        kind: t.kind,
        agent: { prompt: t.agent.prompt, effort: t.agent.effort, files: [...t.agent.files], runner: t.agent.runner },
      };
      if (t.agent.workspace) agent.agent.workspace = t.agent.workspace;
      return agent;
    }
    case "route": {
      const r = t.route;
      if (!r) return undefined;
      const route: TaskSpec & { kind: "route" } = {
        kind: t.kind,
        route: {
          decide: r.decide,
          min_confidence: r.min_confidence,
          files: [...r.files],
          questions: r.questions.map((q) => questionPlan(t, q, opts.playbook)),
        },
      };
      if (r.source) route.route.source = fieldRef(r.source);
      return route;
    }
    case "evaluate": {
      if (!t.evaluate) return undefined;
      return { kind: t.kind, evaluate: { module: t.evaluate.module, function: t.evaluate.function } };
    }
    case "revise": {
      if (!t.revise) return undefined;
      const body = toTaskPlan(t.revise.body, gates, opts);
      const reviewer = toTaskPlan(t.revise.reviewer, gates, opts);
      return body && reviewer && { kind: t.kind, revise: { body, reviewer, max_rounds: t.revise.max_rounds } };
    }
  }
}
