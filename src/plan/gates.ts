// Gating resolution (G-1, G-2a, G-8, Q-33): checks every gate's labels, applies the otherwise
// rule to find each gated task's label set, and checks that every label of every model-decided
// question leads somewhere.

import { nearestName } from "../lang/diagnostic.js";
import type { CheckOptions, DeclQuestion, DeclRef, DeclTask, DeclWhen } from "./declared.js";
import { UNCERTAIN } from "./plan.js";
import type { Report } from "./refs.js";

/** A gated task's gate after resolution: the route it waits on and the labels that let it run. */
export interface Gate {
  task: DeclTask;
  labels: string[];
  anyOption: boolean;
}

/** A task gated on a route's question, with its (present) `when`. */
interface Gated {
  task: DeclTask;
  when: DeclWhen;
}

/** One route's question and what its gates say about it. */
interface QuestionGates {
  route: DeclTask;
  question: DeclQuestion;
  model: boolean;
  gated: Gated[];
  /** Labels some gate's `answers` lists (and that exist). */
  listed: Set<string>;
  /** Some gate on this question is written wrongly: its coverage says nothing reliable. */
  gateErrors: boolean;
}

function questionOf(ref: DeclRef): DeclQuestion | undefined {
  return ref.producer.route?.questions.find((q) => q.name === ref.field);
}

/** Checks answers, applies the otherwise rule, checks coverage; returns each gated task's labels. */
export function resolveGates(tasks: DeclTask[], opts: CheckOptions, flawed: Set<DeclQuestion>, err: Report): Map<DeclTask, Gate> {
  const out = new Map<DeclTask, Gate>();
  const coverage = coverageKnowledge(tasks, opts);
  const byQuestion = gatedByQuestion(tasks);
  for (const route of tasks) {
    if (!route.route) continue;
    const model = route.route.decide === "model";
    for (const question of route.route.questions) {
      const qg = checkAnswers(route, question, model, byQuestion.get(question) ?? [], err);
      if (!question.valid) continue;
      if (flawed.has(question)) qg.gateErrors = true;
      const resolved = applyOtherwise(qg, out, err);
      if (!model || coverage.unreadableGate || qg.gateErrors || coverage.unknownCoverage.has(route)) continue;
      checkCoverage(qg, resolved, err);
    }
  }
  return out;
}

/**
 * What is known about coverage at all. A gate that could not be read at all might have named any
 * question: no coverage is known. A readable `when` with unreadable answers only leaves its own
 * question unknown (checkAnswers). A gate that names a known route but could not be read leaves
 * only that route's coverage unknown.
 */
function coverageKnowledge(tasks: DeclTask[], opts: CheckOptions): { unreadableGate: boolean; unknownCoverage: Set<DeclTask> } {
  let unreadableGate = !opts.evaluationComplete;
  const unknownCoverage = new Set<DeclTask>();
  for (const t of tasks) {
    if (t.gateCoverageUnknown) for (const r of t.gateCoverageUnknown) unknownCoverage.add(r);
    else if (!t.when && t.broken.has("when")) unreadableGate = true;
  }
  return { unreadableGate, unknownCoverage };
}

/** The tasks gated on each route question, in declaration order. */
function gatedByQuestion(tasks: DeclTask[]): Map<DeclQuestion, Gated[]> {
  const byQuestion = new Map<DeclQuestion, Gated[]>();
  for (const task of tasks) {
    const when = task.when;
    if (!when || when.ref.producer.kind !== "route") continue;
    const q = questionOf(when.ref);
    if (!q) continue;
    let list = byQuestion.get(q);
    if (!list) byQuestion.set(q, (list = []));
    list.push({ task, when });
  }
  return byQuestion;
}

/** Checks the labels every gate on one question lists (G-2a, Q-33), collecting those that exist. */
function checkAnswers(route: DeclTask, q: DeclQuestion, model: boolean, gated: Gated[], err: Report): QuestionGates {
  const qg: QuestionGates = { route, question: q, model, gated, listed: new Set(), gateErrors: false };
  for (const { task: t, when: w } of gated) {
    // A gate written wrongly (reported by checkWhenShape) says nothing reliable about coverage.
    if ((w.answers !== undefined) === w.otherwise || ["when", "answers", "otherwise", "all"].some((a) => t.broken.has(a))) {
      qg.gateErrors = true;
      continue;
    }
    for (const a of w.answers ?? []) {
      if (checkAnswer(qg, w, a, err)) qg.listed.add(a);
      else qg.gateErrors = true;
    }
  }
  return qg;
}

/** Whether one label a gate's `answers` lists can be answered; reports it when it cannot. */
function checkAnswer(qg: QuestionGates, w: DeclWhen, a: string, err: Report): boolean {
  const { route, question: q, model } = qg;
  const pos = w.answersPos ?? w.ref.pos;
  if (a === UNCERTAIN) {
    if (!model)
      err("uncertain-on-output-route", `answers lists "uncertain", but route '${route.name}' is output-decided and never answers it`, pos);
    return model;
  }
  if (q.dynamic) {
    err(
      "dynamic-answers",
      `answers lists ${JSON.stringify(a)}, but ${route.name}.${q.name} is a dynamic choice: answers may list only "uncertain"`,
      pos,
      "use otherwise = True for the options and read the chosen option from the route's output",
    );
    return false;
  }
  if (q.labelsUnknown) return false; // the labels are unknown, so is whether this one is among them
  if (q.labels.includes(a)) return true;
  const known = [...q.labels, ...(model ? [UNCERTAIN] : [])];
  const near = nearestName(a, known);
  err(
    "unknown-label",
    `answers lists ${JSON.stringify(a)}, which ${route.name}.${q.name} does not declare (labels: ${known.join(", ")})`,
    pos,
    near ? `did you mean "${near}"?` : undefined,
  );
  return false;
}

/** The labels a question can take, those it drops, and the tasks its otherwise rule gates. */
interface Resolved {
  all: string[];
  dropped: Set<string>;
  otherwiseTasks: Gated[];
}

/** The otherwise rule (G-8): each gated task's labels, set in `out`; an otherwise left no label is an error. */
function applyOtherwise(qg: QuestionGates, out: Map<DeclTask, Gate>, err: Report): Resolved {
  const { route, question: q, model, gated, listed } = qg;
  const all = q.dynamic ? [UNCERTAIN] : model ? [...q.labels, UNCERTAIN] : [...q.labels];
  const dropped = new Set(q.drop);
  const otherwiseLabels = all.filter((l) => !listed.has(l) && !dropped.has(l));
  const otherwiseTasks = gated.filter((g) => g.when.otherwise && g.when.answers === undefined);
  for (const g of gated) {
    const { task: t, when: w } = g;
    if (otherwiseTasks.includes(g)) {
      if (otherwiseLabels.length === 0 && !q.dynamic && !qg.gateErrors)
        err(
          "empty-otherwise",
          `'${t.name}' has otherwise = True on ${route.name}.${q.name}, but every label is already taken or dropped, so it could never run`,
          w.otherwisePos ?? w.ref.pos,
          "remove the task, or take a label away from the other tasks' answers or the question's drop",
        );
      out.set(t, { task: t, labels: otherwiseLabels, anyOption: q.dynamic !== undefined });
    } else if (w.answers) {
      const answers = w.answers;
      out.set(t, { task: t, labels: all.filter((l) => answers.includes(l)), anyOption: false });
    }
  }
  return { all, dropped, otherwiseTasks };
}

/** G-1: every label of a model-decided question leads to some task, or is dropped. */
function checkCoverage(qg: QuestionGates, { all, dropped, otherwiseTasks }: Resolved, err: Report): void {
  const { route, question: q, listed } = qg;
  const covered = (l: string) => listed.has(l) || dropped.has(l) || otherwiseTasks.length > 0;
  if (q.dynamic && otherwiseTasks.length === 0)
    err(
      "uncovered-label",
      `route '${route.name}', question '${q.name}': its dynamic options lead nowhere`,
      q.pos,
      `add a task with when = ${route.name}.${q.name}, otherwise = True (a dynamic choice's options are covered only by otherwise)`,
    );
  for (const l of all) {
    if (!covered(l))
      err(
        "uncovered-label",
        `route '${route.name}', question '${q.name}': label "${l}" leads nowhere`,
        q.pos,
        `add a task with when = ${route.name}.${q.name}, answers = "${l}" (or otherwise = True), or add "${l}" to the question's drop`,
      );
  }
}
