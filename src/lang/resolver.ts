// The resolver: binds every identifier to a frame slot, a captured cell, a module global, or a
// built-in before anything runs. Undefined names and other static mistakes are reported here, all
// of them at once (L-15), as Starlark does: a misspelled name deep in an unused branch is still an error.
//
// Scoping (Starlark spec): a name bound anywhere in a function body (assignment, for, def) is local
// to the whole body; comprehension variables are local to the comprehension; module globals may be
// used by functions defined before the global is assigned.

import { errorAt, nearestName, type Diagnostic } from "./diagnostic.js";
import type { Binding, Clause, Expr, FileAST, FuncInfo, Ident, Stmt } from "./ast.js";
import { newFuncInfo } from "./parser.js";

interface FnScope {
  info: FuncInfo;
  parent: FnScope | null; // enclosing function (null for the module)
  defBlock: Block | null; // block in the enclosing function where this function was defined
  nextSlot: number;
  cells: Set<number>;
  freeMap: Map<string, number>;
  isModule: boolean;
}

interface Block {
  fs: FnScope;
  parent: Block | null;
  names: Map<string, number>;
}

/** The names a file may use without defining them (playbook built-ins, the universe), and names recovered from unparsable statements. */
export interface ResolveOptions {
  predeclared: Set<string>;
  universal: Set<string>;
  recoveredNames?: Set<string>;
}

/** Binds every identifier of a file to its local, cell, global or universe slot; undefined names and misuses become diagnostics. */
export function resolveFile(file: string, stmts: Stmt[], opts: ResolveOptions): { ast: FileAST; diagnostics: Diagnostic[] } {
  return new Resolver(file, opts).run(stmts);
}

class Resolver {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly globals = new Map<string, number>();
  private readonly globalNames: string[] = [];
  private readonly loadSlots = new Set<number>();
  private readonly declaredAt = new Map<string, number>();
  private readonly localRefs: Array<[Ident, FnScope]> = [];
  private readonly allScopes: FnScope[] = [];
  private loopDepth = 0;

  constructor(
    private readonly file: string,
    private readonly opts: ResolveOptions,
  ) {}

  private err(code: string, msg: string, line: number, col: number, hint?: string): void {
    this.diagnostics.push(errorAt(code, msg, { file: this.file, line, col }, hint));
  }

  run(stmts: Stmt[]): { ast: FileAST; diagnostics: Diagnostic[] } {
    const toplevel = newFuncInfo("<toplevel>", 1, 1, [], stmts, false, false);
    const moduleFs: FnScope = {
      info: toplevel,
      parent: null,
      defBlock: null,
      nextSlot: 0,
      cells: new Set(),
      freeMap: new Map(),
      isModule: true,
    };
    this.allScopes.push(moduleFs);
    // Pass 1: every top-level binding is a global, usable by any function in the file.
    this.collectGlobals(stmts);
    // Pass 2: resolve uses.
    this.stmts(stmts, moduleFs, null, true);
    for (const [id, fs] of this.localRefs) {
      if (id.binding.kind === "local" && fs.cells.has(id.binding.index)) id.binding = { kind: "cell", index: id.binding.index };
    }
    for (const fs of this.allScopes) {
      fs.info.numLocals = fs.nextSlot;
      fs.info.cellSlots = [...fs.cells].sort((a, b) => a - b);
    }
    return {
      ast: { file: this.file, stmts, toplevel, globalNames: this.globalNames, loadSlots: this.loadSlots },
      diagnostics: this.diagnostics,
    };
  }

  private collectGlobals(stmts: Stmt[]): void {
    for (const s of stmts) {
      switch (s.kind) {
        case "assign":
        case "augassign":
          this.bindTargetsGlobal(s.lhs);
          break;
        case "def":
          this.declareGlobal(s.name.name, s.name.line, s.name.col);
          break;
        case "for":
          this.bindTargetsGlobal(s.vars);
          this.collectGlobals(s.body);
          break;
        case "if":
          this.collectGlobals(s.then);
          this.collectGlobals(s.else_);
          break;
        case "load":
          for (const [id, orig, at] of s.names) {
            if (orig.startsWith("_"))
              this.err(
                "load-error",
                `load: cannot load private symbol '${orig}' (names starting with _ are not exported)`,
                at.line,
                at.col,
              );
            const existing = this.globals.get(id.name);
            if (existing !== undefined) {
              const what = this.loadSlots.has(existing) ? "loaded" : "defined";
              this.err(
                "load-error",
                `load: '${id.name}' is already ${what} in this file (line ${this.declaredAt.get(id.name)})`,
                id.line,
                id.col,
                'load it once, or bind it to another name: load("m.star", other = "name")',
              );
              continue;
            }
            const slot = this.declareGlobal(id.name, id.line, id.col);
            if (slot !== undefined) this.loadSlots.add(slot);
          }
          break;
      }
    }
  }

  private bindTargetsGlobal(x: Expr): void {
    if (x.kind === "ident") this.declareGlobal(x.name, x.line, x.col);
    else if (x.kind === "tuple" || x.kind === "list") for (const e of x.elems) this.bindTargetsGlobal(e);
    else if (x.kind === "paren") this.bindTargetsGlobal(x.x);
  }

  private declareGlobal(name: string, line: number, col: number): number | undefined {
    const existing = this.globals.get(name);
    if (existing !== undefined) {
      if (this.loadSlots.has(existing))
        this.err(
          "load-error",
          `cannot assign to '${name}': it is bound by load on line ${this.declaredAt.get(name)}`,
          line,
          col,
          "names bound by load are read-only; choose another name",
        );
      return existing;
    }
    if (this.opts.predeclared.has(name) || this.opts.universal.has(name)) {
      this.err(
        "reassign-builtin",
        `cannot assign to built-in '${name}' at top level`,
        line,
        col,
        `choose another name; '${name}' is a built-in of this file`,
      );
      return undefined;
    }
    const slot = this.globalNames.length;
    this.globals.set(name, slot);
    this.globalNames.push(name);
    this.declaredAt.set(name, line);
    return slot;
  }

  // --- statements ---

  private stmts(list: Stmt[], fs: FnScope, block: Block | null, top: boolean): void {
    for (const s of list) this.stmt(s, fs, block, top);
  }

  private stmt(s: Stmt, fs: FnScope, block: Block | null, top: boolean): void {
    switch (s.kind) {
      case "expr":
        this.expr(s.x, fs, block);
        return;
      case "assign":
        this.expr(s.rhs, fs, block);
        this.target(s.lhs, fs, block);
        return;
      case "augassign":
        this.expr(s.lhs, fs, block);
        this.expr(s.rhs, fs, block);
        this.target(s.lhs, fs, block);
        return;
      case "def":
        this.func(s.func, fs, block);
        this.bindUse(s.name, fs, block);
        return;
      case "if":
        this.expr(s.cond, fs, block);
        this.stmts(s.then, fs, block, top);
        this.stmts(s.else_, fs, block, top);
        return;
      case "for":
        this.expr(s.iter, fs, block);
        this.target(s.vars, fs, block);
        this.loopDepth++;
        this.stmts(s.body, fs, block, top);
        this.loopDepth--;
        return;
      case "break":
      case "continue":
        if (this.loopDepth === 0) this.err("syntax-error", `'${s.kind}' is not inside a loop`, s.line, s.col);
        return;
      case "pass":
        return;
      case "return":
        if (fs.isModule) this.err("syntax-error", "'return' is not inside a function", s.line, s.col);
        if (s.x) this.expr(s.x, fs, block);
        return;
      case "load":
        if (!top || !fs.isModule) this.err("syntax-error", "load statements must be at the top level of the file", s.line, s.col);
        for (const [id] of s.names) {
          const slot = this.globals.get(id.name);
          id.binding = slot === undefined ? { kind: "unresolved" } : { kind: "global", index: slot };
        }
        return;
    }
  }

  /** An assignment target: binds names (already declared as locals/globals) and resolves index/dot targets. */
  private target(x: Expr, fs: FnScope, block: Block | null): void {
    switch (x.kind) {
      case "ident":
        this.bindUse(x, fs, block);
        return;
      case "tuple":
      case "list":
        for (const e of x.elems) this.target(e, fs, block);
        return;
      case "paren":
        this.target(x.x, fs, block);
        return;
      case "index":
        this.expr(x.x, fs, block);
        this.expr(x.index, fs, block);
        return;
      case "dot":
        this.expr(x.x, fs, block);
        return;
      default:
        this.expr(x, fs, block);
    }
  }

  /** Resolves an identifier that is being bound (so it is never "undefined"). */
  private bindUse(id: Ident, fs: FnScope, block: Block | null): void {
    this.use(id, fs, block);
  }

  // --- functions ---

  private func(info: FuncInfo, fs: FnScope, block: Block | null): void {
    // defaults are evaluated in the enclosing scope, at def time
    for (const p of info.params) if (p.default) this.expr(p.default, fs, block);
    const inner: FnScope = { info, parent: fs, defBlock: block, nextSlot: 0, cells: new Set(), freeMap: new Map(), isModule: false };
    this.allScopes.push(inner);
    const body: Block = { fs: inner, parent: null, names: new Map() };
    this.layoutParams(info, inner, body);
    // every name bound anywhere in the body is local throughout it
    if (info.expr === undefined) this.collectLocals(info.body, inner, body);
    const savedLoop = this.loopDepth;
    this.loopDepth = 0;
    if (info.expr !== undefined) this.expr(info.expr, inner, body);
    else this.stmts(info.body, inner, body, false);
    this.loopDepth = savedLoop;
  }

  private layoutParams(info: FuncInfo, fs: FnScope, body: Block): void {
    const seen = new Set<string>();
    const positional: string[] = [];
    const kwonly: string[] = [];
    let star: string | undefined;
    let starstar: string | undefined;
    let sawStar = false;
    let sawDefault = false;
    for (const p of info.params) {
      if (p.name && seen.has(p.name)) this.err("syntax-error", `duplicate parameter '${p.name}'`, p.line, p.col);
      if (p.name) seen.add(p.name);
      if (starstar !== undefined) this.err("syntax-error", "no parameter may follow **kwargs", p.line, p.col);
      switch (p.kind) {
        case "plain":
          if (sawStar) kwonly.push(p.name);
          else {
            if (sawDefault)
              this.err("syntax-error", `required parameter '${p.name}' may not follow a parameter with a default`, p.line, p.col);
            positional.push(p.name);
          }
          break;
        case "default":
          sawDefault = true;
          if (sawStar) kwonly.push(p.name);
          else positional.push(p.name);
          break;
        case "star":
        case "bare-star":
          if (sawStar) this.err("syntax-error", "only one * parameter is allowed", p.line, p.col);
          sawStar = true;
          if (p.kind === "star") star = p.name;
          break;
        case "starstar":
          starstar = p.name;
          break;
      }
    }
    const bare = info.params.find((p) => p.kind === "bare-star");
    if (bare && kwonly.length === 0) this.err("syntax-error", "a bare * must be followed by keyword-only parameters", bare.line, bare.col);
    info.numPositional = positional.length;
    info.numKwonly = kwonly.length;
    info.paramNames = [...positional, ...kwonly];
    for (const n of info.paramNames) body.names.set(n, fs.nextSlot++);
    if (star !== undefined) {
      info.varargsSlot = fs.nextSlot++;
      body.names.set(star, info.varargsSlot);
    }
    if (starstar !== undefined) {
      info.kwargsSlot = fs.nextSlot++;
      body.names.set(starstar, info.kwargsSlot);
    }
  }

  private collectLocals(stmts: Stmt[], fs: FnScope, body: Block): void {
    const bind = (x: Expr): void => {
      if (x.kind === "ident") {
        if (!body.names.has(x.name)) body.names.set(x.name, fs.nextSlot++);
      } else if (x.kind === "tuple" || x.kind === "list") x.elems.forEach(bind);
      else if (x.kind === "paren") bind(x.x);
    };
    for (const s of stmts) {
      switch (s.kind) {
        case "assign":
        case "augassign":
          bind(s.lhs);
          break;
        case "def":
          bind(s.name);
          break;
        case "for":
          bind(s.vars);
          this.collectLocals(s.body, fs, body);
          break;
        case "if":
          this.collectLocals(s.then, fs, body);
          this.collectLocals(s.else_, fs, body);
          break;
      }
    }
  }

  // --- expressions ---

  private expr(x: Expr, fs: FnScope, block: Block | null): void {
    switch (x.kind) {
      case "ident":
        this.use(x, fs, block);
        return;
      case "literal":
        return;
      case "list":
      case "tuple":
        for (const e of x.elems) this.expr(e, fs, block);
        return;
      case "dict":
        for (const [k, v] of x.entries) {
          this.expr(k, fs, block);
          this.expr(v, fs, block);
        }
        return;
      case "comprehension":
        this.comprehension(x.clauses, x, fs, block);
        return;
      case "cond":
        this.expr(x.cond, fs, block);
        this.expr(x.then, fs, block);
        this.expr(x.else_, fs, block);
        return;
      case "lambda":
        this.func(x.func, fs, block);
        return;
      case "call":
        this.expr(x.fn, fs, block);
        for (const a of x.args) this.expr(a.value, fs, block);
        return;
      case "index":
        this.expr(x.x, fs, block);
        this.expr(x.index, fs, block);
        return;
      case "slice":
        this.expr(x.x, fs, block);
        if (x.lo) this.expr(x.lo, fs, block);
        if (x.hi) this.expr(x.hi, fs, block);
        if (x.step) this.expr(x.step, fs, block);
        return;
      case "dot":
        this.expr(x.x, fs, block);
        return;
      case "unary":
        this.expr(x.x, fs, block);
        return;
      case "binary":
        this.expr(x.x, fs, block);
        this.expr(x.y, fs, block);
        return;
      case "paren":
        this.expr(x.x, fs, block);
        return;
    }
  }

  private comprehension(clauses: Clause[], c: Extract<Expr, { kind: "comprehension" }>, fs: FnScope, block: Block | null): void {
    const first = clauses[0];
    if (first && first.kind === "for") this.expr(first.iter, fs, block);
    const inner: Block = { fs, parent: block, names: new Map() };
    const bind = (x: Expr): void => {
      if (x.kind === "ident") {
        if (!inner.names.has(x.name)) inner.names.set(x.name, fs.nextSlot++);
      } else if (x.kind === "tuple" || x.kind === "list") x.elems.forEach(bind);
      else if (x.kind === "paren") bind(x.x);
    };
    for (const cl of clauses) if (cl.kind === "for") bind(cl.vars);
    clauses.forEach((cl, i) => {
      if (cl.kind === "for") {
        if (i > 0) this.expr(cl.iter, fs, inner);
        this.target(cl.vars, fs, inner);
      } else this.expr(cl.cond, fs, inner);
    });
    if (c.key) this.expr(c.key, fs, inner);
    this.expr(c.body, fs, inner);
  }

  // --- name lookup ---

  private use(id: Ident, fs: FnScope, block: Block | null): void {
    const b = this.lookupInFn(fs, block, id.name);
    if (b) {
      id.binding = b;
      if (b.kind === "local") this.localRefs.push([id, fs]);
      return;
    }
    const g = this.globals.get(id.name);
    if (g !== undefined) {
      id.binding = { kind: "global", index: g };
      return;
    }
    if (this.opts.predeclared.has(id.name)) {
      id.binding = { kind: "predeclared", name: id.name };
      return;
    }
    if (this.opts.universal.has(id.name)) {
      id.binding = { kind: "universal", name: id.name };
      return;
    }
    id.binding = { kind: "unresolved" };
    if (this.opts.recoveredNames?.has(id.name)) return;
    const near = nearestName(id.name, this.visibleNames(fs, block));
    this.err("undefined-name", `undefined name '${id.name}'${near ? ` (did you mean '${near}'?)` : ""}`, id.line, id.col);
  }

  private lookupInFn(fs: FnScope, block: Block | null, name: string): Binding | undefined {
    for (let b = block; b && b.fs === fs; b = b.parent) {
      const slot = b.names.get(name);
      if (slot !== undefined) return { kind: "local", index: slot };
    }
    const free = fs.freeMap.get(name);
    if (free !== undefined) return { kind: "free", index: free };
    if (fs.parent === null) return undefined;
    const outer = this.lookupInFn(fs.parent, fs.defBlock, name);
    if (outer === undefined) return undefined;
    let captured: Binding = outer;
    if (outer.kind === "local") {
      fs.parent.cells.add(outer.index);
      captured = { kind: "cell", index: outer.index };
    }
    const idx = fs.info.freevars.length;
    fs.info.freevars.push(captured);
    fs.freeMap.set(name, idx);
    return { kind: "free", index: idx };
  }

  private visibleNames(fs: FnScope, block: Block | null): string[] {
    const out: string[] = [];
    for (let f: FnScope | null = fs, b = block; f; b = f.defBlock, f = f.parent) {
      for (let bb = b; bb && bb.fs === f; bb = bb.parent) out.push(...bb.names.keys());
    }
    out.push(...this.globals.keys(), ...this.opts.predeclared, ...this.opts.universal);
    return out;
  }
}
