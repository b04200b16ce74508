// Gating resolution (G-1, G-2a, G-8, Q-33): checks every gate's labels, applies the otherwise
// rule to find each gated task's label set, and checks that every label of every model-decided
// question leads somewhere.

import { nearestName } from "../lang/diagnostic.js";
import type { CheckOptions, DeclQuestion, DeclRef, DeclTask } from "./declared.js";
import { UNCERTAIN } from "./plan.js";
import type { Report } from "./refs.js";

/** A gated task's gate after resolution: the route it waits on and the labels that let it run. */
export interface Gate {
  task: DeclTask;
  labels: string[];
  anyOption: boolean;
}

function questionOf(ref: DeclRef): DeclQuestion | undefined {
  return ref.producer.route?.questions.find((q) => q.name === ref.field);
}

/** Checks answers, applies the otherwise rule, checks coverage; returns each gated task's labels. */
// eslint-disable-next-line max-lines-per-function -- not split yet: checking answers, applying otherwise and checking coverage; to be split into those steps
export function resolveGates(tasks: DeclTask[], opts: CheckOptions, flawed: Set<DeclQuestion>, err: Report): Map<DeclTask, Gate> {
  const out = new Map<DeclTask, Gate>();
  // A gate that could not be read at all might have named any question: no coverage is known.
  // A readable `when` with unreadable answers only leaves its own question unknown (below).
  // A gate that names a known route but could not be read leaves only that route's coverage unknown.
  let unreadableGate = !opts.evaluationComplete;
  const unknownCoverage = new Set<DeclTask>();
  for (const t of tasks) {
    if (t.gateCoverageUnknown) for (const r of t.gateCoverageUnknown) unknownCoverage.add(r);
    else if (!t.when && t.broken.has("when")) unreadableGate = true;
  }

  const byQuestion = new Map<DeclQuestion, DeclTask[]>();
  for (const t of tasks) {
    if (!t.when || t.when.ref.producer.kind !== "route") continue;
    const q = questionOf(t.when.ref);
    if (!q) continue;
    let list = byQuestion.get(q);
    if (!list) byQuestion.set(q, (list = []));
    list.push(t);
  }

  for (const route of tasks) {
    if (!route.route) continue;
    const model = route.route.decide === "model";
    for (const q of route.route.questions) {
      const gated = byQuestion.get(q) ?? [];
      let gateErrors = false;
      const listed = new Set<string>();
      for (const t of gated) {
        const w = t.when!;
        // A gate written wrongly (reported by checkWhenShape) says nothing reliable about coverage.
        if ((w.answers !== undefined) === w.otherwise || ["when", "answers", "otherwise", "all"].some((a) => t.broken.has(a))) {
          gateErrors = true;
          continue;
        }
        if (w.answers === undefined) continue;
        for (const a of w.answers) {
          if (a === UNCERTAIN) {
            if (!model) {
              err(
                "uncertain-on-output-route",
                `answers lists "uncertain", but route '${route.name}' is output-decided and never answers it`,
                w.answersPos ?? w.ref.pos,
              );
              gateErrors = true;
            } else listed.add(a);
          } else if (q.dynamic) {
            err(
              "dynamic-answers",
              `answers lists ${JSON.stringify(a)}, but ${route.name}.${q.name} is a dynamic choice: answers may list only "uncertain"`,
              w.answersPos ?? w.ref.pos,
              "use otherwise = True for the options and read the chosen option from the route's output",
            );
            gateErrors = true;
          } else if (q.labelsUnknown) {
            gateErrors = true; // the labels are unknown, so is whether this one is among them
          } else if (!q.labels.includes(a)) {
            const near = nearestName(a, [...q.labels, ...(model ? [UNCERTAIN] : [])]);
            err(
              "unknown-label",
              `answers lists ${JSON.stringify(a)}, which ${route.name}.${q.name} does not declare (labels: ${[...q.labels, ...(model ? [UNCERTAIN] : [])].join(", ")})`,
              w.answersPos ?? w.ref.pos,
              near ? `did you mean "${near}"?` : undefined,
            );
            gateErrors = true;
          } else listed.add(a);
        }
      }
      if (!q.valid) continue;
      if (flawed.has(q)) gateErrors = true;
      const all = q.dynamic ? [UNCERTAIN] : model ? [...q.labels, UNCERTAIN] : [...q.labels];
      const dropped = new Set(q.drop);
      const otherwiseLabels = all.filter((l) => !listed.has(l) && !dropped.has(l));
      const otherwiseTasks = gated.filter((t) => t.when!.otherwise && t.when!.answers === undefined);
      for (const t of gated) {
        const w = t.when!;
        if (otherwiseTasks.includes(t)) {
          if (otherwiseLabels.length === 0 && !q.dynamic) {
            if (!gateErrors)
              err(
                "empty-otherwise",
                `'${t.name}' has otherwise = True on ${route.name}.${q.name}, but every label is already taken or dropped, so it could never run`,
                w.otherwisePos ?? w.ref.pos,
                "remove the task, or take a label away from the other tasks' answers or the question's drop",
              );
          }
          out.set(t, { task: t, labels: otherwiseLabels, anyOption: q.dynamic !== undefined });
        } else if (w.answers) {
          out.set(t, { task: t, labels: all.filter((l) => w.answers!.includes(l)), anyOption: false });
        }
      }
      if (!model || unreadableGate || gateErrors || unknownCoverage.has(route)) continue;
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
  }
  return out;
}
