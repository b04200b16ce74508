// `switchyard eval FILE.star` (L-16): runs a plain Starlark file with no playbook built-ins.
// print() writes to stdout; errors go to stderr in the L-15 format and the exit status is 1.
// load() paths are relative to the loading file's directory; each module runs once; cycles fail.

import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import type { Command } from "commander";
import { DiagnosticError, StarError, Thread, execFile, type LoadResult, type Value } from "../lang/index.js";
import { EXIT_FAILED, UsageError, printDiagnostics, setExitCode, examples } from "./common.js";

/** Adds `switchyard eval`: runs a plain Starlark file, without the playbook built-ins. */
export function register(program: Command): void {
  program
    .command("eval")
    .description("evaluate a plain Starlark file (no playbook built-ins); print() goes to stdout")
    .addHelpText(
      "after",
      examples([["switchyard eval lib/helpers_test.star", "a helper's tests"], ["switchyard eval scratch.star --step-budget 1000"]]),
    )
    .argument("<file>", "the .star file to evaluate")
    .option("--step-budget <n>", "maximum evaluation steps (a runaway loop stops there)", "10000000")
    .option("--alloc-budget <n>", "maximum list, tuple, dict and set elements created (a runaway comprehension stops there)", "5000000")
    .action((file: string, opts: { stepBudget: string; allocBudget: string }) => {
      const budget = positiveInteger("--step-budget", opts.stepBudget);
      const ok = evalStarFile(file, budget, positiveInteger("--alloc-budget", opts.allocBudget));
      if (!ok) setExitCode(EXIT_FAILED);
    });
}

/** Evaluates `file` and its loads; prints diagnostics to stderr. Returns true on success. */
function positiveInteger(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError("usage", `${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

function evalStarFile(file: string, stepBudget: number, allocBudget?: number): boolean {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError("usage", `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const sources = new Map<string, string>([[file, source]]);
  const thread = new Thread({ stepBudget, allocBudget, print: (msg) => process.stdout.write(msg + "\n") });
  // module path → its globals, or "loading" while it runs (a second visit then is a cycle)
  const modules = new Map<string, Map<string, Value> | "loading">([[normalize(file), "loading"]]);

  const loadFrom =
    (fromFile: string) =>
    (module: string): LoadResult => {
      const path = normalize(join(dirname(fromFile), module));
      const state = modules.get(path);
      if (state === "loading")
        throw new StarError("load-error", `load cycle: ${JSON.stringify(module)} is already being loaded`, {
          hint: "break the cycle by moving the shared definitions into a third module",
        });
      if (state) return { globals: state };
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        throw new StarError("load-error", `cannot load ${JSON.stringify(module)}: no such file ${path}`);
      }
      sources.set(path, text);
      modules.set(path, "loading");
      const r = execFile(path, text, { thread, load: loadFrom(path) });
      if (!r.ok) throw new DiagnosticError(r.diagnostics);
      modules.set(path, r.globals);
      return { globals: r.globals };
    };

  const result = execFile(file, source, { thread, load: loadFrom(file) });
  if (!result.ok) {
    printDiagnostics(result.diagnostics, (f) => sources.get(f) ?? sources.get(normalize(f)));
    return false;
  }
  return true;
}
