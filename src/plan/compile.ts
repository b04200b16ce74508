// Compiling a playbook (C-1 … C-20): evaluate the playbook file with the playbook built-ins,
// loading pack modules once each (L-3), then apply the graph rules and build the Plan.

import { suggestBuiltin } from "./builtin-aliases.js";
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { errorAt, sortDiagnostics, type Diagnostic, type Position } from "../lang/diagnostic.js";
import { execFile, StarFunction, Thread, type LoadResult, type Value } from "../lang/index.js";
import { CompileContext, playbookBuiltins } from "./builtins.js";
import { checkTasks } from "./checks.js";
import { displayPath, packDigest, readPackToml, resolveLoadPath, resolveTarget } from "./pack.js";
import type { Plan } from "./plan.js";
import { readPlanToml } from "./toml.js";
import { COMPILER_VERSION } from "./version.js";
import { planCode } from "./codes.js";
import { wholeReadWarnings } from "./whole-reads.js";
import { BROKEN_TYPE, BrokenValue, FieldRefValue, holds, TaskValue } from "./values.js";

/** A compilation's plan, present only when it has no error, and every diagnostic, sorted. */
export interface CompileResult {
  plan?: Plan;
  /** Sorted by file, line, column. */
  diagnostics: Diagnostic[];
  /** Display path → text, for error excerpts. */
  sources: Map<string, string>;
  /** Absolute pack root. */
  packRoot: string;
}

/** How to compile: which playbook of a pack, the step budget, and where `print` goes. */
export interface CompileOptions {
  /** With a pack folder holding several playbooks: which one (L-2). */
  playbook?: string;
  /** Step budget of the whole compilation (L-14). */
  stepBudget?: number;
}

/** Compiles a pack folder, a `.star` playbook, or reads a compiled plan `.toml` (L-2). */
export function compilePath(path: string, opts: CompileOptions = {}): CompileResult {
  let r: CompileResult;
  try {
    r = compileTarget(path, opts);
  } catch (e) {
    // Unreadable files (permissions, a vanished file) are the user's to fix, not a crash.
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) throw e;
    return {
      diagnostics: [errorAt("pack-not-found", `cannot read ${path}: ${(e as Error).message}`, undefined)],
      sources: new Map(),
      packRoot: "",
    };
  }
  return { ...r, diagnostics: r.diagnostics.map(suggestBuiltin).map(citeRule) };
}

function compileTarget(path: string, opts: CompileOptions): CompileResult {
  const { target, diagnostics } = resolveTarget(path, opts.playbook);
  const sources = new Map<string, string>();
  if (!target) return { diagnostics, sources, packRoot: "" };
  const display = displayPath(target.file);
  if (target.kind === "plan") {
    const text = readFileSync(target.file, "utf8");
    sources.set(display, text);
    try {
      return { plan: readPlanToml(text, display), diagnostics: [], sources, packRoot: target.root };
    } catch (e) {
      if (e instanceof Error && "diagnostics" in e)
        return { diagnostics: (e as { diagnostics: Diagnostic[] }).diagnostics, sources, packRoot: target.root };
      throw e;
    }
  }
  return compilePlaybook(target.root, target.file, target.playbook, opts, sources);
}

/** Pack-relative path with "/" separators. */
function packRel(root: string, abs: string): string {
  return relative(root, abs).split(sep).join("/");
}

/** Compiles one playbook of a pack: evaluates its file with the playbook built-ins, loads its modules once each, checks the graph, and builds the plan. */
// eslint-disable-next-line max-lines-per-function -- not split yet: compiling a playbook's phases in order; to be split per phase
export function compilePlaybook(
  root: string,
  file: string,
  playbook: string,
  opts: CompileOptions = {},
  sources = new Map<string, string>(),
): CompileResult {
  const diags: Diagnostic[] = [];
  const pack = readPackToml(root, displayPath(`${root}${sep}pack.toml`));
  diags.push(...pack.diagnostics);

  const display = displayPath(file);
  const displayToRel = new Map<string, string>([[display, packRel(root, file)]]);
  const ctx = new CompileContext(display, (d) => displayToRel.get(d) ?? d, sources);
  const builtins = playbookBuiltins(ctx);
  const thread = new Thread({ stepBudget: opts.stepBudget, print: () => {} });

  const modules = new Map<string, LoadResult | "failed">();
  const loading: string[] = [];
  // Modules that loaded names from a module with errors: their own names are unknown too.
  const tainted = new Set<string>();
  // A failed load is reported once, where the problem is; the loading file goes on with stand-ins
  // for the module's names, so the rest of the playbook is still checked.
  const failed = (rel: string): LoadResult => {
    if (loading.length > 0) tainted.add(loading[loading.length - 1]);
    ctx.unknownValues = true;
    // A helper called with tasks (or with a playbook function, which sees every task) may declare
    // tasks gated on them.
    return {
      globals: new UnknownGlobals(rel, (args) => {
        if (args.some((a) => holds(a, (x) => x instanceof TaskValue || x instanceof FieldRefValue || x instanceof StarFunction)))
          ctx.unknownTasks = true;
      }),
    };
  };
  const load = (module: string, pos: Position): LoadResult => {
    const res = resolveLoadPath(root, module);
    if (!res.ok) {
      ctx.report(res.code, res.message, pos, res.hint);
      return failed(module);
    }
    const cached = modules.get(res.rel);
    if (cached === "failed") return failed(res.rel);
    if (cached) return cached;
    if (loading.includes(res.rel)) {
      ctx.report(
        "load-cycle",
        `load cycle: ${[...loading.slice(loading.indexOf(res.rel)), res.rel].join(" -> ")}`,
        pos,
        "move the shared definitions into a module both can load",
      );
      return failed(res.rel);
    }
    const text = readFileSync(res.abs, "utf8");
    const modDisplay = displayPath(res.abs);
    sources.set(modDisplay, text);
    displayToRel.set(modDisplay, res.rel);
    loading.push(res.rel);
    ctx.executing.push(modDisplay);
    let result;
    try {
      result = execFile(modDisplay, text, { predeclared: builtins, load: (m, p) => load(m, p), thread, print: () => {} });
    } finally {
      ctx.executing.pop();
      loading.pop();
    }
    diags.push(...knownProblems(result.diagnostics, modDisplay));
    if (!result.ok || tainted.has(res.rel)) {
      modules.set(res.rel, "failed");
      return failed(res.rel);
    }
    const loaded: LoadResult = { globals: result.globals };
    modules.set(res.rel, loaded);
    return loaded;
  };

  const text = readFileSync(file, "utf8");
  sources.set(display, text);
  ctx.executing.push(display);
  const result = execFile(display, text, { predeclared: builtins, load: (m, p) => load(m, p), thread, print: () => {} });
  ctx.executing.pop();
  diags.push(...knownProblems(result.diagnostics, display));
  diags.push(...ctx.diagnostics);

  // T-4: the plan names the function by module and name, so that name must still be bound to it
  // when the module finishes (a later `def` or assignment of the same name would run other code).
  if (result.ok) {
    const globalsOf = (rel: string) => {
      if (rel === packRel(root, file)) return result.globals;
      const m = modules.get(rel);
      return m === "failed" ? undefined : m?.globals;
    };
    for (const t of ctx.tasks) {
      if (!t.evaluate || modules.get(t.evaluate.module) === "failed") continue;
      const bound = globalsOf(t.evaluate.module)?.get(t.evaluate.function);
      if (bound !== t.evaluate.fn) {
        diags.push(
          errorAt(
            "evaluate-not-top-level",
            `evaluate() fn '${t.evaluate.function}' is not what the name '${t.evaluate.function}' refers to at the end of ${t.evaluate.module}, so the plan could not find it by name`,
            t.evaluate.fnPos,
            "give each evaluate function its own name and do not rebind it (T-4)",
          ),
        );
      }
    }
  }
  const tasks = ctx.topLevelTasks();
  const checked = checkTasks(tasks, { evaluationComplete: result.ok && !ctx.unknownTasks, playbook });
  diags.push(...checked.diagnostics);
  if (result.ok && ctx.tasks.length === 0 && !diags.some((d) => d.severity === "error")) {
    diags.push(
      errorAt(
        "empty-playbook",
        `playbook '${playbook}' declares no task`,
        { file: display, line: 1, col: 1 },
        "declare tasks with command(...), agent(...), route(...), evaluate(...) or revise(...)",
      ),
    );
  }
  diags.push(...wholeReadWarnings(checked.tasks));
  const sorted = sortDiagnostics(dedupe(diags).map(suggestBuiltin).map(citeRule));
  if (sorted.some((d) => d.severity === "error")) return { diagnostics: sorted, sources, packRoot: root };
  const plan: Plan = {
    playbook,
    source_file: packRel(root, file),
    pack_digest: packDigest(root),
    compiler_version: COMPILER_VERSION,
    settings: { ...ctx.settings },
    tasks: checked.tasks,
  };
  return { plan, diagnostics: sorted, sources, packRoot: root };
}

/**
 * A map of a module with errors: every name it is asked for is an unknown stand-in, so `load`
 * binds whatever the playbook asks for and nothing is reported beyond the module's own errors.
 */
class UnknownGlobals extends Map<string, Value> {
  constructor(
    private readonly module: string,
    private readonly onCall: (args: Value[]) => void,
  ) {
    super();
  }
  override get(_name: string): Value {
    return new BrokenValue(this.module, this.onCall);
  }
}

/**
 * A run-time error on an unknown stand-in follows from a module's own errors: instead of
 * reporting it again, say (as a warning) where checking stopped and why.
 */
function knownProblems(list: Diagnostic[], file: string): Diagnostic[] {
  return list.map((d) => {
    if (d.severity !== "error" || !d.message.includes(BROKEN_TYPE)) return d;
    const pos = [...(d.stack ?? [])].reverse().find((f) => f.pos.file === file)?.pos ?? d.pos;
    return {
      severity: "warning",
      code: "check-stopped",
      message:
        "checking stopped here: this line uses a name loaded from a module with errors (reported there), so what follows was not checked",
      pos,
      hint: "fix the module's errors and check again",
    };
  });
}

/** Plan diagnostics name the rule they enforce, so a reader can look it up in docs/reference/. */
function citeRule(d: Diagnostic): Diagnostic {
  const rule = planCode(d.code)?.rule;
  if (!rule || /\([A-Z]-\d+a?\)/.test(d.message)) return d;
  return { ...d, message: `${d.message} (${rule})` };
}

/** The same problem reached twice (e.g. a question shared by two routes) is reported once. */
function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const k = `${d.code}|${d.pos?.file}|${d.pos?.line}|${d.pos?.col}|${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
