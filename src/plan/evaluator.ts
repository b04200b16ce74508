// Run-time support for `evaluate` tasks (T-4): re-execute the module that defines the function
// (from the run's snapshot of the pack), with the playbook built-ins inert so nothing is declared,
// and call the function with the instance's input under the language's step budget.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DiagnosticError, errorAt, type Position, type SourceLookup } from "../lang/diagnostic.js";
import { callFunction, execFile, StarError, StarFunction, Thread, toJSON, Dict, typeName, type LoadResult } from "../lang/index.js";
import { inertBuiltins } from "./builtins.js";
import { inputValue } from "./shared-input.js";
import { resolveLoadPath } from "./pack.js";
import type { Plan, TaskPlan } from "./plan.js";
import { messageOf } from "../shared/thrown.js";
import { CodedError } from "../shared/coded-error.js";
import { isPlainObject } from "../shared/primitives.js";

/** How an `evaluate` function runs inside the engine: its step budget and where its `print` goes. */
export interface EvaluatorOptions {
  /** Step budget per call (L-14); default 10 million. */
  stepBudget?: number;
  /** Where `print` goes; default: discarded. */
  print?: (msg: string) => void;
}

/** A compiled `evaluate` function: an instance's input in, the fields it emits out. */
export type Evaluator = (input: unknown) => Record<string, unknown>;

function fail(message: string, hint?: string, pos?: Position, sources?: SourceLookup): never {
  throw new DiagnosticError(errorAt("evaluator", message, pos, hint), sources);
}

/** Finds the evaluate spec of `task` (a top-level task, or the reviewer of a revise loop). */
function evaluateSpec(plan: Plan, task: TaskPlan | string): TaskPlan {
  if (typeof task !== "string") return task;
  for (const t of plan.tasks) {
    if (t.name === task) return t;
    if (t.revise?.reviewer.name === task) return t.revise.reviewer;
  }
  return fail(`plan of '${plan.playbook}' has no task '${task}'`);
}

/**
 * Loads the function an `evaluate` task names. Throws DiagnosticError (code `evaluator`, or the
 * language's code for errors in the module) when the module cannot be evaluated or the name is
 * not a top-level function any more. The returned function throws DiagnosticError on a runtime
 * error, a non-dict result, or a result that is not JSON.
 */
export function loadEvaluator(packDir: string, plan: Plan, task: TaskPlan | string, opts: EvaluatorOptions = {}): Evaluator {
  const t = evaluateSpec(plan, task);
  if (!t.evaluate) return fail(`task '${t.name}' is a ${t.kind} task, not evaluate`);
  const { module, function: fnName } = t.evaluate;
  const print = opts.print ?? (() => {});
  const modules = new SnapshotModules(packDir, t.name, print);
  const { globals } = modules.run(module);
  const fn = globals.get(fnName);
  if (!(fn instanceof StarFunction) || fn.isLambda || !fn.isTopLevel) {
    return fail(
      `${module} has no top-level function '${fnName}' for evaluate task '${t.name}'`,
      "the pack changed since it was compiled; recompile it",
    );
  }
  return (input: unknown) =>
    callEvaluator({ taskName: t.name, fnName, fn, stepBudget: opts.stepBudget, print, lookup: modules.lookup }, input);
}

/**
 * The modules of a run's pack snapshot, each evaluated once with inert built-ins. Module texts are
 * kept by pack-relative name, so a run-time error is rendered with its source line.
 */
class SnapshotModules {
  private readonly builtins = inertBuiltins();
  private readonly thread: Thread;
  private readonly modules = new Map<string, LoadResult>();
  private readonly loading: string[] = [];
  private readonly sources = new Map<string, string>();
  /** The text of a module read so far, by pack-relative name. */
  readonly lookup: SourceLookup = (file: string) => this.sources.get(file);

  constructor(
    private readonly packDir: string,
    private readonly taskName: string,
    private readonly print: (msg: string) => void,
  ) {
    this.thread = new Thread({ print });
  }

  /** Evaluates the module at pack-relative `rel` (once) and returns its globals. */
  run(rel: string, pos?: Position): LoadResult {
    const cached = this.modules.get(rel);
    if (cached) return cached;
    if (this.loading.includes(rel)) throw new StarError("load-cycle", `load cycle: ${[...this.loading, rel].join(" -> ")}`, { pos });
    let text: string;
    try {
      text = readFileSync(join(this.packDir, ...rel.split("/")), "utf8");
    } catch {
      return fail(
        `cannot read ${rel} in ${this.packDir} for evaluate task '${this.taskName}'`,
        "the pack snapshot must hold the files the plan was compiled from",
      );
    }
    this.sources.set(rel, text);
    this.loading.push(rel);
    const res = execFile(rel, text, {
      predeclared: this.builtins,
      thread: this.thread,
      print: this.print,
      load: (m, p) => {
        const r = resolveLoadPath(this.packDir, m);
        if (!r.ok) throw new StarError(r.code, r.message, { pos: p, hint: r.hint });
        return this.run(r.rel, p);
      },
    });
    this.loading.pop();
    if (!res.ok) throw new DiagnosticError(res.diagnostics, this.lookup);
    const out: LoadResult = { globals: res.globals };
    this.modules.set(rel, out);
    return out;
  }
}

/** What one call of an evaluate function needs. */
interface EvaluatorCall {
  taskName: string;
  fnName: string;
  fn: StarFunction;
  stepBudget: number | undefined;
  print: (msg: string) => void;
  lookup: SourceLookup;
}

/** Calls the function with an instance's input; its result must be a dict that converts to JSON (T-4). */
function callEvaluator(c: EvaluatorCall, input: unknown): Record<string, unknown> {
  let arg;
  try {
    arg = inputValue(input);
  } catch (e) {
    return fail(`evaluate task '${c.taskName}': its input is not JSON: ${messageOf(e)}`);
  }
  let result;
  try {
    result = callFunction(c.fn, [arg], [], { stepBudget: c.stepBudget, print: c.print });
  } catch (e) {
    // FILE:LINE:COL, the source line and the call stack, as for a compile-time error.
    if (e instanceof DiagnosticError) throw new DiagnosticError(e.diagnostics, c.lookup);
    throw e;
  }
  if (!(result instanceof Dict)) {
    return fail(
      `evaluate task '${c.taskName}': ${c.fnName}() returned ${typeName(result)}, not a dict`,
      "an evaluate function returns a dict, which becomes the task's output (T-4)",
      c.fn.pos,
      c.lookup,
    );
  }
  let json: unknown;
  try {
    json = toJSON(result);
  } catch (e) {
    if (e instanceof StarError)
      fail(`evaluate task '${c.taskName}': ${c.fnName}() returned a value that is not JSON: ${e.message}`, undefined, c.fn.pos, c.lookup);
    throw e;
  }
  // A dict converts to a JSON object; anything else would be a bug in toJSON.
  if (!isPlainObject(json)) throw new CodedError("internal-error", `a dict converted to ${typeof json}, not an object`);
  return json;
}
