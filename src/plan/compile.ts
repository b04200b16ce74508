// Compiling a playbook (C-1 … C-20): evaluate the playbook file with the playbook built-ins,
// loading pack modules once each (L-3), then apply the graph rules and build the Plan.

import { suggestBuiltin } from "./builtin-aliases.js";
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { errorAt, sortDiagnostics, type Diagnostic } from "../lang/diagnostic.js";
import { execFile, Thread } from "../lang/index.js";
import { CompileContext, playbookBuiltins } from "./builtins.js";
import { checkTasks } from "./checks.js";
import { displayPath, packDigest, readPackToml, resolveTarget } from "./pack.js";
import { evaluateBindingProblems } from "./evaluate-bindings.js";
import { knownProblems, ModuleLoader } from "./module-loader.js";
import type { Plan } from "./plan.js";
import { readPlanToml } from "./toml.js";
import { COMPILER_VERSION } from "./version.js";
import { planCode } from "./codes.js";
import { wholeReadWarnings } from "./whole-reads.js";
import { errnoCode, messageOf } from "../shared/thrown.js";

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
    const code = errnoCode(e);
    if (code === undefined || !/^E[A-Z]+$/.test(code)) throw e;
    return {
      diagnostics: [errorAt("pack-not-found", `cannot read ${path}: ${messageOf(e)}`, undefined)],
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
  const loader = new ModuleLoader({ root, ctx, builtins, thread, sources, displayToRel, diagnostics: diags });

  const text = readFileSync(file, "utf8");
  sources.set(display, text);
  ctx.executing.push(display);
  const result = execFile(display, text, { predeclared: builtins, load: (m, p) => loader.load(m, p), thread, print: () => {} });
  ctx.executing.pop();
  diags.push(...knownProblems(result.diagnostics, display));
  diags.push(...ctx.diagnostics);

  if (result.ok) {
    const ownRel = packRel(root, file);
    const globalsOf = (rel: string) => (rel === ownRel ? result.globals : loader.globalsOf(rel));
    diags.push(...evaluateBindingProblems(ctx.tasks, globalsOf, (rel) => loader.hasFailed(rel)));
  }
  const tasks = ctx.topLevelTasks();
  const checked = checkTasks(tasks, { evaluationComplete: result.ok && !ctx.unknownTasks, playbook });
  diags.push(...checked.diagnostics);
  if (result.ok && ctx.tasks.length === 0 && !diags.some((d) => d.severity === "error")) diags.push(emptyPlaybook(playbook, display));
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

/** A playbook that evaluated cleanly but declared nothing to run. */
function emptyPlaybook(playbook: string, display: string): Diagnostic {
  return errorAt(
    "empty-playbook",
    `playbook '${playbook}' declares no task`,
    { file: display, line: 1, col: 1 },
    "declare tasks with command(...), agent(...), route(...), evaluate(...) or revise(...)",
  );
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
