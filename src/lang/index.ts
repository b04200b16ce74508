// The public face of the Starlark interpreter: parse + resolve + execute a file, call a function
// from the embedder, and the value types and helpers (see docs/language.md).

import { DiagnosticError, errorAt, sortDiagnostics, type Diagnostic, type Position } from "./diagnostic.js";
import type { FileAST } from "./ast.js";
import { parse } from "./parser.js";
import { resolveFile } from "./resolver.js";
import { callStarFunction, execModule } from "./eval.js";
import { UNIVERSE, UNIVERSE_NAMES } from "./builtins.js";
import { StarError, Thread, freeze, type ModuleState, type StarFunction, type Value } from "./values.js";

export * from "./values.js";
export { UNIVERSE, UNIVERSE_NAMES } from "./builtins.js";
export { LANG_CODES, LANG_CODE_SET, type CodeEntry } from "./codes.js";
export { formatFloat } from "./numfmt.js";
export { getAttr, attrNames } from "./methods.js";
export { callValue } from "./eval.js";

/** What a `load` hook returns: the loaded module's globals. */
export interface LoadResult {
  globals: Map<string, Value>;
}

/** How to run a file: extra globals, the `load` hook, budgets, `print`, and an optional thread to share. */
export interface ExecOptions {
  /** Extra globals (the playbook built-ins); universe built-ins are always present. */
  predeclared?: Record<string, Value>;
  /** Resolves load("lib/x.star", ...); throw StarError/DiagnosticError to fail. */
  load?: (module: string, pos: Position, thread: Thread) => LoadResult;
  /** Reuse a thread (shared step budget / embedder data), else a new one. */
  thread?: Thread;
  /** Default: process.stdout. With `thread`, replaces that thread's print hook for this file. */
  print?: (msg: string) => void;
  /** Default 10_000_000 (L-14); ignored when `thread` is given. */
  stepBudget?: number;
  /** Collection elements the evaluation may create, default 5_000_000 (L-14); ignored when `thread` is given. */
  allocBudget?: number;
}

/** The outcome of running a file: its frozen globals, or every diagnostic that stopped it. */
export interface ExecResult {
  /** Module globals after execution (frozen, L-14); names bound by load are not included. */
  globals: Map<string, Value>;
  /** Lexical/syntax/resolution errors (all of them, L-15), or the one runtime error (with stack). */
  diagnostics: Diagnostic[];
  ok: boolean;
}

function compile(file: string, source: string, predeclared: Iterable<string>): { ast: FileAST; diagnostics: Diagnostic[] } {
  const parsed = parse(file, source);
  const { ast, diagnostics } = resolveFile(file, parsed.stmts, {
    predeclared: new Set(predeclared),
    universal: UNIVERSE_NAMES,
    recoveredNames: parsed.recoveredNames,
  });
  return { ast, diagnostics: sortDiagnostics([...parsed.diagnostics, ...diagnostics]) };
}

/** Syntax and resolution checks only (no execution). Pass the embedder's predeclared names. */
export function parseFile(file: string, source: string, predeclared: Iterable<string> = []): { diagnostics: Diagnostic[] } {
  try {
    return { diagnostics: compile(file, source, predeclared).diagnostics };
  } catch (e) {
    return { diagnostics: toDiagnostics(e, file) };
  }
}

/** Scans, parses, resolves and runs one Starlark file; never throws for a problem in the source (it becomes a diagnostic). */
export function execFile(file: string, source: string, options: ExecOptions = {}): ExecResult {
  const thread = options.thread ?? new Thread({ stepBudget: options.stepBudget, allocBudget: options.allocBudget, print: options.print });
  const savedPrint = thread.print;
  if (options.thread && options.print) thread.print = options.print;
  try {
    return execWith(thread, file, source, options);
  } finally {
    thread.print = savedPrint;
  }
}

function execWith(thread: Thread, file: string, source: string, options: ExecOptions): ExecResult {
  const predeclared = options.predeclared ?? {};
  let compiled: { ast: FileAST; diagnostics: Diagnostic[] };
  try {
    compiled = compile(file, source, Object.keys(predeclared));
  } catch (e) {
    return { globals: new Map(), diagnostics: toDiagnostics(e, file), ok: false };
  }
  if (compiled.diagnostics.length > 0) return { globals: new Map(), diagnostics: compiled.diagnostics, ok: false };
  const { ast } = compiled;
  const module: ModuleState = {
    file,
    globals: new Array(ast.globalNames.length),
    globalNames: ast.globalNames,
    predeclared,
    universe: UNIVERSE,
  };
  const load = options.load;
  const depth = thread.callStack.length;
  try {
    execModule(ast, module, thread, load ? (m, pos, t) => load(m, pos, t).globals : undefined);
  } catch (e) {
    thread.callStack.length = depth;
    for (const g of module.globals) if (g !== undefined) freeze(g);
    return { globals: exported(ast, module), diagnostics: toDiagnostics(e, file), ok: false };
  }
  return { globals: exported(ast, module), diagnostics: [], ok: true };
}

function exported(ast: FileAST, module: ModuleState): Map<string, Value> {
  const out = new Map<string, Value>();
  ast.globalNames.forEach((name, i) => {
    const v = module.globals[i];
    if (v !== undefined && !ast.loadSlots.has(i)) out.set(name, v);
  });
  return out;
}

/** Calls a Starlark function from the embedder. Throws DiagnosticError on a runtime error. */
export function callFunction(
  fn: StarFunction,
  args: Value[],
  kwargs: Array<[string, Value]> = [],
  options: { thread?: Thread; stepBudget?: number; allocBudget?: number; print?: (msg: string) => void } = {},
): Value {
  const thread = options.thread ?? new Thread({ stepBudget: options.stepBudget, allocBudget: options.allocBudget, print: options.print });
  const savedPrint = thread.print;
  if (options.thread && options.print) thread.print = options.print;
  const depth = thread.callStack.length;
  try {
    return callStarFunction(fn, args, kwargs, thread);
  } catch (e) {
    thread.callStack.length = depth;
    if (e instanceof StarError && !e.pos) {
      e.pos = fn.pos;
      e.stack_ = [{ name: fn.name, pos: fn.pos }];
    }
    throw new DiagnosticError(toDiagnostics(e, fn.file));
  } finally {
    thread.print = savedPrint;
  }
}

/** Any error escaping evaluation, as diagnostics (never rethrows). */
function toDiagnostics(e: unknown, file: string): Diagnostic[] {
  if (e instanceof StarError) {
    const d: Diagnostic = errorAt(e.code, e.message, e.pos, e.hint);
    if (e.stack_ && e.stack_.length > 0) d.stack = e.stack_;
    return [d];
  }
  if (e instanceof DiagnosticError) return e.diagnostics;
  if (e instanceof RangeError) return [errorAt("runtime-error", `evaluation too deep: ${e.message}`, { file, line: 1, col: 1 })];
  const msg = e instanceof Error ? e.message : String(e);
  return [
    errorAt(
      "internal-error",
      `internal error in the Starlark interpreter: ${msg}`,
      { file, line: 1, col: 1 },
      "please report this with the file that triggers it",
    ),
  ];
}

export {
  DiagnosticError,
  formatDiagnostic,
  sortDiagnostics,
  nearestName,
  type Diagnostic,
  type Position,
  type StackFrame,
} from "./diagnostic.js";
