// The syntax tree. Every node carries its 1-based line and column; the resolver fills in
// identifier bindings and function frame layouts so the evaluator never looks names up by string.

/** Where a node starts in its file: 1-based line and column, for diagnostics. */
export interface Node {
  line: number;
  col: number;
}

/** Where a resolved identifier lives at run time. */
export type Binding =
  | { kind: "local"; index: number } // a slot in the current frame
  | { kind: "cell"; index: number } // a slot holding a Cell (captured by a nested function)
  | { kind: "free"; index: number } // a captured cell of the enclosing function
  | { kind: "global"; index: number } // a module global
  | { kind: "predeclared"; name: string } // embedder globals (playbook built-ins)
  | { kind: "universal"; name: string } // None, len, ...
  | { kind: "unresolved" }; // a resolution error was reported for it

/** A name in the source, with where the resolver found it bound (local, cell, global, universe…). */
export interface Ident extends Node {
  kind: "ident";
  name: string;
  binding: Binding;
}

/** An expression node, discriminated by `kind`. */
export type Expr =
  | Ident
  | { kind: "literal"; value: bigint | number | string; line: number; col: number }
  | { kind: "list"; elems: Expr[]; line: number; col: number }
  | { kind: "tuple"; elems: Expr[]; line: number; col: number; parens: boolean }
  | { kind: "dict"; entries: Array<[Expr, Expr]>; line: number; col: number }
  | Comprehension
  | { kind: "cond"; cond: Expr; then: Expr; else_: Expr; line: number; col: number }
  | { kind: "lambda"; func: FuncInfo; line: number; col: number }
  | CallExpr
  | { kind: "index"; x: Expr; index: Expr; line: number; col: number }
  | { kind: "slice"; x: Expr; lo?: Expr; hi?: Expr; step?: Expr; line: number; col: number }
  | { kind: "dot"; x: Expr; name: string; nameLine: number; nameCol: number; line: number; col: number }
  | { kind: "unary"; op: "-" | "+" | "not" | "~"; x: Expr; line: number; col: number }
  | { kind: "binary"; op: BinaryOp; x: Expr; y: Expr; line: number; col: number; opLine: number; opCol: number }
  | { kind: "paren"; x: Expr; line: number; col: number };

/** The binary operators of Starlark, as written in the source (`in`/`not in`, comparisons, arithmetic, bitwise, `and`/`or`). */
export type BinaryOp =
  | "+"
  | "-"
  | "*"
  | "/"
  | "//"
  | "%"
  | "|"
  | "&"
  | "^"
  | "<<"
  | ">>"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "in"
  | "not in"
  | "and"
  | "or";

/** A call `fn(args…)`. */
export interface CallExpr extends Node {
  kind: "call";
  fn: Expr;
  args: Arg[];
}

/** One argument of a call: positional, `name=value`, `*args` or `**kwargs`. */
export interface Arg extends Node {
  kind: "pos" | "named" | "star" | "starstar";
  name?: string;
  value: Expr;
}

/** One `for … in …` or `if …` clause of a comprehension, in source order. */
export type Clause =
  { kind: "for"; vars: Expr; iter: Expr; line: number; col: number } | { kind: "if"; cond: Expr; line: number; col: number };

/** A list or dict comprehension (`[body for … if …]`, `{key: body for …}`). */
export interface Comprehension extends Node {
  kind: "comprehension";
  dict: boolean;
  body: Expr; // list comprehension element
  key?: Expr; // dict comprehension key (body is the value)
  clauses: Clause[];
}

/** A statement node, discriminated by `kind`. */
export type Stmt =
  | { kind: "expr"; x: Expr; line: number; col: number }
  | { kind: "assign"; lhs: Expr; rhs: Expr; line: number; col: number }
  | { kind: "augassign"; op: BinaryOp; lhs: Expr; rhs: Expr; line: number; col: number }
  | { kind: "def"; name: Ident; func: FuncInfo; line: number; col: number }
  | { kind: "if"; cond: Expr; then: Stmt[]; else_: Stmt[]; line: number; col: number }
  | { kind: "for"; vars: Expr; iter: Expr; body: Stmt[]; line: number; col: number }
  | { kind: "break" | "continue" | "pass"; line: number; col: number }
  | { kind: "return"; x?: Expr; line: number; col: number }
  | LoadStmt;

/** `load("module", local = "name", …)`, with the positions of the module string and of each name for diagnostics. */
export interface LoadStmt extends Node {
  kind: "load";
  module: string;
  moduleLine: number;
  moduleCol: number;
  /** [local binding, name in the loaded module] */
  names: Array<[Ident, string, Node]>;
}

/** One parameter of a `def` or `lambda`: plain, with a default, `*args`, `**kwargs`, or a bare `*` before keyword-only ones. */
export interface Param extends Node {
  kind: "plain" | "default" | "star" | "starstar" | "bare-star";
  name: string; // "" for a bare `*`
  default?: Expr;
}

/** A function body (def, lambda, or the module's top level) and its frame layout. */
export interface FuncInfo {
  name: string;
  line: number;
  col: number;
  params: Param[];
  body: Stmt[];
  /** For lambdas: the single expression. */
  expr?: Expr;
  isLambda: boolean;
  isTopLevel: boolean;
  // --- filled by the resolver ---
  numLocals: number;
  /** Local slots that hold Cells because a nested function captures them. */
  cellSlots: number[];
  /** For each free variable: the binding in the enclosing function that supplies the cell. */
  freevars: Binding[];
  /** Parameter layout: slots 0..numPositional-1 positional, then keyword-only, then *args, **kwargs. */
  numPositional: number;
  numKwonly: number;
  varargsSlot: number; // -1 if none
  kwargsSlot: number; // -1 if none
  paramNames: string[]; // positional then keyword-only
}

/** A resolved file: its statements, its top-level frame, and its globals by slot. */
export interface FileAST {
  file: string;
  stmts: Stmt[];
  toplevel: FuncInfo;
  /** Names of module globals, by slot. */
  globalNames: string[];
  /** Global slots bound by `load` (file-local, not exported). */
  loadSlots: Set<number>;
}
