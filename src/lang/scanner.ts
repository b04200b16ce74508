// The scanner (L-10): turns source text into tokens, including INDENT/DEDENT/NEWLINE for blocks.
// Lexical errors are collected (scanning continues) so every independent error is reported (L-15).

import { errorAt, type Diagnostic } from "./diagnostic.js";

/** The kinds of token the scanner emits; indent and dedent are synthesised from leading whitespace. */
export type TokenKind = "ident" | "int" | "float" | "string" | "op" | "keyword" | "newline" | "indent" | "dedent" | "eof";

/** One token with its text, decoded literal value and position. */
export interface Token {
  kind: TokenKind;
  /** Operator or keyword text, identifier name, or raw source of a literal. */
  text: string;
  /** Decoded value of int / float / string literals. */
  value?: bigint | number | string;
  line: number;
  col: number;
}

/** Starlark's keywords: an identifier spelled like one is scanned as a keyword. */
export const KEYWORDS = new Set([
  "and",
  "break",
  "continue",
  "def",
  "elif",
  "else",
  "for",
  "if",
  "in",
  "lambda",
  "load",
  "not",
  "or",
  "pass",
  "return",
]);

/** Python keywords that Starlark reserves; using one is a lexical error with a tailored hint. */
const RESERVED: Record<string, string> = {
  as: "",
  assert: "use fail() to report an error",
  async: "",
  await: "",
  class: "Starlark has no classes; use struct() or dicts",
  del: "use dict.pop() or list.pop() to remove an element",
  except: "Starlark has no exceptions",
  finally: "Starlark has no exceptions",
  from: 'use load("file.star", "name") to import',
  global: "",
  import: 'use load("file.star", "name") to import',
  is: "use == to compare values",
  nonlocal: "",
  raise: 'use fail("message") to stop with an error',
  try: "Starlark has no exceptions",
  while: "Starlark has no while loops; use `for i in range(n):` with a bound (L-11)",
  with: "",
  yield: "",
};

/** The reserved words (each already reported by the scanner, so not again as undefined names). */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(Object.keys(RESERVED));

const CLOSE: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

const OPERATORS = [
  "**=",
  "//=",
  "<<=",
  ">>=",
  "==",
  "!=",
  "<=",
  ">=",
  "//",
  "<<",
  ">>",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "|=",
  "&=",
  "^=",
  "**",
  "->",
  "+",
  "-",
  "*",
  "/",
  "%",
  "|",
  "&",
  "^",
  "~",
  "<",
  ">",
  "=",
  ".",
  ",",
  ":",
  ";",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
];

const OPERATOR_SET = new Set(OPERATORS);

/** A line inside brackets that starts with a statement-only keyword means a bracket was left open. */
const STATEMENT_START = /^[ \t]*(def|return|load|pass|break|continue|elif)\b/;

/** Splits a source text into tokens, reporting every lexical error it can recover from. */
export function scan(file: string, src: string): { tokens: Token[]; diagnostics: Diagnostic[] } {
  return new Scanner(file, src).run();
}

/**
 * One pass over one source text (as starlark-go's scanner): the position, the bracket nesting and
 * the indentation stack are its state, each kind of token one method. Lexical errors are
 * collected and scanning goes on.
 */
class Scanner {
  readonly tokens: Token[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private i: number;
  private line = 1;
  private lineStart: number;
  /** Bracket nesting: newlines and indentation are ignored inside. */
  private depth = 0;
  private readonly openers: Array<{ ch: string; line: number; col: number }> = [];
  private readonly indents: number[] = [0];
  private atLineStart = true;

  constructor(
    private readonly file: string,
    private readonly src: string,
  ) {
    this.i = src.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 byte-order mark is not part of the text
    this.lineStart = this.i;
  }

  run(): { tokens: Token[]; diagnostics: Diagnostic[] } {
    const src = this.src;
    while (this.i <= src.length) {
      if (this.atLineStart && this.depth === 0) {
        const more = this.indentation();
        if (more === "blank") continue;
        if (more === "end") break;
      }
      if (this.i >= src.length) break;
      const c = src[this.i]!;
      const startLine = this.line;
      const startCol = this.col();
      if (c === " " || c === "\t" || c === "\f") {
        this.i++;
      } else if (c === "#") {
        this.skipComment();
      } else if (c === "\\" && (src[this.i + 1] === "\n" || (src[this.i + 1] === "\r" && src[this.i + 2] === "\n"))) {
        this.i += src[this.i + 1] === "\r" ? 3 : 2;
        this.newLine();
      } else if (c === "\n" || c === "\r") {
        this.lineEnd(c, startLine, startCol);
      } else if (isIdentStart(c)) {
        this.word(startLine, startCol);
      } else if (isDigit(c) || (c === "." && isDigit(src[this.i + 1] ?? ""))) {
        this.number(startLine, startCol);
      } else if (c === '"' || c === "'") {
        this.string(false, startLine, startCol);
      } else {
        this.operator(c, startLine, startCol);
      }
    }
    return this.finish();
  }

  private col(): number {
    return this.i - this.lineStart + 1;
  }

  private newLine(): void {
    this.line++;
    this.lineStart = this.i;
  }

  private err(msg: string, l: number, c: number, hint?: string): void {
    this.diagnostics.push(errorAt("lex-error", msg, { file: this.file, line: l, col: c }, hint));
  }

  private push(kind: TokenKind, text: string, l: number, c: number, value?: bigint | number | string): void {
    this.tokens.push({ kind, text, line: l, col: c, value });
  }

  private lastKind(): TokenKind {
    return this.tokens.length ? this.tokens[this.tokens.length - 1]!.kind : "newline";
  }

  private skipComment(): void {
    while (this.i < this.src.length && this.src[this.i] !== "\n") this.i++;
  }

  /** Reports the outermost bracket still open there, instead of swallowing the rest of the file. */
  private unclosed(): void {
    const o = this.openers[0]!;
    this.diagnostics.push(
      errorAt(
        "syntax-error",
        `'${o.ch}' was never closed`,
        { file: this.file, line: o.line, col: o.col },
        `close it with '${CLOSE[o.ch]}'`,
      ),
    );
    this.openers.length = 0;
    this.depth = 0;
  }

  /**
   * At the start of a line outside brackets: measures the indentation and emits INDENT/DEDENT.
   * Blank and comment-only lines do not count: they are skipped whole ("blank"); "end" at the
   * end of the text.
   */
  private indentation(): "blank" | "end" | "token" {
    const src = this.src;
    let w = 0;
    let j = this.i;
    let tabAt = -1;
    for (; j < src.length; j++) {
      const ch = src[j];
      if (ch === " ") w++;
      else if (ch === "\t") {
        if (tabAt < 0) tabAt = j;
        w += 8 - (w % 8);
      } else break;
    }
    const ch = src[j];
    if (j >= src.length || ch === "\n" || ch === "\r" || ch === "#") {
      // blank line: skip to its end (the newline is handled here too)
      this.i = j;
      this.atLineStart = false;
      if (j >= src.length) return "end";
      if (ch === "#") this.skipComment();
      if (src[this.i] === "\r") this.i++;
      if (src[this.i] === "\n") {
        this.i++;
        this.newLine();
      }
      this.atLineStart = true;
      return "blank";
    }
    if (tabAt >= 0)
      this.err(
        "tab characters are not allowed in indentation",
        this.line,
        tabAt - this.lineStart + 1,
        "indent with spaces only (Starlark)",
      );
    this.i = j;
    this.atLineStart = false;
    const indents = this.indents;
    const cur = indents[indents.length - 1]!;
    if (w > cur) {
      indents.push(w);
      this.push("indent", "", this.line, 1);
    } else if (w < cur) {
      while (indents.length > 1 && w < indents[indents.length - 1]!) {
        indents.pop();
        this.push("dedent", "", this.line, 1);
      }
      if (w !== indents[indents.length - 1]) {
        this.err("unindent does not match any outer indentation level", this.line, this.col());
        indents.push(w);
      }
    }
    return "token";
  }

  /** A line break: NEWLINE outside brackets (one per logical line). */
  private lineEnd(c: string, startLine: number, startCol: number): void {
    const src = this.src;
    this.i += c === "\r" && src[this.i + 1] === "\n" ? 2 : 1;
    if (this.depth > 0 && STATEMENT_START.test(src.slice(this.i, this.i + 64))) this.unclosed();
    const last = this.lastKind();
    if (this.depth === 0 && last !== "newline" && last !== "indent" && last !== "dedent") this.push("newline", "", startLine, startCol);
    this.newLine();
    this.atLineStart = this.depth === 0;
  }

  /** Identifiers, keywords, and the prefixes of raw (and refused bytes) strings. */
  private word(startLine: number, startCol: number): void {
    const src = this.src;
    let j = this.i + 1;
    while (j < src.length && isIdentPart(src[j]!)) j++;
    const word = src.slice(this.i, j);
    const q = src[j];
    if ((q === '"' || q === "'") && /^(r|R|b|B|rb|br|Rb|bR|RB|BR|rB|Br)$/.test(word)) {
      if (/[bB]/.test(word)) this.err("bytes literals are not supported", startLine, startCol, "use a plain string literal");
      this.i = j;
      this.string(/[rR]/.test(word), startLine, startCol);
      return;
    }
    this.i = j;
    if (KEYWORDS.has(word)) this.push("keyword", word, startLine, startCol);
    else if (word in RESERVED) {
      this.err(`'${word}' is a reserved word in Starlark and cannot be used`, startLine, startCol, RESERVED[word] || undefined);
      this.push("ident", word, startLine, startCol);
    } else this.push("ident", word, startLine, startCol);
  }

  /** Longest match first: 3-, 2-, then 1-character operators; brackets tracked for nesting. */
  private operator(c: string, startLine: number, startCol: number): void {
    const src = this.src;
    let op: string | undefined;
    for (let len = 3; len >= 1 && op === undefined; len--) {
      const cand = src.slice(this.i, this.i + len);
      if (OPERATOR_SET.has(cand)) op = cand;
    }
    if (op === undefined) {
      this.err(`unexpected character ${JSON.stringify(c)}`, startLine, startCol);
      this.i++;
      return;
    }
    this.i += op.length;
    if (op === "(" || op === "[" || op === "{") {
      this.depth++;
      this.openers.push({ ch: op, line: startLine, col: startCol });
    } else if ((op === ")" || op === "]" || op === "}") && this.depth > 0) {
      this.depth--;
      this.openers.pop();
    }
    this.push("op", op, startLine, startCol);
  }

  /** The end of the text: open brackets reported, the last NEWLINE, the DEDENTs, EOF. */
  private finish(): { tokens: Token[]; diagnostics: Diagnostic[] } {
    if (this.depth > 0) this.unclosed();
    const last = this.lastKind();
    if (last !== "newline" && this.tokens.length > 0 && last !== "dedent") this.push("newline", "", this.line, this.col());
    while (this.indents.length > 1) {
      this.indents.pop();
      this.push("dedent", "", this.line, this.col());
    }
    this.push("eof", "", this.line, this.col());
    return { tokens: this.tokens, diagnostics: this.diagnostics };
  }

  /** A keyword may follow a number directly: `0in [0]` scans as 0, in (as in the reference scanners). */
  private keywordAt(at: number): boolean {
    const src = this.src;
    let j = at;
    while (j < src.length && isIdentPart(src[j]!)) j++;
    return KEYWORDS.has(src.slice(at, j));
  }

  /** Ints (decimal, 0x, 0o, 0b) and floats; a malformed one is reported and scanned as 0. */
  private number(l: number, c: number): void {
    const src = this.src;
    const start = this.i;
    if (src[this.i] === "0" && /[xXoObB]/.test(src[this.i + 1] ?? "")) {
      const base = src[this.i + 1].toLowerCase();
      this.i += 2;
      const digitRe = base === "x" ? /[0-9a-fA-F]/ : base === "o" ? /[0-7]/ : /[01]/;
      const ds = this.i;
      while (this.i < src.length && digitRe.test(src[this.i])) this.i++;
      const text = src.slice(start, this.i);
      const end = this.i;
      if (!this.keywordAt(this.i)) while (this.i < src.length && isIdentPart(src[this.i])) this.i++;
      if (this.i > end || end === ds) {
        this.err(
          `invalid ${base === "x" ? "hex" : base === "o" ? "octal" : "binary"} literal ${JSON.stringify(src.slice(start, this.i))}`,
          l,
          c,
        );
        this.push("int", src.slice(start, this.i), l, c, 0n);
        return;
      }
      this.push("int", text, l, c, BigInt("0" + base + text.slice(2)));
      return;
    }
    while (this.i < src.length && isDigit(src[this.i])) this.i++;
    let isFloat = false;
    if (src[this.i] === ".") {
      isFloat = true;
      this.i++;
      while (this.i < src.length && isDigit(src[this.i])) this.i++;
    }
    if (src[this.i] === "e" || src[this.i] === "E") {
      const save = this.i;
      this.i++;
      if (src[this.i] === "+" || src[this.i] === "-") this.i++;
      if (isDigit(src[this.i] ?? "")) {
        isFloat = true;
        while (this.i < src.length && isDigit(src[this.i])) this.i++;
      } else this.i = save;
    }
    const text = src.slice(start, this.i);
    if (this.i < src.length && isIdentStart(src[this.i]) && !this.keywordAt(this.i)) {
      let j = this.i;
      while (j < src.length && isIdentPart(src[j])) j++;
      this.err(`invalid number literal ${JSON.stringify(src.slice(start, j))}`, l, c);
      this.i = j;
      this.push("int", text, l, c, 0n);
      return;
    }
    const clean = text;
    if (isFloat) {
      const v = Number(clean);
      if (!Number.isFinite(v)) this.err(`float literal ${text} is out of range`, l, c);
      this.push("float", text, l, c, v);
      return;
    }
    if (clean.length > 1 && clean[0] === "0" && /[1-9]/.test(clean)) {
      this.err(
        `invalid int literal ${text}: leading zeros are not allowed`,
        l,
        c,
        `use 0o${clean.replace(/^0+/, "")} for an octal number, or drop the zeros`,
      );
      this.push("int", text, l, c, 0n);
      return;
    }
    this.push("int", text, l, c, BigInt(clean));
  }

  /** A quoted or triple-quoted string, its escapes decoded (raw: kept). */
  // eslint-disable-next-line max-lines-per-function -- a scanner: one loop over a string literal's characters and escapes
  private string(raw: boolean, l: number, c: number): void {
    const src = this.src;
    const q = src[this.i];
    const triple = src.startsWith(q + q + q, this.i);
    const start = this.i;
    this.i += triple ? 3 : 1;
    let out = "";
    for (;;) {
      if (this.i >= src.length) {
        this.err(
          triple ? "unterminated triple-quoted string" : "unterminated string literal",
          l,
          c,
          "close the string with a matching quote",
        );
        break;
      }
      const ch = src[this.i];
      if (triple ? src.startsWith(q + q + q, this.i) : ch === q) {
        this.i += triple ? 3 : 1;
        break;
      }
      if (ch === "\n" || ch === "\r") {
        if (!triple) {
          this.err("unterminated string literal (a newline in a string needs \\n or a triple-quoted string)", l, c);
          break;
        }
        out += "\n";
        this.i += ch === "\r" && src[this.i + 1] === "\n" ? 2 : 1;
        this.line++;
        this.lineStart = this.i;
        continue;
      }
      if (ch !== "\\") {
        out += ch;
        this.i++;
        continue;
      }
      // escapes
      const n = src[this.i + 1];
      if (n === undefined) {
        this.i++;
        continue;
      }
      if (raw) {
        if (n === "\n") {
          out += "\\\n";
          this.i += 2;
          this.line++;
          this.lineStart = this.i;
        } else {
          out += "\\" + n;
          this.i += 2;
        }
        continue;
      }
      const escCol = this.col();
      this.i += 2;
      switch (n) {
        case "\n":
          this.line++;
          this.lineStart = this.i;
          break;
        case "\r":
          if (src[this.i] === "\n") this.i++;
          this.line++;
          this.lineStart = this.i;
          break;
        case "a":
          out += "\x07";
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "v":
          out += "\v";
          break;
        case "\\":
          out += "\\";
          break;
        case "'":
          out += "'";
          break;
        case '"':
          out += '"';
          break;
        case "x": {
          const h = src.slice(this.i, this.i + 2);
          if (!/^[0-9a-fA-F]{2}$/.test(h)) this.err("invalid \\x escape: needs exactly two hex digits", this.line, escCol);
          else {
            const code = parseInt(h, 16);
            if (code > 127) this.err(`non-ASCII \\x escape \\x${h}: use \\u${h.padStart(4, "0")}`, this.line, escCol);
            out += String.fromCharCode(code);
            this.i += 2;
          }
          break;
        }
        case "u":
        case "U": {
          const len = n === "u" ? 4 : 8;
          const h = src.slice(this.i, this.i + len);
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(h))
            this.err(`invalid \\${n} escape: needs exactly ${len} hex digits`, this.line, escCol);
          else {
            const code = parseInt(h, 16);
            if (code > 0x10ffff || (code >= 0xd800 && code < 0xe000)) this.err(`invalid Unicode code point \\${n}${h}`, this.line, escCol);
            else out += String.fromCodePoint(code);
            this.i += len;
          }
          break;
        }
        default:
          if (n >= "0" && n <= "7") {
            let j = this.i - 1;
            let k = 0;
            while (k < 3 && src[j] >= "0" && src[j] <= "7") {
              j++;
              k++;
            }
            const code = parseInt(src.slice(this.i - 1, j), 8);
            if (code > 127) this.err(`non-ASCII octal escape \\${src.slice(this.i - 1, j)}`, this.line, escCol);
            out += String.fromCharCode(code);
            this.i = j;
          } else {
            this.err(
              `invalid escape sequence \\${n}`,
              this.line,
              escCol,
              `write \\\\${n} for a literal backslash, or use a raw string r"..."`,
            );
            out += "\\" + n;
          }
      }
    }
    this.push("string", src.slice(start, this.i), l, c, out);
  }
}

function isIdentStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || (c > "\x7f" && /\p{L}/u.test(c));
}
function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c) || (c > "\x7f" && /\p{N}/u.test(c));
}
function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}
