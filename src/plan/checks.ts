// The graph rules C-3 … C-9 over the tasks a playbook declared. Checks that need
// only one argument's value happen in the built-ins (builtins.ts, args.ts); everything that
// relates tasks to each other happens here, after the whole playbook was evaluated. Gating and
// coverage are in gates.ts; the resolved plan fields are computed in to-plan.ts.
//
// Every independent problem is reported once. A task whose argument could not be read is kept
// (so references to it resolve) but the rules that would need the unreadable part are skipped,
// so one typo does not cascade into a page of follow-on errors.

import { errorAt, nearestName, type Diagnostic, type Position } from "../lang/diagnostic.js";
import type { CheckOptions, DeclQuestion, DeclRef, DeclTask, DeclWhen } from "./declared.js";

export type { CheckOptions };
import { resolveGates } from "./gates.js";
import { UNCERTAIN, type TaskPlan } from "./plan.js";
import { PLACEHOLDER } from "./placeholders.js";
import { hasType, isIdentifier, isLabel, refText, suggestLabel, sameField, type Report } from "./refs.js";
import { toTaskPlan } from "./to-plan.js";
import { itemAt } from "../shared/checked-index.js";

export { isIdentifier, isLabel } from "./refs.js";

/** What the graph checks found: every diagnostic, and the resolved tasks when there is no error. */
export interface CheckResult {
  diagnostics: Diagnostic[];
  /** The resolved tasks, in declaration order; meaningful only when diagnostics has no error. */
  tasks: TaskPlan[];
}

/** Applies the graph rules (dependencies, references, gates, coverage) to the declared tasks and resolves them into task plans. */
export function checkTasks(tasks: DeclTask[], opts: CheckOptions): CheckResult {
  const diags: Diagnostic[] = [];
  const err = (code: string, message: string, pos: Position | undefined, hint?: string) => diags.push(errorAt(code, message, pos, hint));

  checkNames(tasks, err);
  const cyclic = checkCycles(tasks, err);
  const ancestors = cyclic ? new Map<DeclTask, Set<DeclTask>>() : computeAncestors(tasks);

  // Questions whose own labels had errors: their coverage would only repeat those errors.
  const flawed = new Set<DeclQuestion>();
  for (const t of tasks) {
    checkTask(t, ancestors.get(t), err);
    if (t.kind === "route" && t.route) checkQuestions(t, t.route, flawed, err);
    if (t.kind === "revise" && t.revise) checkRevise(t, t.revise, err);
  }
  const whenPlans = resolveGates(tasks, opts, flawed, err);
  const plans = diags.length === 0 ? tasks.map((t) => toTaskPlan(t, whenPlans, opts)) : [];
  return { diagnostics: diags, tasks: plans.every((p) => p !== undefined) ? plans : [] };
}

function checkNames(tasks: DeclTask[], err: Report): void {
  const seen = new Map<string, DeclTask>();
  for (const t of tasks) {
    if (!t.complete && t.broken.has("name")) continue;
    if (!isIdentifier(t.name)) {
      err(
        "invalid-name",
        `task name ${JSON.stringify(t.name)} is not an identifier`,
        t.namePos,
        "use letters, digits and _, not starting with a digit",
      );
      continue;
    }
    const first = seen.get(t.name);
    if (first) {
      err(
        "duplicate-task",
        `a task named '${t.name}' is already declared at ${first.pos.file}:${first.pos.line}:${first.pos.col}`,
        t.namePos,
        "task names are unique in a playbook; rename one of them",
      );
    } else seen.set(t.name, t);
  }
}

/** Reports a dependency cycle (only possible in hand-built or read plans; values cannot form one). */
function checkCycles(tasks: DeclTask[], err: Report): boolean {
  const state = new Map<DeclTask, 1 | 2>();
  let found = false;
  const stack: DeclTask[] = [];
  const visit = (t: DeclTask): void => {
    if (found) return;
    const s = state.get(t);
    if (s === 2) return;
    if (s === 1) {
      const cycle = [...stack.slice(stack.indexOf(t)), t].map((x) => x.name).join(" -> ");
      err("dependency-cycle", `tasks depend on each other in a cycle: ${cycle}`, t.pos, "remove one of these dependencies");
      found = true;
      return;
    }
    state.set(t, 1);
    stack.push(t);
    for (const d of t.depends_on) visit(d.task);
    stack.pop();
    state.set(t, 2);
  };
  for (const t of tasks) visit(t);
  return found;
}

function computeAncestors(tasks: DeclTask[]): Map<DeclTask, Set<DeclTask>> {
  const memo = new Map<DeclTask, Set<DeclTask>>();
  const get = (t: DeclTask): Set<DeclTask> => {
    let s = memo.get(t);
    if (s) return s;
    s = new Set();
    memo.set(t, s);
    for (const d of t.depends_on) {
      s.add(d.task);
      for (const a of get(d.task)) s.add(a);
    }
    return s;
  };
  for (const t of tasks) get(t);
  return memo;
}

function isDirect(t: DeclTask, producer: DeclTask): boolean {
  return t.depends_on.some((d) => d.task === producer);
}

/** The task's depends_on could not be read in full: which tasks it names is not known. */
function depsUnknown(t: DeclTask): boolean {
  return t.broken.has("depends_on") || t.broken.has("all");
}

/** T-11: the reference must name a direct dependency. Returns false (after reporting) when not. */
function requireDirect(t: DeclTask, r: DeclRef, what: string, err: Report): boolean {
  if (isDirect(t, r.producer) || depsUnknown(t)) return true;
  err(
    "not-direct-dependency",
    `${what} ${refText(r)} names '${r.producer.name}', which is not a direct dependency of '${t.name}'`,
    r.pos,
    `add ${r.producer.name} to depends_on of '${t.name}'`,
  );
  return false;
}

/** The dependency, reference, mapping and gate rules of one task, then those of its kind. */
function checkTask(t: DeclTask, ancestors: Set<DeclTask> | undefined, err: Report): void {
  checkInlineDependencies(t, err);
  const badRefs = checkReferences(t, ancestors, err);
  checkMapping(t, badRefs, err);
  checkKeyed(t, badRefs, err);

  // when (G-1, G-2)
  if (t.strayGate && !t.when && !t.broken.has("when"))
    err("answers-without-when", `'${t.name}' has answers/otherwise but no when`, t.strayGate, "add when = route.question");
  if (t.when && !badRefs.has(t.when.ref)) checkWhenShape(t, t.when, err);

  // kind-specific
  if (t.route) checkRoute(t, t.route, badRefs, err);
  if (t.agent && !t.broken.has("prompt")) checkPrompt(t, t.agent.prompt, t.agent.promptPos, placeholderScope(t), err);
  if (t.agent && !t.broken.has("files")) checkFilePaths(t.agent.files, t.agent.filesPos, err);
}

/** Dependencies may not reach into a revise loop's inline tasks. */
function checkInlineDependencies(t: DeclTask, err: Report): void {
  for (const d of t.depends_on) {
    if (d.task.inlineIn)
      err(
        "inline-task-referenced",
        `'${d.task.name}' is declared inline in revise '${d.task.inlineIn.name}' and cannot be a dependency`,
        d.pos,
        "depend on the revise task instead",
      );
  }
}

/**
 * T-11: references may not reach into a revise loop's inline tasks, and those not checked with
 * the argument that holds them must name a task upstream. Returns the references reported here.
 */
function checkReferences(t: DeclTask, ancestors: Set<DeclTask> | undefined, err: Report): Set<DeclRef> {
  const directRefs = new Set<DeclRef>([
    ...t.keyed,
    ...(t.when ? [t.when.ref] : []),
    ...(t.route?.source ? [t.route.source] : []),
    ...(t.route?.questions.flatMap((q) => (q.dynamic ? [q.dynamic] : [])) ?? []),
  ]);
  const badRefs = new Set<DeclRef>();
  for (const r of t.refs) {
    if (r.producer.inlineIn) {
      err(
        "inline-task-referenced",
        `'${r.producer.name}' is declared inline in revise '${r.producer.inlineIn.name}'; its fields cannot be referenced`,
        r.pos,
        `reference ${r.producer.inlineIn.name}.${r.field} instead`,
      );
      badRefs.add(r);
    } else if (directRefs.has(r)) {
      // checked below with the rule that names the argument
    } else if (ancestors && !ancestors.has(r.producer) && !depsUnknown(t) && ![...ancestors].some(depsUnknown)) {
      err(
        "not-upstream",
        `${refText(r)} names '${r.producer.name}', which is not upstream of '${t.name}'`,
        r.pos,
        `add ${r.producer.name} (or a task that depends on it) to depends_on of '${t.name}'`,
      );
      badRefs.add(r);
    }
  }
  return badRefs;
}

/** over and max_fanout (M-1, C-5): a mapped task maps over a list field of an unmapped task, within a bound. */
function checkMapping(t: DeclTask, badRefs: Set<DeclRef>, err: Report): void {
  if (t.over && !badRefs.has(t.over)) {
    const p = t.over.producer;
    if (p.over)
      err(
        "over-from-mapped",
        `over = ${refText(t.over)}: '${p.name}' is mapped; its dependents read a fold, not a list`,
        t.over.pos,
        "map over a list field of an unmapped task",
      );
    else if (!hasType(p.emits[t.over.field], "list"))
      err(
        "over-not-list",
        `over = ${refText(t.over)}: the field is declared "${p.emits[t.over.field]}", not "list"`,
        t.over.pos,
        `declare it as "list" in ${p.name}'s emits`,
      );
    if (!t.max_fanout && !t.broken.has("max_fanout"))
      err(
        "missing-max-fanout",
        `'${t.name}' maps over ${refText(t.over)} without max_fanout`,
        t.over.pos,
        "add max_fanout = N (the most elements it may expand to, 1 … 10000)",
      );
  }
  if (t.max_fanout) {
    const n = t.max_fanout.value;
    if (!Number.isInteger(n) || n < 1 || n > 10000) err("max-fanout-range", `max_fanout = ${n} is outside 1 … 10000`, t.max_fanout.pos);
    else if (!t.over && !t.broken.has("over"))
      err(
        "max-fanout-without-over",
        `max_fanout on '${t.name}', which is not mapped (no over)`,
        t.max_fanout.pos,
        "remove max_fanout, or add over = producer.field",
      );
  }
}

/** keyed (M-3): a mapped task reads, per element, an object field of a direct, unmapped dependency. */
function checkKeyed(t: DeclTask, badRefs: Set<DeclRef>, err: Report): void {
  if (t.keyed.length > 0 && !t.over && !t.broken.has("over"))
    err(
      "keyed-unmapped",
      `keyed on '${t.name}', which is not mapped (no over)`,
      itemAt(t.keyed, 0).pos,
      "keyed narrows a field to the instance's element; add over, or read the whole field",
    );
  for (const r of t.keyed) {
    if (badRefs.has(r) || !requireDirect(t, r, "keyed", err)) continue;
    if (r.producer.over)
      err(
        "keyed-from-mapped",
        `keyed ${refText(r)}: '${r.producer.name}' is mapped; keyed reads an object from an unmapped dependency`,
        r.pos,
      );
    else if (!hasType(r.producer.emits[r.field], "object"))
      err(
        "keyed-not-object",
        `keyed ${refText(r)}: the field is declared "${r.producer.emits[r.field]}", not "object"`,
        r.pos,
        `declare it as "object" (keyed by element) in ${r.producer.name}'s emits`,
      );
  }
}

function checkWhenShape(t: DeclTask, w: DeclWhen, err: Report): void {
  const r = w.ref;
  if (r.producer.kind !== "route") {
    err(
      "when-not-route",
      `when = ${refText(r)}: '${r.producer.name}' is a ${r.producer.kind}, not a route`,
      r.pos,
      "gate on a route's question (when = route.question)",
    );
    return;
  }
  requireDirect(t, r, "when", err);
  if (r.producer.over && !sameField(t.over, r.producer.over) && !t.broken.has("over")) {
    const how = t.over ? `maps over ${refText(t.over)}` : "is not mapped";
    err(
      "when-not-aligned",
      `when = ${refText(r)}: route '${r.producer.name}' is mapped over ${refText(r.producer.over)}, but '${t.name}' ${how}`,
      r.pos,
      `map '${t.name}' over ${refText(r.producer.over)} so it is gated per element (G-2)`,
    );
  }
  if (w.answers !== undefined && w.otherwise)
    err(
      "gate-answers-and-otherwise",
      `'${t.name}' has both answers and otherwise = True`,
      w.otherwisePos ?? w.ref.pos,
      "keep exactly one of them",
    );
  else if (w.answers === undefined && !w.otherwise && !t.broken.has("answers") && !t.broken.has("otherwise"))
    err(
      "gate-missing-answers",
      `'${t.name}' has when = ${refText(r)} but neither answers nor otherwise = True`,
      w.ref.pos,
      'add answers = "label" (or a list), or otherwise = True',
    );
}

interface PlaceholderScope {
  deps: DeclTask[];
  /** depends_on, or a dependency's name, could not be read: a name not among `deps` may still be one. */
  depsUnknown: boolean;
  mapped: boolean;
  extra: string[];
}

function placeholderScope(t: DeclTask): PlaceholderScope {
  if (t.inlineIn) {
    const loop = t.inlineIn;
    const deps = loop.depends_on.map((d) => d.task);
    const isBody = loop.revise?.body === t;
    if (!isBody && loop.revise) deps.push(loop.revise.body);
    return {
      deps,
      depsUnknown: depsUnknown(loop) || namesUnknown(deps),
      mapped: loop.over !== undefined || loop.broken.has("over"),
      extra: isBody ? ["feedback", "round"] : [],
    };
  }
  // A task whose `over` could not be read may well be mapped: no follow-on error for {{key}}.
  const deps = t.depends_on.map((d) => d.task);
  return { deps, depsUnknown: depsUnknown(t) || namesUnknown(deps), mapped: t.over !== undefined || t.broken.has("over"), extra: [] };
}

/** A dependency whose name could not be read may be the one a placeholder names. */
function namesUnknown(deps: DeclTask[]): boolean {
  return deps.some((d) => d.broken.has("name"));
}

/** T-2: every placeholder names the key, a direct dependency, or a field it declares. */
function checkPrompt(t: DeclTask, prompt: string, pos: Position, scope: PlaceholderScope, err: Report): void {
  const byName = new Map(scope.deps.map((d) => [d.name, d]));
  for (const m of prompt.matchAll(PLACEHOLDER)) {
    const inner = itemAt(m, 1).trim();
    if (inner === "key") {
      if (!scope.mapped)
        err(
          "unknown-placeholder",
          `{{key}} in the prompt of '${t.name}', which is not mapped`,
          pos,
          "{{key}} is the element of a mapped task; add over, or remove it",
        );
      continue;
    }
    if (scope.extra.includes(inner)) continue;
    if (inner === "feedback" || inner === "round") {
      err(
        "unknown-placeholder",
        `{{${inner}}} in the prompt of '${t.name}', which is not the body of a revise loop`,
        pos,
        `{{feedback}} and {{round}} exist only in the prompt of a revise loop's body (revise(body = agent(...))); remove it`,
      );
      continue;
    }
    const parts = inner.split(".");
    if (parts[0] !== "inputs" || parts.length < 2 || parts.length > 3) {
      const near = nearestName(inner, ["key", ...scope.extra]);
      err(
        "unknown-placeholder",
        `{{${inner}}} is not a placeholder`,
        pos,
        near
          ? `did you mean {{${near}}}? placeholders are {{key}}, {{inputs.DEP}} and {{inputs.DEP.FIELD}}`
          : "placeholders are {{key}}, {{inputs.DEP}} and {{inputs.DEP.FIELD}}",
      );
      continue;
    }
    const depName = itemAt(parts, 1);
    const field = parts[2];
    const dep = byName.get(depName);
    if (!dep && scope.depsUnknown) continue;
    if (!dep) {
      const near = nearestName(depName, byName.keys());
      err(
        "unknown-placeholder",
        `{{${inner}}}: '${depName}' is not a dependency of '${t.name}'` +
          (byName.size ? ` (dependencies: ${[...byName.keys()].join(", ")})` : " (it has no dependencies)"),
        pos,
        near ? `did you mean {{inputs.${near}${field ? "." + field : ""}}}?` : `add ${depName} to depends_on`,
      );
      continue;
    }
    const fieldsKnown = !["emits", "questions", "body", "all"].some((a) => dep.broken.has(a));
    if (field !== undefined && fieldsKnown && !(field in dep.emits)) {
      const fields = Object.keys(dep.emits);
      const near = nearestName(field, fields);
      err(
        "unknown-placeholder",
        `{{${inner}}}: '${dep.name}' declares no field '${field}' (declared: ${fields.length ? fields.join(", ") : "none"})`,
        pos,
        near ? `did you mean {{inputs.${dep.name}.${near}}}?` : `declare ${field} in ${dep.name}'s emits`,
      );
    }
  }
}

function checkFilePaths(files: string[], pos: Position, err: Report): void {
  for (const f of files) {
    const parts = f.split(/[\\/]/);
    if (f === "" || f.startsWith("/") || /^[A-Za-z]:/.test(f) || parts.includes("..") || f.includes("\0"))
      err(
        "invalid-file-path",
        `files entry ${JSON.stringify(f)} is not a relative path inside the workspace`,
        pos,
        'write a relative path such as "RESULT.json"',
      );
  }
}

/** A declared route's own arguments (present once its task is a route). */
type DeclRoute = NonNullable<DeclTask["route"]>;

function checkRoute(t: DeclTask, r: DeclRoute, badRefs: Set<DeclRef>, err: Report): void {
  if (r.min_confidence < 0 || r.min_confidence > 1)
    err("confidence-range", `min_confidence = ${r.min_confidence} is outside 0 … 1`, r.confidencePos);
  if (r.decide === "output") {
    if (!r.source && !t.broken.has("source"))
      err(
        "output-route-without-source",
        `route '${t.name}' has decide = "output" but no source`,
        r.decidePos,
        "add source = producer.field (an object holding a label per question)",
      );
  } else if (r.source) {
    err(
      "source-without-output",
      `route '${t.name}' has source but decide = "model"`,
      r.source.pos,
      'set decide = "output", or remove source',
    );
  }
  if (r.source && !badRefs.has(r.source) && requireDirect(t, r.source, "source", err)) {
    const p = r.source.producer;
    if (p.over)
      err(
        "source-from-mapped",
        `source = ${refText(r.source)}: '${p.name}' is mapped; source reads an object from an unmapped dependency`,
        r.source.pos,
      );
    else if (!hasType(p.emits[r.source.field], "object"))
      err(
        "source-wrong-type",
        `source = ${refText(r.source)}: the field is declared "${p.emits[r.source.field]}", not "object"`,
        r.source.pos,
      );
  }
  if (!t.broken.has("files")) {
    const declared = new Set<string>();
    for (const d of t.depends_on) for (const f of filesOf(d.task)) declared.add(f);
    for (const f of r.files) {
      if (!/\.json$/i.test(f)) err("route-file-not-json", `route files entry ${JSON.stringify(f)} is not a .json file`, r.filesPos);
      else if (!declared.has(f) && t.depends_on.every((d) => d.task.complete)) {
        const near = nearestName(f, declared);
        err(
          "undeclared-file",
          `route '${t.name}' reads ${JSON.stringify(f)}, which no direct dependency declares in its files` +
            (declared.size ? ` (declared: ${[...declared].join(", ")})` : ""),
          r.filesPos,
          near
            ? `did you mean ${JSON.stringify(near)}?`
            : "declare the file in the files of the agent that writes it, and depend on that agent",
        );
      }
    }
  }
  if (r.questions.length === 0 && !t.broken.has("questions"))
    err(
      "no-questions",
      `route '${t.name}' asks no questions`,
      r.questionsPos,
      'questions = {"name": choice(...) | noul(...) | score(...)}',
    );
}

function filesOf(t: DeclTask): string[] {
  if (t.agent) return t.agent.files;
  if (t.revise?.body.agent) return t.revise.body.agent.files;
  return [];
}

function checkQuestions(t: DeclTask, r: DeclRoute, flawed: Set<DeclQuestion>, err: Report): void {
  for (const q of r.questions) {
    const report: Report = (code, message, pos, hint) => {
      flawed.add(q);
      err(code, message, pos, hint);
    };
    checkQuestion(t, r, q, report);
  }
}

function checkQuestion(t: DeclTask, r: DeclRoute, q: DeclQuestion, err: Report): void {
  if (!isIdentifier(q.name)) err("invalid-name", `question name ${JSON.stringify(q.name)} is not an identifier`, q.pos);
  if (q.min_confidence !== undefined && (q.min_confidence < 0 || q.min_confidence > 1))
    err("confidence-range", `min_confidence = ${q.min_confidence} is outside 0 … 1`, q.pos);
  if (!q.valid) return;
  if (q.dynamic) {
    if (r.decide === "output")
      err(
        "dynamic-choice-output-route",
        `question '${q.name}' of output-decided route '${t.name}' is a dynamic choice`,
        q.dynamic.pos,
        'only a model-decided route may ask a dynamic choice (Q-33); declare the options, or use decide = "model"',
      );
    else checkDynamicSource(t, q.dynamic, err);
    for (const d of q.drop)
      if (d !== UNCERTAIN)
        err(
          "dynamic-drop",
          `drop lists ${JSON.stringify(d)}, but question '${q.name}' is a dynamic choice: drop may list only "uncertain"`,
          q.dropPos,
        );
    return;
  }
  for (const l of q.labels) {
    if (l === UNCERTAIN)
      err(
        "reserved-label",
        `question '${q.name}' declares the reserved label "uncertain"`,
        q.pos,
        "rename the option; uncertain is the implicit answer when the model is not confident",
      );
    else if (!isLabel(l))
      err(
        "invalid-label",
        `label ${JSON.stringify(l)} of question '${q.name}' is not an identifier of at most 64 characters`,
        q.pos,
        `name it ${JSON.stringify(suggestLabel(l))} and keep ${JSON.stringify(l)} in its description: a choice's options are {LABEL: DESCRIPTION}, and options that come from data are {"value": LABEL, "description": TEXT}`,
      );
  }
  if (q.kind === "choice" && (q.labels.length < 2 || q.labels.length > 64))
    err("option-count", `choice '${q.name}' has ${q.labels.length} option(s); a choice has 2 to 64`, q.pos);
  if (q.kind === "score" && (q.labels.length < 2 || q.labels.length > 10))
    err("level-count", `score '${q.name}' has ${q.labels.length} level(s); a score has 2 to 10`, q.pos);
  for (const d of q.drop) {
    if (d === UNCERTAIN) {
      if (r.decide === "output")
        err("uncertain-on-output-route", `drop lists "uncertain", but route '${t.name}' is output-decided and never answers it`, q.dropPos);
    } else if (!q.labels.includes(d)) {
      const near = nearestName(d, q.labels);
      err(
        "unknown-label",
        `drop lists ${JSON.stringify(d)}, which question '${q.name}' does not declare (labels: ${q.labels.join(", ")})`,
        q.dropPos,
        near ? `did you mean "${near}"?` : undefined,
      );
    }
  }
}

function checkDynamicSource(t: DeclTask, ref: DeclRef, err: Report): void {
  if (ref.producer.inlineIn) return; // reported with the task's references
  if (!requireDirect(t, ref, "options", err)) return;
  const p = ref.producer;
  if (p.over) {
    err(
      "options-from-mapped",
      `options = ${refText(ref)}: '${p.name}' is mapped; dynamic options are read from an unmapped dependency`,
      ref.pos,
    );
    return;
  }
  const declared = p.emits[ref.field];
  if (t.over && !hasType(declared, "object"))
    err(
      "options-wrong-type",
      `options = ${refText(ref)}: route '${t.name}' is mapped, so the field must be an object keyed by element (declared "object"), but it is declared "${declared}"`,
      ref.pos,
    );
  else if (!t.over && !t.broken.has("over") && !hasType(declared, "list"))
    err(
      "options-wrong-type",
      `options = ${refText(ref)}: route '${t.name}' is not mapped, so the field must be the option list (declared "list"), but it is declared "${declared}"`,
      ref.pos,
    );
}

function checkRevise(t: DeclTask, revise: NonNullable<DeclTask["revise"]>, err: Report): void {
  const { body, reviewer, max_rounds } = revise;
  if (!Number.isInteger(max_rounds) || max_rounds < 1 || max_rounds > 100)
    err("revise-max-rounds", `max_rounds = ${max_rounds} is outside 1 … 100`, t.pos);
  if (body.kind !== "agent" && body.kind !== "command")
    err("revise-body-kind", `the body of revise '${t.name}' is a ${body.kind}; it must be an agent or command`, body.pos);
  if (reviewer.kind !== "agent" && reviewer.kind !== "command" && reviewer.kind !== "evaluate")
    err(
      "revise-reviewer-kind",
      `the reviewer of revise '${t.name}' is a ${reviewer.kind}; it must be an agent, command or evaluate`,
      reviewer.pos,
    );
  for (const [role, x] of [
    ["body", body],
    ["reviewer", reviewer],
  ] as const) {
    if (x.over)
      err(
        "revise-body-mapped",
        `the ${role} of revise '${t.name}' has over; the loop's ${role} is not mapped`,
        x.over.pos,
        "map the revise task itself instead",
      );
    const extras: string[] = [];
    if (x.when || x.strayGate) extras.push("when/answers/otherwise");
    if (x.keyed.length) extras.push("keyed");
    if (x.max_fanout && !x.over) extras.push("max_fanout");
    if (x.depends_on.length) extras.push("depends_on");
    if (x.join !== "all") extras.push("join");
    if (extras.length)
      err(
        "revise-inline-gated",
        `the ${role} of revise '${t.name}' sets ${extras.join(", ")}; inline tasks take these from the loop`,
        x.pos,
        "move them to the revise task",
      );
    if (x.agent && !x.broken.has("prompt")) checkPrompt(x, x.agent.prompt, x.agent.promptPos, placeholderScope(x), err);
    if (x.agent && !x.broken.has("files")) checkFilePaths(x.agent.files, x.agent.filesPos, err);
  }
  const reviewerKindOk = reviewer.kind === "agent" || reviewer.kind === "command" || reviewer.kind === "evaluate";
  if (!reviewer.broken.has("emits") && reviewerKindOk) {
    const v = reviewer.emits.verdict;
    const f = reviewer.emits.feedback;
    if (v === undefined)
      err(
        "revise-verdict",
        `the reviewer of revise '${t.name}' does not emit verdict`,
        reviewer.emitsPos ?? reviewer.pos,
        'add emits = {"verdict": "string", "feedback": "string"}',
      );
    else if (!hasType(v, "string"))
      err(
        "revise-verdict",
        `the reviewer's verdict is declared "${v}"; it must be "string" ("accept" or "revise")`,
        reviewer.emitsPos ?? reviewer.pos,
      );
    if (f !== undefined && !hasType(f, "string"))
      err("revise-verdict", `the reviewer's feedback is declared "${f}"; it must be "string"`, reviewer.emitsPos ?? reviewer.pos);
  }
}
