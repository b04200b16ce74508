// The parser: tokens → syntax tree with positions (L-11, L-12). On a syntax error it records a
// diagnostic, skips the rest of the statement (and any block it opened), and carries on, so all
// independent syntax errors of a file are reported together (L-15).

import { errorAt, type Diagnostic } from "./diagnostic.js";
import type { Arg, BinaryOp, Clause, Comprehension, Expr, FuncInfo, Ident, LoadStmt, Node, Param, Stmt } from "./ast.js";
import { RESERVED_WORDS, scan, type Token } from "./scanner.js";
import { CodedError, type ErrorDetails } from "../shared/coded-error.js";

/** A syntax error at `tok`; the parser turns it into a diagnostic and carries on. */
class ParseError extends CodedError {
  readonly tok: Token;
  constructor(code: string, message: string, details: ErrorDetails & { tok: Token }) {
    super(code, message, details);
    this.tok = details.tok;
  }
}

const MAX_DEPTH = 200;

/** A file's statements and syntax errors; names seen in statements that failed to parse are treated as bound, to avoid cascades. */
export interface ParseResult {
  stmts: Stmt[];
  diagnostics: Diagnostic[];
  /** Identifiers seen in statements that failed to parse: treated as bound, to avoid cascades. */
  recoveredNames: Set<string>;
}

/** The frame layout of a function (or the top level) before resolution fills in its locals and cells. */
export function newFuncInfo(
  name: string,
  line: number,
  col: number,
  params: Param[],
  body: Stmt[],
  isLambda: boolean,
  isTopLevel: boolean,
): FuncInfo {
  return {
    name,
    line,
    col,
    params,
    body,
    isLambda,
    isTopLevel,
    numLocals: 0,
    cellSlots: [],
    freevars: [],
    numPositional: 0,
    numKwonly: 0,
    varargsSlot: -1,
    kwargsSlot: -1,
    paramNames: [],
  };
}

/** Parses one Starlark file into statements, reporting every syntax error rather than stopping at the first. */
export function parse(file: string, src: string): ParseResult {
  const { tokens, diagnostics } = scan(file, src);
  const p = new Parser(file, tokens, diagnostics);
  for (const t of tokens) if (t.kind === "ident" && RESERVED_WORDS.has(t.text)) p.recoveredNames.add(t.text);
  const stmts = p.parseFile();
  return { stmts, diagnostics, recoveredNames: p.recoveredNames };
}

const AUG_OPS: Record<string, BinaryOp> = {
  "+=": "+",
  "-=": "-",
  "*=": "*",
  "/=": "/",
  "//=": "//",
  "%=": "%",
  "|=": "|",
  "&=": "&",
  "^=": "^",
  "<<=": "<<",
  ">>=": ">>",
};

const COMPARISON = new Set(["==", "!=", "<", "<=", ">", ">="]);

class Parser {
  private pos = 0;
  private depth = 0;
  private funcDepth = 0;
  readonly recoveredNames = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly toks: Token[],
    private readonly diagnostics: Diagnostic[],
  ) {}

  // --- token helpers ---
  private get tok(): Token {
    return this.toks[this.pos];
  }
  /** The current token's kind (a call, so TypeScript does not narrow it across next()). */
  private kind(): Token["kind"] {
    return this.toks[this.pos].kind;
  }
  private peek(k = 1): Token {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)];
  }
  private next(): Token {
    const t = this.toks[this.pos];
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }
  private isOp(text: string): boolean {
    return this.tok.kind === "op" && this.tok.text === text;
  }
  private isKw(text: string): boolean {
    return this.tok.kind === "keyword" && this.tok.text === text;
  }
  private expectOp(text: string, hint?: string): Token {
    if (!this.isOp(text)) {
      const t = this.tok;
      const startsExpr = t.kind === "ident" || t.kind === "int" || t.kind === "float" || t.kind === "string";
      if ((text === ")" || text === "]" || text === "}") && startsExpr) hint = "is a ',' missing before it?";
      if (text === ":" && t.kind === "op" && t.text === "=") hint = "use == to compare values";
      throw new ParseError("syntax-error", `expected '${text}', got ${describe(t)}`, { tok: t, hint });
    }
    return this.next();
  }
  private expectKw(text: string): Token {
    if (!this.isKw(text)) throw new ParseError("syntax-error", `expected '${text}', got ${describe(this.tok)}`, { tok: this.tok });
    return this.next();
  }
  private fail(message: string, tok = this.tok, hint?: string): never {
    throw new ParseError("syntax-error", message, { tok, hint });
  }

  // --- statements ---
  parseFile(): Stmt[] {
    const stmts: Stmt[] = [];
    while (this.tok.kind !== "eof") {
      if (this.tok.kind === "newline") {
        this.next();
        continue;
      }
      this.parseStatementRecovering(stmts, true);
    }
    return stmts;
  }

  private parseStatementRecovering(into: Stmt[], topLevel: boolean): void {
    const start = this.pos;
    try {
      if (this.tok.kind === "indent") this.fail("unexpected indentation", this.tok, "indent a block only after a line ending in ':'");
      if (this.tok.kind === "dedent" && topLevel) {
        this.next();
        return;
      }
      this.parseStatement(into);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      this.report(e);
      this.recover(start);
    }
  }

  private report(e: ParseError): void {
    // One error per line is enough: a second one at the same place is a cascade.
    if (this.diagnostics.some((d) => d.pos?.line === e.tok.line)) return;
    // at the end of the file after an unclosed bracket, the bracket error says it all
    if (this.atEndOfFile(e.tok) && this.diagnostics.some((d) => d.message.endsWith("was never closed"))) return;
    // a missing closing bracket after a bracket reported as never closed is the same error
    if (
      /^expected '[)\]}]'/.test(e.message) &&
      this.diagnostics.some(
        (d) =>
          d.message.endsWith("was never closed") &&
          d.pos !== undefined &&
          (d.pos.line < e.tok.line || (d.pos.line === e.tok.line && d.pos.col < e.tok.col)),
      )
    )
      return;
    this.diagnostics.push(errorAt("syntax-error", e.message, { file: this.file, line: e.tok.line, col: e.tok.col }, e.hint));
  }

  private atEndOfFile(t: Token): boolean {
    const i = this.toks.indexOf(t);
    return i >= 0 && this.toks.slice(i).every((x) => x.kind === "newline" || x.kind === "dedent" || x.kind === "eof");
  }

  /** Skips to the end of the failed statement and any block it opened. */
  private recover(start: number): void {
    for (let k = start; k < this.pos; k++) if (this.toks[k].kind === "ident") this.recoveredNames.add(this.toks[k].text);
    while (this.tok.kind !== "newline" && this.tok.kind !== "eof") {
      if (this.tok.kind === "ident") this.recoveredNames.add(this.tok.text);
      if (this.tok.kind === "indent" || this.tok.kind === "dedent") break;
      this.next();
    }
    if (this.tok.kind === "newline") this.next();
    if (this.tok.kind === "indent") {
      let level = 0;
      do {
        if (this.tok.kind === "indent") level++;
        else if (this.tok.kind === "dedent") level--;
        else if (this.tok.kind === "ident") this.recoveredNames.add(this.tok.text);
        this.next();
      } while (level > 0 && this.kind() !== "eof");
    }
  }

  private parseStatement(into: Stmt[]): void {
    const t = this.tok;
    if (t.kind === "keyword") {
      switch (t.text) {
        case "def":
          into.push(this.parseDef());
          return;
        case "if":
          into.push(this.parseIf());
          return;
        case "for":
          into.push(this.parseFor());
          return;
      }
    }
    this.parseSimpleStatement(into);
  }

  private parseDef(): Stmt {
    const kw = this.next();
    if (this.tok.kind !== "ident") this.fail(`expected a function name after 'def', got ${describe(this.tok)}`);
    const nameTok = this.next();
    const name: Ident = { kind: "ident", name: nameTok.text, line: nameTok.line, col: nameTok.col, binding: { kind: "unresolved" } };
    this.expectOp("(");
    const params = this.parseParams(")");
    this.expectOp(")");
    if (this.isOp("->")) this.fail("type annotations are not supported in Starlark");
    this.expectOp(":", "a def header ends with ':'");
    this.funcDepth++;
    const body = this.parseSuite();
    this.funcDepth--;
    const func = newFuncInfo(nameTok.text, kw.line, kw.col, params, body, false, this.funcDepth === 0);
    return { kind: "def", name, func, line: kw.line, col: kw.col };
  }

  private parseParams(close: string): Param[] {
    const params: Param[] = [];
    while (!this.isOp(close)) {
      const t = this.tok;
      if (this.isOp("*")) {
        this.next();
        if (this.tok.kind === "ident") {
          const n = this.next();
          params.push({ kind: "star", name: n.text, line: n.line, col: n.col });
        } else params.push({ kind: "bare-star", name: "", line: t.line, col: t.col });
      } else if (this.isOp("**")) {
        this.next();
        if (this.tok.kind !== "ident") this.fail(`expected a parameter name after '**', got ${describe(this.tok)}`);
        const n = this.next();
        params.push({ kind: "starstar", name: n.text, line: n.line, col: n.col });
      } else if (t.kind === "ident") {
        this.next();
        if (this.isOp("=")) {
          this.next();
          params.push({ kind: "default", name: t.text, line: t.line, col: t.col, default: this.parseTest() });
        } else {
          if (close === ")" && this.isOp(":")) this.fail("type annotations are not supported in Starlark");
          params.push({ kind: "plain", name: t.text, line: t.line, col: t.col });
        }
      } else this.fail(`expected a parameter, got ${describe(t)}`);
      if (!this.isOp(",")) break;
      this.next();
    }
    return params;
  }

  private parseSuite(): Stmt[] {
    if (this.tok.kind !== "newline") {
      const out: Stmt[] = [];
      this.parseSimpleStatement(out);
      return out;
    }
    this.next();
    if (this.kind() !== "indent") this.fail(`expected an indented block, got ${describe(this.tok)}`);
    this.next();
    const body: Stmt[] = [];
    while (this.kind() !== "dedent" && this.kind() !== "eof") {
      if (this.kind() === "newline") {
        this.next();
        continue;
      }
      this.parseStatementRecovering(body, false);
    }
    if (this.kind() === "dedent") this.next();
    return body;
  }

  private parseIf(): Stmt {
    const kw = this.next();
    const cond = this.parseTest();
    this.expectOp(":", "an if header ends with ':'");
    const then = this.parseSuite();
    let else_: Stmt[] = [];
    if (this.isKw("elif")) {
      else_ = [this.parseIf()];
    } else if (this.isKw("else")) {
      this.next();
      this.expectOp(":", "'else' is followed by ':'");
      else_ = this.parseSuite();
    }
    return { kind: "if", cond, then, else_, line: kw.line, col: kw.col };
  }

  private parseFor(): Stmt {
    const kw = this.next();
    const vars = this.parseLoopVars();
    this.expectKw("in");
    const iter = this.parseExpression();
    this.expectOp(":", "a for header ends with ':'");
    const body = this.parseSuite();
    return { kind: "for", vars, iter, body, line: kw.line, col: kw.col };
  }

  private parseLoopVars(): Expr {
    const first = this.parsePrimary();
    if (!this.isOp(",")) return first;
    const elems = [first];
    while (this.isOp(",")) {
      const comma = this.next();
      if (this.isKw("in")) this.fail("trailing comma before 'in' is not allowed in Starlark", comma);
      elems.push(this.parsePrimary());
    }
    return { kind: "tuple", elems, line: first.line, col: first.col, parens: false };
  }

  private parseSimpleStatement(into: Stmt[]): void {
    for (;;) {
      into.push(this.parseSmallStatement());
      if (!this.isOp(";")) break;
      this.next();
      if (this.tok.kind === "newline" || this.tok.kind === "eof") break;
    }
    if (this.tok.kind === "eof") return;
    if (this.tok.kind !== "newline") {
      if (this.tok.kind === "string" && this.toks[this.pos - 1]?.kind === "string")
        this.fail("implicit string concatenation is not allowed in Starlark", this.tok, "join the strings with +");
      this.fail(
        `unexpected ${describe(this.tok)} after statement`,
        this.tok,
        this.isOp("=") ? "assignment is a statement; use == to compare" : undefined,
      );
    }
    this.next();
  }

  private parseSmallStatement(): Stmt {
    const t = this.tok;
    if (t.kind === "keyword") {
      switch (t.text) {
        case "pass":
        case "break":
        case "continue":
          this.next();
          return { kind: t.text, line: t.line, col: t.col };
        case "return": {
          this.next();
          if (this.tok.kind === "newline" || this.tok.kind === "eof" || this.isOp(";")) return { kind: "return", line: t.line, col: t.col };
          return { kind: "return", x: this.parseExpression(), line: t.line, col: t.col };
        }
        case "load":
          return this.parseLoad();
        case "elif":
        case "else":
          this.fail(`'${t.text}' without a matching 'if'`);
      }
    }
    const x = this.parseExpression();
    if (this.isOp("=")) {
      const eq = this.next();
      this.checkAssignable(x, eq);
      const rhs = this.parseExpression();
      if (this.isOp("=")) this.fail("chained assignment (a = b = c) is not supported in Starlark");
      return { kind: "assign", lhs: x, rhs, line: eq.line, col: eq.col };
    }
    if (this.tok.kind === "op" && this.tok.text in AUG_OPS) {
      const opTok = this.next();
      // Parentheses only group: `(a) += 1` updates a, as the spec's grammar allows.
      let lhs = x;
      while (lhs.kind === "paren") lhs = lhs.x;
      if (lhs.kind !== "ident" && lhs.kind !== "index" && lhs.kind !== "dot")
        this.fail(`cannot use ${opTok.text} on ${exprWhat(lhs)}`, opTok);
      const rhs = this.parseExpression();
      return { kind: "augassign", op: AUG_OPS[opTok.text], lhs, rhs, line: opTok.line, col: opTok.col };
    }
    if (this.isOp("**=")) this.fail("the ** operator is not supported in Starlark");
    return { kind: "expr", x, line: x.line, col: x.col };
  }

  private checkAssignable(x: Expr, at: Token): void {
    switch (x.kind) {
      case "ident":
      case "index":
      case "dot":
        return;
      case "paren":
        this.checkAssignable(x.x, at);
        return;
      case "tuple":
      case "list":
        // An empty tuple or list is a valid target: `() = ()` succeeds, `() = 1` fails at run time.
        for (const e of x.elems) this.checkAssignable(e, at);
        return;
      default:
        this.fail(
          `cannot assign to ${exprWhat(x)}`,
          at,
          x.kind === "binary" && x.op === "==" ? undefined : "the left side of = must be a name, index, attribute, or a tuple/list of them",
        );
    }
  }

  private parseLoad(): LoadStmt {
    const kw = this.next();
    this.expectOp("(");
    if (this.tok.kind !== "string") this.fail(`load() needs a module path string first, got ${describe(this.tok)}`);
    const modTok = this.next();
    const names: LoadStmt["names"] = [];
    while (this.isOp(",")) {
      this.next();
      if (this.isOp(")")) break;
      if (this.tok.kind === "string") {
        const s = this.next();
        const nm = s.value as string;
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(nm)) this.fail(`load: ${JSON.stringify(nm)} is not a valid name`, s);
        names.push([
          { kind: "ident", name: nm, line: s.line, col: s.col, binding: { kind: "unresolved" } },
          nm,
          { line: s.line, col: s.col },
        ]);
      } else if (this.tok.kind === "ident") {
        const id = this.next();
        this.expectOp("=");
        if (this.tok.kind !== "string") this.fail(`load: expected a string naming the symbol to bind to ${id.text}`);
        const s = this.next();
        names.push([
          { kind: "ident", name: id.text, line: id.line, col: id.col, binding: { kind: "unresolved" } },
          s.value as string,
          { line: s.line, col: s.col },
        ]);
      } else this.fail(`load: expected a string or name = "symbol", got ${describe(this.tok)}`);
    }
    this.expectOp(")");
    if (names.length === 0) this.fail("load statement must import at least one symbol", kw);
    return {
      kind: "load",
      module: modTok.value as string,
      moduleLine: modTok.line,
      moduleCol: modTok.col,
      names,
      line: kw.line,
      col: kw.col,
    };
  }

  // --- expressions ---

  /** Expression = Test {',' Test}: an unparenthesized tuple when there is a comma. */
  private parseExpression(): Expr {
    const first = this.parseTest();
    if (!this.isOp(",")) return first;
    const elems = [first];
    while (this.isOp(",")) {
      const comma = this.next();
      if (this.atExpressionEnd())
        this.fail("trailing comma is not allowed in an unparenthesized tuple", comma, "wrap the tuple in parentheses: (a, b,)");
      elems.push(this.parseTest());
    }
    return { kind: "tuple", elems, line: first.line, col: first.col, parens: false };
  }

  private atExpressionEnd(): boolean {
    const t = this.tok;
    if (t.kind === "newline" || t.kind === "eof") return true;
    return (t.kind === "op" && ["=", ")", "]", "}", ":", ";"].includes(t.text)) || (t.kind === "op" && t.text in AUG_OPS);
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail("expression is nested too deeply");
  }

  parseTest(): Expr {
    this.enter();
    try {
      if (this.isKw("lambda")) return this.parseLambda();
      const x = this.parseOr();
      if (this.isKw("if")) {
        this.next();
        const cond = this.parseOr();
        if (!this.isKw("else")) this.fail(`expected 'else' in conditional expression, got ${describe(this.tok)}`);
        this.next();
        const else_ = this.parseTest();
        return { kind: "cond", cond, then: x, else_, line: x.line, col: x.col };
      }
      return x;
    } finally {
      this.depth--;
    }
  }

  /** A comprehension's `if` condition: no conditional expression, even inside a lambda's body. */
  private parseTestNoCond(): Expr {
    if (this.isKw("lambda")) return this.parseLambda(true);
    return this.parseOr();
  }

  private parseLambda(noCond = false): Expr {
    const kw = this.next();
    const params = this.parseParams(":");
    this.expectOp(":");
    this.funcDepth++;
    const body = noCond ? this.parseTestNoCond() : this.parseTest();
    this.funcDepth--;
    const func = newFuncInfo("lambda", kw.line, kw.col, params, [], true, false);
    func.expr = body;
    return { kind: "lambda", func, line: kw.line, col: kw.col };
  }

  private parseOr(): Expr {
    let x = this.parseAnd();
    while (this.isKw("or")) {
      const op = this.next();
      const y = this.parseAnd();
      x = { kind: "binary", op: "or", x, y, line: x.line, col: x.col, opLine: op.line, opCol: op.col };
    }
    return x;
  }

  private parseAnd(): Expr {
    let x = this.parseNot();
    while (this.isKw("and")) {
      const op = this.next();
      const y = this.parseNot();
      x = { kind: "binary", op: "and", x, y, line: x.line, col: x.col, opLine: op.line, opCol: op.col };
    }
    return x;
  }

  private parseNot(): Expr {
    if (this.isKw("not")) {
      const t = this.next();
      this.enter();
      try {
        const x = this.parseNot();
        return { kind: "unary", op: "not", x, line: t.line, col: t.col };
      } finally {
        this.depth--;
      }
    }
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    const x = this.parseBinary(0);
    const op = this.comparisonOp();
    if (!op) return x;
    const opTok = this.tok;
    this.next();
    if (op === "not in") this.next();
    const y = this.parseBinary(0);
    if (this.comparisonOp()) this.fail("comparisons cannot be chained in Starlark", this.tok, "write (a < b) and (b < c)");
    return { kind: "binary", op, x, y, line: x.line, col: x.col, opLine: opTok.line, opCol: opTok.col };
  }

  private comparisonOp(): BinaryOp | undefined {
    const t = this.tok;
    if (t.kind === "op" && COMPARISON.has(t.text)) return t.text as BinaryOp;
    if (t.kind === "keyword" && t.text === "in") return "in";
    if (t.kind === "keyword" && t.text === "not" && this.peek().kind === "keyword" && this.peek().text === "in") return "not in";
    return undefined;
  }

  // precedence levels, lowest first: | ^ & (<< >>) (+ -) (* / // %)
  private static readonly LEVELS: string[][] = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "//", "%"]];

  private parseBinary(level: number): Expr {
    if (level >= Parser.LEVELS.length) return this.parseUnary();
    let x = this.parseBinary(level + 1);
    const ops = Parser.LEVELS[level];
    while (this.tok.kind === "op" && ops.includes(this.tok.text)) {
      const op = this.next();
      const y = this.parseBinary(level + 1);
      x = { kind: "binary", op: op.text as BinaryOp, x, y, line: x.line, col: x.col, opLine: op.line, opCol: op.col };
    }
    if (this.isOp("**")) this.fail("the ** operator is not supported in Starlark", this.tok, "multiply in a loop, or use an int literal");
    return x;
  }

  private parseUnary(): Expr {
    const t = this.tok;
    if (t.kind === "op" && (t.text === "-" || t.text === "+" || t.text === "~")) {
      this.next();
      this.enter();
      try {
        const x = this.parseUnary();
        return { kind: "unary", op: t.text as "-" | "+" | "~", x, line: t.line, col: t.col };
      } finally {
        this.depth--;
      }
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    let x = this.parseOperand();
    for (;;) {
      const t = this.tok;
      if (t.kind !== "op") break;
      if (t.text === ".") {
        this.next();
        if (this.tok.kind !== "ident") this.fail(`expected an attribute name after '.', got ${describe(this.tok)}`);
        const n = this.next();
        x = { kind: "dot", x, name: n.text, nameLine: n.line, nameCol: n.col, line: x.line, col: x.col };
      } else if (t.text === "(") {
        x = this.parseCall(x);
      } else if (t.text === "[") {
        x = this.parseIndex(x);
      } else break;
    }
    return x;
  }

  private parseCall(fn: Expr): Expr {
    this.next();
    this.enter();
    try {
      const args: Arg[] = [];
      while (!this.isOp(")")) {
        const t = this.tok;
        if (this.isOp("*")) {
          this.next();
          args.push({ kind: "star", value: this.parseTest(), line: t.line, col: t.col });
        } else if (this.isOp("**")) {
          this.next();
          args.push({ kind: "starstar", value: this.parseTest(), line: t.line, col: t.col });
        } else if (t.kind === "ident" && this.peek().kind === "op" && this.peek().text === "=") {
          this.next();
          this.next();
          args.push({ kind: "named", name: t.text, value: this.parseTest(), line: t.line, col: t.col });
        } else {
          const v = this.parseTest();
          if (this.isKw("for"))
            this.fail("generator expressions are not supported in Starlark", this.tok, "use a list comprehension: f([x for x in y])");
          args.push({ kind: "pos", value: v, line: v.line, col: v.col });
        }
        if (!this.isOp(",")) break;
        this.next();
      }
      this.expectOp(")", "close the call with ')'");
      const call = { kind: "call" as const, fn, args, line: fn.line, col: fn.col };
      this.checkArgOrder(call.args);
      return call;
    } finally {
      this.depth--;
    }
  }

  private checkArgOrder(args: Arg[]): void {
    // positional, then named/*args, then **kwargs (Starlark's order rules)
    let seenNamed = false;
    let seenStar = false;
    let seenStarStar = false;
    const names = new Set<string>();
    for (const a of args) {
      const at = { kind: "op" as const, text: "", line: a.line, col: a.col };
      if (a.kind === "pos") {
        if (seenNamed || seenStar || seenStarStar) this.fail("positional argument follows keyword or * argument", at);
      } else if (a.kind === "named") {
        if (seenStarStar) this.fail("keyword argument follows ** argument", at);
        if (seenStar) this.fail(`keyword argument ${a.name} may not follow *args`, at, "in Starlark, pass keyword arguments before *args");
        if (names.has(a.name!)) this.fail(`keyword argument '${a.name}' repeated`, at);
        names.add(a.name!);
        seenNamed = true;
      } else if (a.kind === "star") {
        if (seenStar || seenStarStar) this.fail("only one * argument is allowed, before any ** argument", at);
        seenStar = true;
      } else {
        if (seenStarStar) this.fail("only one ** argument is allowed", at);
        seenStarStar = true;
      }
    }
  }

  private parseIndex(x: Expr): Expr {
    const open = this.next();
    this.enter();
    try {
      let lo: Expr | undefined;
      if (!this.isOp(":")) {
        // The spec's grammar has Expression here, which takes no trailing comma: x[1, 2,] and
        // x[1, 2,:] are syntax errors.
        lo = this.parseExpression();
        if (this.isOp("]")) {
          this.next();
          return { kind: "index", x, index: lo, line: open.line, col: open.col };
        }
      }
      this.expectOp(":");
      let hi: Expr | undefined;
      let step: Expr | undefined;
      if (!this.isOp(":") && !this.isOp("]")) hi = this.parseTest();
      if (this.isOp(":")) {
        this.next();
        if (!this.isOp("]")) step = this.parseTest();
      }
      this.expectOp("]");
      return { kind: "slice", x, lo, hi, step, line: open.line, col: open.col };
    } finally {
      this.depth--;
    }
  }

  private parseOperand(): Expr {
    const t = this.tok;
    switch (t.kind) {
      case "ident":
        this.next();
        return { kind: "ident", name: t.text, line: t.line, col: t.col, binding: { kind: "unresolved" } };
      case "int":
      case "float":
        this.next();
        return { kind: "literal", value: t.value as bigint | number, line: t.line, col: t.col };
      case "string": {
        this.next();
        if (this.tok.kind === "string")
          this.fail("implicit string concatenation is not allowed in Starlark", this.tok, "join the strings with +");
        return { kind: "literal", value: t.value as string, line: t.line, col: t.col };
      }
      case "op":
        if (t.text === "(") return this.parseParen();
        if (t.text === "[") return this.parseListOrComp();
        if (t.text === "{") return this.parseDictOrComp();
        break;
      case "keyword":
        if (t.text === "lambda") this.fail("a lambda must be parenthesized here", t, "write (lambda x: ...)");
        break;
    }
    if (t.kind === "newline" || t.kind === "eof") this.fail("unexpected end of line: expression expected");
    if (t.kind === "indent") this.fail("unexpected indentation");
    this.fail(`unexpected ${describe(t)}`);
  }

  private parseParen(): Expr {
    const open = this.next();
    this.enter();
    try {
      if (this.isOp(")")) {
        this.next();
        return { kind: "tuple", elems: [], line: open.line, col: open.col, parens: true };
      }
      const first = this.parseTest();
      if (this.isKw("for"))
        this.fail("generator expressions are not supported in Starlark", this.tok, "use a list comprehension [... for ...]");
      if (this.isOp(")")) {
        this.next();
        return { kind: "paren", x: first, line: open.line, col: open.col };
      }
      const elems = [first];
      while (this.isOp(",")) {
        this.next();
        if (this.isOp(")")) break;
        elems.push(this.parseTest());
      }
      this.expectOp(")", "close the parenthesis");
      return { kind: "tuple", elems, line: open.line, col: open.col, parens: true };
    } finally {
      this.depth--;
    }
  }

  private parseListOrComp(): Expr {
    const open = this.next();
    this.enter();
    try {
      if (this.isOp("]")) {
        this.next();
        return { kind: "list", elems: [], line: open.line, col: open.col };
      }
      const first = this.parseTest();
      if (this.isKw("for")) {
        const clauses = this.parseClauses();
        this.expectOp("]", "close the comprehension with ']'");
        const c: Comprehension = { kind: "comprehension", dict: false, body: first, clauses, line: open.line, col: open.col };
        return c;
      }
      const elems = [first];
      while (this.isOp(",")) {
        this.next();
        if (this.isOp("]")) break;
        elems.push(this.parseTest());
      }
      this.expectOp("]", "close the list with ']'");
      return { kind: "list", elems, line: open.line, col: open.col };
    } finally {
      this.depth--;
    }
  }

  private parseDictOrComp(): Expr {
    const open = this.next();
    this.enter();
    try {
      if (this.isOp("}")) {
        this.next();
        return { kind: "dict", entries: [], line: open.line, col: open.col };
      }
      const k = this.parseTest();
      if (!this.isOp(":"))
        this.fail(`expected ':' after dict key, got ${describe(this.tok)}`, this.tok, "Starlark has no set literals; use a dict or a list");
      this.next();
      const v = this.parseTest();
      if (this.isKw("for")) {
        const clauses = this.parseClauses();
        this.expectOp("}", "close the comprehension with '}'");
        return { kind: "comprehension", dict: true, key: k, body: v, clauses, line: open.line, col: open.col };
      }
      const entries: Array<[Expr, Expr]> = [[k, v]];
      while (this.isOp(",")) {
        this.next();
        if (this.isOp("}")) break;
        const k2 = this.parseTest();
        this.expectOp(":");
        entries.push([k2, this.parseTest()]);
      }
      this.expectOp("}", "close the dict with '}'");
      return { kind: "dict", entries, line: open.line, col: open.col };
    } finally {
      this.depth--;
    }
  }

  private parseClauses(): Clause[] {
    const clauses: Clause[] = [];
    while (this.isKw("for") || this.isKw("if")) {
      const t = this.next();
      if (t.text === "for") {
        const vars = this.parseLoopVars();
        this.expectKw("in");
        const iter = this.parseOr();
        clauses.push({ kind: "for", vars, iter, line: t.line, col: t.col });
      } else {
        clauses.push({ kind: "if", cond: this.parseTestNoCond(), line: t.line, col: t.col });
      }
    }
    return clauses;
  }
}

function describe(t: Token): string {
  switch (t.kind) {
    case "newline":
      return "end of line";
    case "eof":
      return "end of file";
    case "indent":
      return "indentation";
    case "dedent":
      return "end of block";
    case "string":
      return "string literal";
    case "int":
    case "float":
      return `number ${t.text}`;
    case "ident":
      return `name '${t.text}'`;
    default:
      return `'${t.text}'`;
  }
}

function exprWhat(x: Expr): string {
  switch (x.kind) {
    case "call":
      return "a function call";
    case "literal":
      return "a literal";
    case "binary":
    case "unary":
      return "an operator expression";
    case "comprehension":
      return "a comprehension";
    case "dict":
      return "a dict literal";
    case "lambda":
      return "a lambda";
    case "cond":
      return "a conditional expression";
    case "slice":
      return "a slice";
    default:
      return "this expression";
  }
}

export type { Node };
