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
// eslint-disable-next-line max-lines-per-function -- not split yet: loading an evaluator module and checking its exports
export function loadEvaluator(packDir: string, plan: Plan, task: TaskPlan | string, opts: EvaluatorOptions = {}): Evaluator {
  const t = evaluateSpec(plan, task);
  if (!t.evaluate) fail(`task '${t.name}' is a ${t.kind} task, not evaluate`);
  const { module, function: fnName } = t.evaluate;
  const print = opts.print ?? (() => {});
  const builtins = inertBuiltins();
  const thread = new Thread({ print });
  const modules = new Map<string, LoadResult>();
  const loading: string[] = [];
  // Module texts by pack-relative name, so a run-time error is rendered with its source line.
  const sources = new Map<string, string>();
  const lookup = (file: string) => sources.get(file);

  const run = (rel: string, pos?: Position): LoadResult => {
    const cached = modules.get(rel);
    if (cached) return cached;
    if (loading.includes(rel)) throw new StarError("load-cycle", `load cycle: ${[...loading, rel].join(" -> ")}`, { pos });
    let text: string;
    try {
      text = readFileSync(join(packDir, ...rel.split("/")), "utf8");
    } catch {
      return fail(
        `cannot read ${rel} in ${packDir} for evaluate task '${t.name}'`,
        "the pack snapshot must hold the files the plan was compiled from",
      );
    }
    sources.set(rel, text);
    loading.push(rel);
    const res = execFile(rel, text, {
      predeclared: builtins,
      thread,
      print,
      load: (m, p) => {
        const r = resolveLoadPath(packDir, m);
        if (!r.ok) throw new StarError(r.code, r.message, { pos: p, hint: r.hint });
        return run(r.rel, p);
      },
    });
    loading.pop();
    if (!res.ok) throw new DiagnosticError(res.diagnostics, lookup);
    const out: LoadResult = { globals: res.globals };
    modules.set(rel, out);
    return out;
  };

  const { globals } = run(module);
  const fn = globals.get(fnName);
  if (!(fn instanceof StarFunction) || fn.isLambda || !fn.isTopLevel) {
    fail(
      `${module} has no top-level function '${fnName}' for evaluate task '${t.name}'`,
      "the pack changed since it was compiled; recompile it",
    );
  }
  const budget = opts.stepBudget;
  return (input: unknown) => {
    let arg;
    try {
      arg = inputValue(input);
    } catch (e) {
      return fail(`evaluate task '${t.name}': its input is not JSON: ${(e as Error).message}`);
    }
    let result;
    try {
      result = callFunction(fn, [arg], [], { stepBudget: budget, print });
    } catch (e) {
      // FILE:LINE:COL, the source line and the call stack, as for a compile-time error.
      if (e instanceof DiagnosticError) throw new DiagnosticError(e.diagnostics, lookup);
      throw e;
    }
    if (!(result instanceof Dict)) {
      fail(
        `evaluate task '${t.name}': ${fnName}() returned ${typeName(result)}, not a dict`,
        "an evaluate function returns a dict, which becomes the task's output (T-4)",
        fn.pos,
        lookup,
      );
    }
    try {
      return toJSON(result) as Record<string, unknown>;
    } catch (e) {
      if (e instanceof StarError)
        fail(`evaluate task '${t.name}': ${fnName}() returned a value that is not JSON: ${e.message}`, undefined, fn.pos, lookup);
      throw e;
    }
  };
}
