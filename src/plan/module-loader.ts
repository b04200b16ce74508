// Loading a playbook's pack modules (L-3): each module is evaluated once, a load cycle is an
// error, and a module with errors is reported once, where the problem is, while the files that
// load it go on with stand-ins for its names so the rest of the playbook is still checked.

import { readFileSync } from "node:fs";
import type { Diagnostic, Position } from "../lang/diagnostic.js";
import { execFile, StarFunction, type LoadResult, type Thread, type Value } from "../lang/index.js";
import type { CompileContext } from "./builtins.js";
import { displayPath, resolveLoadPath } from "./pack.js";
import { BROKEN_TYPE, BrokenValue, FieldRefValue, holds, TaskValue } from "./values.js";

/** What loading needs from the compilation: the pack, the built-ins, the thread and where results go. */
export interface ModuleLoaderSetup {
  /** Absolute pack root. */
  root: string;
  ctx: CompileContext;
  builtins: Record<string, Value>;
  thread: Thread;
  /** Display path → text, for error excerpts; every module read is added. */
  sources: Map<string, string>;
  /** Display path → pack-relative path; every module read is added. */
  displayToRel: Map<string, string>;
  /** Where the modules' own diagnostics go. */
  diagnostics: Diagnostic[];
}

/** The `load` of one compilation: resolves, evaluates and caches pack modules (L-3). */
export class ModuleLoader {
  /** Pack-relative path → the module's globals, or "failed" when it has errors. */
  private readonly modules = new Map<string, LoadResult | "failed">();
  /** The modules being evaluated, outermost first (to find cycles). */
  private readonly loading: string[] = [];
  /** Modules that loaded names from a module with errors: their own names are unknown too. */
  private readonly tainted = new Set<string>();

  constructor(private readonly setup: ModuleLoaderSetup) {}

  /** The globals of a loaded module by pack-relative path; undefined when it failed or was never loaded. */
  globalsOf(rel: string): Map<string, Value> | undefined {
    const m = this.modules.get(rel);
    return m === "failed" ? undefined : m?.globals;
  }

  /** Whether the module at this pack-relative path was loaded and had errors. */
  hasFailed(rel: string): boolean {
    return this.modules.get(rel) === "failed";
  }

  /** Loads `module` for a `load` statement at `pos`, reporting what is wrong with it. */
  load(module: string, pos: Position): LoadResult {
    const { root, ctx } = this.setup;
    const res = resolveLoadPath(root, module);
    if (!res.ok) {
      ctx.report(res.code, res.message, pos, res.hint);
      return this.failed(module);
    }
    const cached = this.modules.get(res.rel);
    if (cached === "failed") return this.failed(res.rel);
    if (cached) return cached;
    if (this.loading.includes(res.rel)) {
      ctx.report(
        "load-cycle",
        `load cycle: ${[...this.loading.slice(this.loading.indexOf(res.rel)), res.rel].join(" -> ")}`,
        pos,
        "move the shared definitions into a module both can load",
      );
      return this.failed(res.rel);
    }
    return this.evaluate(res.rel, res.abs);
  }

  /** Evaluates a module not loaded before and caches what it yields. */
  private evaluate(rel: string, abs: string): LoadResult {
    const { ctx, builtins, thread, sources, displayToRel, diagnostics } = this.setup;
    const text = readFileSync(abs, "utf8");
    const modDisplay = displayPath(abs);
    sources.set(modDisplay, text);
    displayToRel.set(modDisplay, rel);
    this.loading.push(rel);
    ctx.executing.push(modDisplay);
    let result;
    try {
      result = execFile(modDisplay, text, { predeclared: builtins, load: (m, p) => this.load(m, p), thread, print: () => {} });
    } finally {
      ctx.executing.pop();
      this.loading.pop();
    }
    diagnostics.push(...knownProblems(result.diagnostics, modDisplay));
    if (!result.ok || this.tainted.has(rel)) {
      this.modules.set(rel, "failed");
      return this.failed(rel);
    }
    const loaded: LoadResult = { globals: result.globals };
    this.modules.set(rel, loaded);
    return loaded;
  }

  /**
   * A failed load is reported once, where the problem is; the loading file goes on with stand-ins
   * for the module's names, so the rest of the playbook is still checked.
   */
  private failed(rel: string): LoadResult {
    const { ctx } = this.setup;
    const loader = this.loading.at(-1);
    if (loader !== undefined) this.tainted.add(loader);
    ctx.unknownValues = true;
    // A helper called with tasks (or with a playbook function, which sees every task) may declare
    // tasks gated on them.
    return {
      globals: new UnknownGlobals(rel, (args) => {
        if (args.some((a) => holds(a, (x) => x instanceof TaskValue || x instanceof FieldRefValue || x instanceof StarFunction)))
          ctx.unknownTasks = true;
      }),
    };
  }
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
export function knownProblems(list: Diagnostic[], file: string): Diagnostic[] {
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
