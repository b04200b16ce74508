// The plan as TOML (C-20). Writing builds a plain object in one fixed key order, so the same Plan
// always gives the same bytes; reading validates every field and rebuilds the exact in-memory
// Plan (optional fields omitted, never undefined), so read + write is the identity.
// Field references are written as "task.field" strings and positions as "file:line:col" to keep
// the file readable; both parts are identifiers / numbers, so the split is unambiguous.

import { parse, stringify, TomlError } from "smol-toml";
import { DiagnosticError, errorAt } from "../lang/diagnostic.js";
import {
  FIELD_TYPES,
  type FieldRef,
  type FieldType,
  type KindSpecs,
  type Plan,
  type PlanSettings,
  type QuestionPlan,
  type TaskBase,
  type TaskKind,
  type TaskPlan,
  type TaskSpec,
  type WhenPlan,
} from "./plan.js";
import { isOneOf, isPlainObject } from "../shared/primitives.js";

type Table = Record<string, unknown>;

function refString(r: FieldRef): string {
  return `${r.task}.${r.field}`;
}

function taskTable(t: TaskPlan): Table {
  const out: Table = { name: t.name, kind: t.kind, depends_on: t.depends_on, join: t.join };
  if (t.over) out.over = refString(t.over);
  if (t.max_fanout !== undefined) out.max_fanout = t.max_fanout;
  out.aligned_with = t.aligned_with;
  out.keyed = t.keyed.map(refString);
  out.timeout_seconds = t.timeout_seconds;
  out.retries = t.retries;
  out.declared_at = `${t.declared_at.file}:${t.declared_at.line}:${t.declared_at.col}`;
  out.emits = { ...t.emits };
  if (t.when) {
    const w: Table = { route: t.when.route, question: t.when.question };
    if (t.when.answers) w.answers = t.when.answers;
    w.otherwise = t.when.otherwise;
    w.labels = t.when.labels;
    w.any_option = t.when.any_option;
    out.when = w;
  }
  if (t.command) out.command = { run: t.command.run, env: { ...t.command.env } };
  if (t.agent)
    out.agent = {
      prompt: t.agent.prompt,
      effort: t.agent.effort,
      files: t.agent.files,
      runner: t.agent.runner,
      ...(t.agent.workspace ? { workspace: t.agent.workspace } : {}),
    };
  if (t.route) {
    const r: Table = { decide: t.route.decide };
    if (t.route.source) r.source = refString(t.route.source);
    r.min_confidence = t.route.min_confidence;
    r.files = t.route.files;
    r.questions = t.route.questions.map(questionTable);
    out.route = r;
  }
  if (t.evaluate) out.evaluate = { module: t.evaluate.module, function: t.evaluate.function };
  if (t.revise) out.revise = { max_rounds: t.revise.max_rounds, body: taskTable(t.revise.body), reviewer: taskTable(t.revise.reviewer) };
  return out;
}

function questionTable(q: QuestionPlan): Table {
  const out: Table = { name: q.name, kind: q.kind, ask: q.ask, labels: q.labels };
  if (q.dynamic) out.dynamic = refString(q.dynamic);
  out.drop = q.drop;
  if (q.min_confidence !== undefined) out.min_confidence = q.min_confidence;
  out.type = q.type;
  out.descriptions = { ...q.descriptions };
  return out;
}

/** A plan as TOML (the `.toml` plan form), which readPlanToml reads back to the same plan. */
export function writePlanToml(plan: Plan): string {
  const settings: Table = {
    description: plan.settings.description,
    concurrency: plan.settings.concurrency,
    decision_concurrency: plan.settings.decision_concurrency,
    max_duration_seconds: plan.settings.max_duration_seconds,
  };
  if (plan.settings.budget_usd !== undefined) settings.budget_usd = plan.settings.budget_usd;
  const doc: Table = {
    plan: {
      playbook: plan.playbook,
      source_file: plan.source_file,
      pack_digest: plan.pack_digest,
      compiler_version: plan.compiler_version,
      settings,
    },
    task: plan.tasks.map(taskTable),
  };
  const header = `# switchyard plan of playbook "${plan.playbook}" (written by switchyard compile; do not edit)\n`;
  // Every table header gets a blank line before it (smol-toml omits it after an empty table).
  // Strings are written on one line, so a line starting with "[" is always a header.
  return header + stringify(doc).replace(/([^\n])\n(\[)/g, "$1\n\n$2");
}

// ---------------------------------------------------------------------------------------------
// Reading

class Reader {
  constructor(readonly file: string) {}

  fail(path: string, message: string): never {
    throw new DiagnosticError(
      errorAt("malformed-plan", `${this.file}: ${path}: ${message}`, undefined, "recompile the plan with `switchyard compile`"),
    );
  }
  table(v: unknown, path: string): Table {
    if (!isPlainObject(v)) return this.fail(path, `expected a table, got ${describe(v)}`);
    return v;
  }
  str(t: Table, key: string, path: string): string {
    const v = t[key];
    if (typeof v !== "string") this.fail(`${path}.${key}`, `expected a string, got ${describe(v)}`);
    return v;
  }
  num(t: Table, key: string, path: string): number {
    const v = t[key];
    if (typeof v !== "number" || !Number.isFinite(v)) this.fail(`${path}.${key}`, `expected a number, got ${describe(v)}`);
    return v;
  }
  /** A number of seconds above zero (durations may be fractional: "1.5s"). */
  positive(t: Table, key: string, path: string): number {
    const v = this.num(t, key, path);
    if (!(v > 0)) this.fail(`${path}.${key}`, `expected a number above 0, got ${v}`);
    return v;
  }
  int(t: Table, key: string, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const v = this.num(t, key, path);
    if (!Number.isInteger(v) || v < min || v > max) this.fail(`${path}.${key}`, `expected an integer in ${min} … ${max}, got ${v}`);
    return v;
  }
  bool(t: Table, key: string, path: string): boolean {
    const v = t[key];
    if (typeof v !== "boolean") this.fail(`${path}.${key}`, `expected true or false, got ${describe(v)}`);
    return v;
  }
  oneOf<T extends string>(t: Table, key: string, path: string, allowed: readonly T[]): T {
    const v = this.str(t, key, path);
    if (!isOneOf(allowed, v))
      this.fail(`${path}.${key}`, `expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}, got ${JSON.stringify(v)}`);
    return v;
  }
  strList(t: Table, key: string, path: string): string[] {
    const v = t[key];
    const wrong = () => this.fail(`${path}.${key}`, `expected a list of strings, got ${describe(v)}`);
    if (!Array.isArray(v)) return wrong();
    return v.map((x: unknown) => (typeof x === "string" ? x : wrong()));
  }
  strRecord(t: Table, key: string, path: string): Record<string, string> {
    const v = this.table(t[key], `${path}.${key}`);
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (typeof x !== "string") this.fail(`${path}.${key}.${k}`, `expected a string, got ${describe(x)}`);
      out[k] = x;
    }
    return out;
  }
  ref(s: string, path: string): FieldRef {
    const [, task, field] = /^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(s) ?? [];
    if (task === undefined || field === undefined) this.fail(path, `expected a field reference "task.field", got ${JSON.stringify(s)}`);
    return { task, field };
  }
  known(t: Table, path: string, keys: string[]): void {
    for (const k of Object.keys(t)) if (!keys.includes(k)) this.fail(`${path}.${k}`, `unknown key (expected: ${keys.join(", ")})`);
  }
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing (missing)";
  if (Array.isArray(v)) return "a list";
  if (v === null) return "null";
  if (typeof v === "object") return "a table";
  return `${typeof v} ${JSON.stringify(v)}`;
}

const TASK_KEYS = [
  "name",
  "kind",
  "depends_on",
  "join",
  "over",
  "max_fanout",
  "aligned_with",
  "keyed",
  "timeout_seconds",
  "retries",
  "declared_at",
  "emits",
  "when",
  "command",
  "agent",
  "route",
  "evaluate",
  "revise",
];

// eslint-disable-next-line max-lines-per-function -- a table: one task of a TOML plan read key by key, per kind
function readTask(rd: Reader, v: unknown, path: string): TaskPlan {
  const t = rd.table(v, path);
  rd.known(t, path, TASK_KEYS);
  const name = rd.str(t, "name", path);
  const p = `${path}(${name})`;
  const kind = rd.oneOf(t, "kind", p, ["command", "agent", "route", "evaluate", "revise"] as const);
  const at = rd.str(t, "declared_at", p);
  const [, file, line, col] = /^(.*):(\d+):(\d+)$/.exec(at) ?? [];
  if (file === undefined || line === undefined || col === undefined)
    rd.fail(`${p}.declared_at`, `expected "file:line:col", got ${JSON.stringify(at)}`);
  const emitsTable = rd.table(t.emits, `${p}.emits`);
  const emits: Record<string, FieldType> = {};
  for (const [k, x] of Object.entries(emitsTable)) {
    if (typeof x !== "string" || !isOneOf(FIELD_TYPES, x))
      rd.fail(`${p}.emits.${k}`, `expected one of ${FIELD_TYPES.join(", ")}, got ${describe(x)}`);
    emits[k] = x;
  }
  const out: TaskBase & { kind: TaskKind } = {
    name,
    kind,
    depends_on: rd.strList(t, "depends_on", p),
    join: rd.oneOf(t, "join", p, ["all", "settled"] as const),
    aligned_with: rd.strList(t, "aligned_with", p),
    keyed: rd.strList(t, "keyed", p).map((s, i) => rd.ref(s, `${p}.keyed[${i}]`)),
    timeout_seconds: rd.positive(t, "timeout_seconds", p),
    retries: rd.int(t, "retries", p, 0),
    emits,
    declared_at: { file, line: Number(line), col: Number(col) },
  };
  if (t.over !== undefined) out.over = rd.ref(rd.str(t, "over", p), `${p}.over`);
  if (t.max_fanout !== undefined) out.max_fanout = rd.int(t, "max_fanout", p, 1, 10000);
  if (t.when !== undefined) out.when = readWhen(rd, t.when, `${p}.when`);
  const specs: Partial<KindSpecs> = {};
  const need = (k: string) => {
    if (t[k] === undefined) rd.fail(`${p}.${k}`, `a ${kind} task needs a [${k}] table`);
  };
  if (kind === "command" || t.command !== undefined) {
    need("command");
    const c = rd.table(t.command, `${p}.command`);
    rd.known(c, `${p}.command`, ["run", "env"]);
    specs.command = { run: rd.str(c, "run", `${p}.command`), env: rd.strRecord(c, "env", `${p}.command`) };
  }
  if (kind === "agent" || t.agent !== undefined) {
    need("agent");
    const a = rd.table(t.agent, `${p}.agent`);
    const ap = `${p}.agent`;
    rd.known(a, ap, ["prompt", "effort", "files", "runner", "workspace"]);
    specs.agent = {
      prompt: rd.str(a, "prompt", ap),
      effort: rd.oneOf(a, "effort", ap, ["low", "medium", "high"] as const),
      files: rd.strList(a, "files", ap),
      runner: rd.str(a, "runner", ap),
    };
    if (a.workspace !== undefined && rd.oneOf(a, "workspace", ap, ["scratch", "worktree"] as const) === "worktree")
      specs.agent.workspace = "worktree";
  }
  if (kind === "route" || t.route !== undefined) {
    need("route");
    const r = rd.table(t.route, `${p}.route`);
    const rp = `${p}.route`;
    rd.known(r, rp, ["decide", "source", "min_confidence", "files", "questions"]);
    const qs = r.questions;
    if (!Array.isArray(qs)) rd.fail(`${rp}.questions`, `expected a list of tables, got ${describe(qs)}`);
    specs.route = {
      decide: rd.oneOf(r, "decide", rp, ["model", "output"] as const),
      min_confidence: rd.num(r, "min_confidence", rp),
      files: rd.strList(r, "files", rp),
      questions: qs.map((q, i) => readQuestion(rd, q, `${rp}.questions[${i}]`)),
    };
    if (r.source !== undefined) specs.route.source = rd.ref(rd.str(r, "source", rp), `${rp}.source`);
  }
  if (kind === "evaluate" || t.evaluate !== undefined) {
    need("evaluate");
    const e = rd.table(t.evaluate, `${p}.evaluate`);
    rd.known(e, `${p}.evaluate`, ["module", "function"]);
    specs.evaluate = { module: rd.str(e, "module", `${p}.evaluate`), function: rd.str(e, "function", `${p}.evaluate`) };
  }
  if (kind === "revise" || t.revise !== undefined) {
    need("revise");
    const r = rd.table(t.revise, `${p}.revise`);
    rd.known(r, `${p}.revise`, ["max_rounds", "body", "reviewer"]);
    specs.revise = {
      body: readTask(rd, r.body, `${p}.revise.body`),
      reviewer: readTask(rd, r.reviewer, `${p}.revise.reviewer`),
      max_rounds: rd.int(r, "max_rounds", `${p}.revise`, 1, 100),
    };
  }
  const found = ["command", "agent", "route", "evaluate", "revise"].filter((k) => t[k] !== undefined);
  if (found.length !== 1 || found[0] !== kind)
    rd.fail(p, `a ${kind} task has exactly one [${kind}] table (found: ${found.join(", ") || "none"})`);
  return { ...out, ...pickSpec(kind, specs, () => rd.fail(p, `a ${kind} task needs a [${kind}] table`)) };
}

/** The kind's spec from those read (the spec goes last, so the plan's JSON keeps its key order). */
function pickSpec(kind: TaskKind, specs: Partial<KindSpecs>, missing: () => never): TaskSpec {
  switch (kind) {
    case "command":
      return { kind, command: specs.command ?? missing() };
    case "agent":
      return { kind, agent: specs.agent ?? missing() };
    case "route":
      return { kind, route: specs.route ?? missing() };
    case "evaluate":
      return { kind, evaluate: specs.evaluate ?? missing() };
    case "revise":
      return { kind, revise: specs.revise ?? missing() };
  }
}

function readWhen(rd: Reader, v: unknown, path: string): WhenPlan {
  const w = rd.table(v, path);
  rd.known(w, path, ["route", "question", "answers", "otherwise", "labels", "any_option"]);
  const out: WhenPlan = {
    route: rd.str(w, "route", path),
    question: rd.str(w, "question", path),
    otherwise: rd.bool(w, "otherwise", path),
    labels: rd.strList(w, "labels", path),
    any_option: rd.bool(w, "any_option", path),
  };
  if (w.answers !== undefined) out.answers = rd.strList(w, "answers", path);
  return out;
}

function readQuestion(rd: Reader, v: unknown, path: string): QuestionPlan {
  const q = rd.table(v, path);
  rd.known(q, path, ["name", "kind", "ask", "labels", "dynamic", "drop", "min_confidence", "type", "descriptions"]);
  const out: QuestionPlan = {
    name: rd.str(q, "name", path),
    kind: rd.oneOf(q, "kind", path, ["choice", "noul", "score"] as const),
    ask: rd.str(q, "ask", path),
    labels: rd.strList(q, "labels", path),
    descriptions: rd.strRecord(q, "descriptions", path),
    drop: rd.strList(q, "drop", path),
    type: rd.str(q, "type", path),
  };
  if (q.dynamic !== undefined) out.dynamic = rd.ref(rd.str(q, "dynamic", path), `${path}.dynamic`);
  if (q.min_confidence !== undefined) out.min_confidence = rd.num(q, "min_confidence", path);
  return out;
}

/** Parses and validates a plan file; throws DiagnosticError (code malformed-plan) on any defect. */
export function readPlanToml(text: string, file = "plan.toml"): Plan {
  const rd = new Reader(file);
  let doc: Table;
  try {
    doc = parse(text);
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split("\n")[0];
      throw new DiagnosticError(
        errorAt(
          "malformed-plan",
          `${file} is not valid TOML: ${first}`,
          { file, line: e.line, col: e.column },
          "recompile the plan with `switchyard compile`",
        ),
      );
    }
    throw e;
  }
  rd.known(doc, "plan file", ["plan", "task"]);
  const p = rd.table(doc.plan, "[plan]");
  rd.known(p, "plan", ["playbook", "source_file", "pack_digest", "compiler_version", "settings"]);
  const s = rd.table(p.settings, "plan.settings");
  rd.known(s, "plan.settings", ["description", "concurrency", "decision_concurrency", "max_duration_seconds", "budget_usd"]);
  const settings: PlanSettings = {
    description: rd.str(s, "description", "plan.settings"),
    concurrency: rd.int(s, "concurrency", "plan.settings", 1),
    decision_concurrency: rd.int(s, "decision_concurrency", "plan.settings", 1),
    max_duration_seconds: rd.positive(s, "max_duration_seconds", "plan.settings"),
  };
  if (s.budget_usd !== undefined) settings.budget_usd = rd.num(s, "budget_usd", "plan.settings");
  const rawTasks: unknown = doc.task ?? [];
  if (!Array.isArray(rawTasks)) return rd.fail("task", "expected [[task]] tables");
  const tasks = rawTasks.map((t, i) => readTask(rd, t, `task[${i}]`));
  checkGraph(rd, tasks);
  return {
    playbook: rd.str(p, "playbook", "plan"),
    source_file: rd.str(p, "source_file", "plan"),
    pack_digest: rd.str(p, "pack_digest", "plan"),
    compiler_version: rd.str(p, "compiler_version", "plan"),
    settings,
    tasks,
  };
}

/** The references a run engine follows must resolve: names unique, dependencies declared earlier. */
function checkGraph(rd: Reader, tasks: TaskPlan[]): void {
  const seen = new Map<string, TaskPlan>();
  for (const [i, t] of tasks.entries()) {
    const p = `task[${i}](${t.name})`;
    if (seen.has(t.name)) rd.fail(p, `duplicate task name '${t.name}'`);
    for (const d of t.depends_on) if (!seen.has(d)) rd.fail(`${p}.depends_on`, `'${d}' is not a task declared before '${t.name}'`);
    for (const a of t.aligned_with)
      if (!t.depends_on.includes(a)) rd.fail(`${p}.aligned_with`, `'${a}' is not a dependency of '${t.name}'`);
    const refs: FieldRef[] = [
      ...t.keyed,
      ...(t.over ? [t.over] : []),
      ...(t.route?.source ? [t.route.source] : []),
      ...(t.route?.questions.flatMap((q) => (q.dynamic ? [q.dynamic] : [])) ?? []),
    ];
    for (const r of refs) {
      const producer = seen.get(r.task);
      if (!producer) rd.fail(p, `reference ${r.task}.${r.field} names no task declared before '${t.name}'`);
      if (!(r.field in producer.emits)) rd.fail(p, `reference ${r.task}.${r.field}: '${r.task}' emits no field '${r.field}'`);
    }
    const when = t.when;
    if (when) {
      const route = seen.get(when.route);
      if (!route?.route) rd.fail(`${p}.when`, `'${when.route}' is not a route declared before '${t.name}'`);
      if (!route.route.questions.some((q) => q.name === when.question))
        rd.fail(`${p}.when`, `route '${when.route}' has no question '${when.question}'`);
    }
    seen.set(t.name, t);
  }
}
