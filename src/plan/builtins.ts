// The playbook built-ins (L-5, §3, §7): playbook, command, agent, route, evaluate, revise, choice,
// noul, score. Each reads its arguments strictly (args.ts) and records a declared task; the graph
// rules run afterwards over the declared tasks (checks.ts).

import { nearestName } from "../lang/diagnostic.js";
import { Builtin, Dict, StarFunction, typeName, type CallContext, type Value } from "../lang/values.js";
import { listItems, Reader, unpack } from "./args.js";
import type { CompileContext } from "./context.js";
import { DEFAULT_SETTINGS, type DeclQuestion, type DeclSettings, type DeclTask, type DeclWhen } from "./declared.js";
import { FIELD_TYPES, type Effort, type FieldType, type Join, type QuestionKind, type TaskKind } from "./plan.js";
import { FieldRefValue, InertValue, QuestionValue, TaskValue } from "./values.js";
import { isOneOf } from "../shared/primitives.js";

export { CompileContext } from "./context.js";

const COMMON = [
  "depends_on?",
  "join?",
  "over?",
  "max_fanout?",
  "keyed?",
  "when?",
  "answers?",
  "otherwise?",
  "timeout?",
  "retries?",
  "emits?",
];

// ---------------------------------------------------------------------------------------------
// Tasks

function newTask(ctx: CompileContext, kind: TaskKind, call: CallContext): DeclTask {
  return {
    id: ctx.newId(),
    name: "",
    kind,
    pos: call.pos,
    file: ctx.packRelative(call.pos.file),
    namePos: call.pos,
    depends_on: [],
    join: "all",
    keyed: [],
    timeout_seconds: 1800,
    retries: 0,
    emits: {},
    complete: true,
    broken: new Set(),
    refs: [],
  };
}

/** Reads the arguments every kind shares (§3). */
// eslint-disable-next-line max-lines-per-function -- a table: the arguments every task kind shares, read one by one in the order of §3
function readCommon(r: Reader, t: DeclTask): void {
  const name = r.string("name");
  if (name !== undefined) {
    t.name = name;
    t.namePos = r.pos("name");
  } else {
    t.name = "<unnamed>";
    r.broken.add("name");
  }
  if (r.has("depends_on")) {
    const v = r.value("depends_on");
    const items = listItems(v);
    if (!items) r.wrong("depends_on", "a list of tasks", v);
    else {
      for (const x of items) {
        if (x instanceof TaskValue) {
          if (!t.depends_on.some((d) => d.task === x.decl)) t.depends_on.push({ task: x.decl, pos: r.pos("depends_on") });
        } else if (x instanceof FieldRefValue && x.ref) {
          r.wrong("depends_on", "a list of tasks", x, `write ${x.ref.producer.name}, not ${x.ref.producer.name}.${x.ref.field}`);
        } else r.wrong("depends_on", "a list of tasks", x);
      }
    }
  }
  t.join = r.oneOf<Join>("join", ["all", "settled"], "all");
  if (r.has("over")) t.over = r.ref("over");
  const fan = r.rawInt("max_fanout");
  if (fan !== undefined) t.max_fanout = { value: fan, pos: r.pos("max_fanout") };
  if (r.has("keyed")) {
    const v = r.value("keyed");
    const items = listItems(v);
    if (!items)
      r.wrong("keyed", "a list of field references", v, v instanceof FieldRefValue ? "write keyed = [producer.field]" : undefined);
    else
      for (const x of items) {
        const ref = r.ref("keyed", x);
        if (ref) t.keyed.push(ref);
      }
  }
  if (r.has("when")) {
    const ref = r.ref("when");
    if (ref) {
      const w: DeclWhen = { ref, otherwise: false };
      const answers = r.labels("answers");
      if (answers !== undefined && answers.length === 0) {
        r.invalid(
          "answers",
          "the list of labels is empty, so the task could never run",
          "list at least one label, or use otherwise = True",
        );
      } else if (answers !== undefined) {
        w.answers = answers;
        w.answersPos = r.pos("answers");
      }
      if (r.has("otherwise")) {
        w.otherwise = r.bool("otherwise", false);
        w.otherwisePos = r.pos("otherwise");
      }
      t.when = w;
    } else if (r.a.values.when instanceof FieldRefValue && r.a.values.when.producer) {
      t.gateCoverageUnknown = [r.a.values.when.producer];
    }
  } else {
    if (r.a.gatesOn) t.gateCoverageUnknown = r.a.gatesOn;
    if (r.has("answers") || r.has("otherwise")) t.strayGate = r.pos(r.has("answers") ? "answers" : "otherwise");
  }
  t.timeout_seconds = r.duration("timeout", 1800);
  t.retries = r.int("retries", 0, 0, 100);
  if (r.has("emits")) {
    const v = r.value("emits");
    t.emitsPos = r.pos("emits");
    if (!(v instanceof Dict)) r.wrong("emits", 'a dict of field name → type ("string", "number", "bool", "list", "object", "any")', v);
    else {
      for (const [k, x] of v.entries()) {
        if (typeof k !== "string") {
          r.wrong("emits", "a dict with string keys", k);
          continue;
        }
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
          r.ctx.report(
            "invalid-name",
            `emits field ${JSON.stringify(k)} is not an identifier`,
            r.pos("emits"),
            "field names are identifiers so they can be written as task.field",
          );
          continue;
        }
        if (typeof x !== "string" || !isOneOf(FIELD_TYPES, x)) {
          const near = typeof x === "string" ? nearestName(x, FIELD_TYPES) : undefined;
          r.ctx.report(
            "invalid-field-type",
            `emits field '${k}' has type ${typeof x === "string" ? JSON.stringify(x) : typeName(x)}; types are ${FIELD_TYPES.map((f) => JSON.stringify(f)).join(", ")}`,
            r.pos("emits"),
            near ? `did you mean "${near}"?` : undefined,
          );
          t.emits[k] = "any"; // keep the field referenceable: no follow-on undeclared-field
          continue;
        }
        t.emits[k] = x;
      }
    }
  }
  t.refs = [...(t.over ? [t.over] : []), ...t.keyed, ...(t.when ? [t.when.ref] : [])];
}

function finish(ctx: CompileContext, r: Reader, t: DeclTask, call: CallContext): TaskValue {
  t.broken = r.broken;
  t.complete = r.broken.size === 0;
  const module = ctx.inModuleTopLevel();
  if (module !== undefined) {
    ctx.report(
      "module-declares-task",
      `module ${ctx.packRelative(module)} declares task '${t.name}' at its top level`,
      call.pos,
      "modules may define helper functions that declare tasks; call them from the playbook (L-4)",
    );
  }
  ctx.tasks.push(t);
  return new TaskValue(t, ctx);
}

type Impl = (ctx: CompileContext, r: Reader, t: DeclTask, call: CallContext) => void;

function taskBuiltin(ctx: CompileContext, kind: TaskKind, params: string[], impl: Impl): Builtin {
  return new Builtin(kind, (call, args, kwargs) => {
    const t = newTask(ctx, kind, call);
    const broken = new Set<string>();
    const a = unpack(ctx, call, kind, args, kwargs, ["name", ...params, ...COMMON], broken);
    const r = new Reader(ctx, kind, a, call.pos, broken);
    readCommon(r, t);
    impl(ctx, r, t, call);
    return finish(ctx, r, t, call);
  });
}

const commandImpl: Impl = (_ctx, r, t) => {
  const run = r.string("run");
  if (run !== undefined && run.trim() === "")
    r.invalid("run", "the command line is empty", 'write the shell command to run, e.g. run = "make test"');
  t.command = { run: run ?? "", env: r.stringDict("env") ?? {} };
};

const agentImpl: Impl = (_ctx, r, t) => {
  const files = r.stringList("files") ?? [];
  t.agent = {
    prompt: r.string("prompt") ?? "",
    promptPos: r.pos("prompt"),
    effort: r.oneOf<Effort>("effort", ["low", "medium", "high"], "medium"),
    files,
    filesPos: r.pos("files"),
    runner: r.string("runner") ?? "default",
  };
  if (r.oneOf("workspace", ["scratch", "worktree"], "scratch") === "worktree") t.agent.workspace = "worktree";
  // An agent's output carries its files (T-2), so dependents may read `agent.files`.
  if (files.length > 0 && !("files" in t.emits)) t.emits.files = "object";
};

const routeImpl: Impl = (ctx, r, t) => {
  const questions: DeclQuestion[] = [];
  if (r.has("questions")) {
    const v = r.value("questions");
    if (!(v instanceof Dict)) r.wrong("questions", "a dict of question name → choice(...) / noul(...) / score(...)", v);
    else {
      for (const [k, x] of v.entries()) {
        if (typeof k !== "string") {
          r.wrong("questions", "a dict with string keys (question names)", k);
          continue;
        }
        if (!(x instanceof QuestionValue)) {
          r.wrong("questions", "a dict whose values are choice(...), noul(...) or score(...)", x);
          continue;
        }
        questions.push({ ...x.question, name: k });
      }
    }
  }
  const decide = r.oneOf<"model" | "output">("decide", ["model", "output"], "model");
  const source = r.has("source") && r.a.values.source !== null ? r.ref("source") : undefined;
  t.route = {
    decide,
    decidePos: r.pos("decide"),
    min_confidence: r.number("min_confidence") ?? 0,
    confidencePos: r.pos("min_confidence"),
    files: r.stringList("files") ?? [],
    filesPos: r.pos("files"),
    questions,
    questionsPos: r.pos("questions"),
  };
  if (source) t.route.source = source;
  if (r.has("source") && !source && r.a.values.source !== null) r.broken.add("source");
  t.emits = Object.fromEntries(questions.map((q) => [q.name, "string" satisfies FieldType]));
  if (r.has("emits")) {
    ctx.report("invalid-value", "route() does not take emits: its fields are its question names (T-10)", r.pos("emits"), "remove emits");
  }
  t.refs.push(...(source ? [source] : []), ...questions.flatMap((q) => (q.dynamic ? [q.dynamic] : [])));
};

const evaluateImpl: Impl = (ctx, r, t) => {
  if (!r.has("fn")) return;
  const fn = r.value("fn");
  if (!(fn instanceof StarFunction)) {
    r.wrong("fn", "a function defined with def", fn);
    return;
  }
  if (fn.isLambda || !fn.isTopLevel) {
    ctx.report(
      "evaluate-not-top-level",
      `evaluate() fn must be a top-level def, but ${fn.isLambda ? "it is a lambda" : `'${fn.name}' is a nested function`}, which the plan cannot refer to by module and name`,
      r.pos("fn"),
      "define the function with def at the top level of the playbook or of a lib/ module (T-4)",
    );
    r.broken.add("fn");
    return;
  }
  t.evaluate = { module: ctx.packRelative(fn.file), function: fn.name, fnPos: r.pos("fn"), fn };
};

const reviseImpl: Impl = (ctx, r, t) => {
  const take = (name: "body" | "reviewer"): DeclTask | undefined => {
    if (!r.has(name)) return undefined;
    const v = r.value(name);
    if (!(v instanceof TaskValue))
      return r.wrong(name, "a task declared inline (agent(...), command(...)" + (name === "reviewer" ? " or evaluate(...))" : ")"), v);
    if (v.decl.inlineIn) {
      ctx.report(
        "inline-task-referenced",
        `'${v.decl.name}' is already the ${v.decl.inlineIn.revise?.body === v.decl ? "body" : "reviewer"} of revise '${v.decl.inlineIn.name}'`,
        r.pos(name),
        "declare a separate task for each loop",
      );
      r.broken.add(name);
      return undefined;
    }
    v.decl.inlineIn = t;
    return v.decl;
  };
  const body = take("body");
  const reviewer = take("reviewer");
  const max_rounds = r.rawInt("max_rounds") ?? 3;
  if (body && reviewer) {
    t.revise = { body, reviewer, max_rounds };
    t.emits = { ...body.emits, rounds: "number" };
  } else {
    r.broken.add("emits");
  }
  if (r.has("emits"))
    ctx.report(
      "revise-emits",
      "revise() does not take emits: its output is its body's output plus rounds",
      r.pos("emits"),
      "declare the fields in the body's emits",
    );
};

// ---------------------------------------------------------------------------------------------
// Questions

function questionBuiltin(
  ctx: CompileContext,
  kind: QuestionKind,
  params: string[],
  read: (r: Reader, q: Omit<DeclQuestion, "name">) => void,
): Builtin {
  return new Builtin(kind, (call, args, kwargs) => {
    const broken = new Set<string>();
    const a = unpack(ctx, call, kind, args, kwargs, ["ask", ...params, "drop?", "min_confidence?", "type?"], broken);
    const r = new Reader(ctx, kind, a, call.pos, broken);
    const q: Omit<DeclQuestion, "name"> = {
      kind,
      ask: r.string("ask") ?? "",
      labels: [],
      descriptions: {},
      drop: r.labels("drop") ?? [],
      pos: call.pos,
      dropPos: r.pos("drop"),
      valid: true,
    };
    const mc = r.number("min_confidence");
    if (mc !== undefined) q.min_confidence = mc;
    const type = r.optString("type");
    if (type !== undefined) {
      if (!/^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*$/.test(type))
        r.invalid(
          "type",
          `${JSON.stringify(type)} is not a judgement type (dot-separated names of letters, digits, _ and -, e.g. "triage.gate.depth")`,
        );
      else q.type = type;
    }
    read(r, q);
    q.valid = broken.size === 0;
    if (kind !== "noul" && ["options", "levels", "all"].some((b) => broken.has(b))) q.labelsUnknown = true;
    return new QuestionValue(q);
  });
}

function readLabelDict(r: Reader, name: string, q: Omit<DeclQuestion, "name">): void {
  const v = r.value(name);
  if (!(v instanceof Dict)) {
    r.wrong(name, "a dict of label → description", v);
    return;
  }
  for (const [k, x] of v.entries()) {
    if (typeof k !== "string" || typeof x !== "string") {
      r.wrong(name, "a dict of label → description (strings)", v);
      return;
    }
    q.labels.push(k);
    q.descriptions[k] = x;
  }
}

// ---------------------------------------------------------------------------------------------
// playbook()

function playbookBuiltin(ctx: CompileContext): Builtin {
  return new Builtin("playbook", (call, args, kwargs) => {
    const broken = new Set<string>();
    const a = unpack(
      ctx,
      call,
      "playbook",
      args,
      kwargs,
      ["description?", "concurrency?", "decision_concurrency?", "max_duration?", "budget_usd?"],
      broken,
    );
    const r = new Reader(ctx, "playbook", a, call.pos, broken);
    const module = ctx.inModuleTopLevel();
    if (module !== undefined) {
      ctx.report(
        "module-declares-task",
        `module ${ctx.packRelative(module)} calls playbook() at its top level`,
        call.pos,
        "only the playbook file sets run-wide settings (L-4, L-5)",
      );
      return null;
    }
    if (ctx.playbookCall) {
      ctx.report(
        "playbook-repeated",
        `playbook() is called again (first call at line ${ctx.playbookCall.line})`,
        call.pos,
        "merge the settings into one playbook(...) call (L-5)",
      );
      return null;
    }
    ctx.playbookCall = call.pos;
    const first = ctx.tasks.find((t) => !t.inlineIn);
    if (first)
      ctx.report(
        "playbook-after-task",
        `playbook() is called after task '${first.name}' was declared (line ${first.pos.line})`,
        call.pos,
        "call playbook(...) before declaring any task (L-5)",
      );
    const s: DeclSettings = {
      description: r.string("description") ?? DEFAULT_SETTINGS.description,
      concurrency: r.int("concurrency", DEFAULT_SETTINGS.concurrency, 1, 10000),
      decision_concurrency: r.int("decision_concurrency", DEFAULT_SETTINGS.decision_concurrency, 1, 10000),
      max_duration_seconds: r.duration("max_duration", DEFAULT_SETTINGS.max_duration_seconds),
    };
    const budget = r.number("budget_usd");
    if (budget !== undefined) {
      if (!(budget > 0) || !Number.isFinite(budget)) r.invalid("budget_usd", `${budget} is not a positive amount`);
      else s.budget_usd = budget;
    }
    ctx.settings = s;
    return null;
  });
}

// ---------------------------------------------------------------------------------------------

/** The playbook built-ins of one compilation. */
export function playbookBuiltins(ctx: CompileContext): Record<string, Value> {
  return {
    playbook: playbookBuiltin(ctx),
    command: taskBuiltin(ctx, "command", ["run", "env?"], commandImpl),
    agent: taskBuiltin(ctx, "agent", ["prompt", "effort?", "files?", "runner?", "workspace?"], agentImpl),
    route: taskBuiltin(ctx, "route", ["questions", "decide?", "source?", "min_confidence?", "files?"], routeImpl),
    evaluate: taskBuiltin(ctx, "evaluate", ["fn"], evaluateImpl),
    revise: taskBuiltin(ctx, "revise", ["body", "reviewer", "max_rounds?"], reviseImpl),
    choice: questionBuiltin(ctx, "choice", ["options"], (r, q) => {
      if (!r.has("options")) return;
      const v = r.value("options");
      if (v instanceof FieldRefValue) {
        const ref = r.ref("options", v);
        if (ref) q.dynamic = ref;
      } else if (v instanceof Dict) readLabelDict(r, "options", q);
      else r.wrong("options", "a dict of label → criterion, or a field reference (dynamic choice)", v);
    }),
    noul: questionBuiltin(ctx, "noul", ["yes?", "no?"], (r, q) => {
      q.labels = ["yes", "no"];
      q.descriptions = { yes: r.optString("yes") ?? "", no: r.optString("no") ?? "" };
    }),
    score: questionBuiltin(ctx, "score", ["levels"], (r, q) => {
      if (r.has("levels")) readLabelDict(r, "levels", q);
    }),
  };
}

/** The same names in inert mode: they accept anything and declare nothing (run-time `evaluate`). */
export function inertBuiltins(): Record<string, Value> {
  const inert = (name: string, kind: string) => new Builtin(name, () => (kind === "none" ? null : new InertValue(kind)));
  return {
    playbook: inert("playbook", "none"),
    command: inert("command", "task"),
    agent: inert("agent", "task"),
    route: inert("route", "task"),
    evaluate: inert("evaluate", "task"),
    revise: inert("revise", "task"),
    choice: inert("choice", "question"),
    noul: inert("noul", "question"),
    score: inert("score", "question"),
  };
}
