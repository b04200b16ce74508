// The scanner (L-10): turns source text into tokens, including INDENT/DEDENT/NEWLINE for blocks.
// Lexical errors are collected (scanning continues) so every independent error is reported (L-15).

import { errorAt, type Diagnostic } from "./diagnostic.js";

export type TokenKind = "ident" | "int" | "float" | "string" | "op" | "keyword" | "newline" | "indent" | "dedent" | "eof";

export interface Token {
  kind: TokenKind;
  /** Operator or keyword text, identifier name, or raw source of a literal. */
  text: string;
  /** Decoded value of int / float / string literals. */
  value?: bigint | number | string;
  line: number;
  col: number;
}

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

export function scan(file: string, src: string): { tokens: Token[]; diagnostics: Diagnostic[] } {
  const tokens: Token[] = [];
  const diagnostics: Diagnostic[] = [];
  let i = src.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 byte-order mark is not part of the text
  let line = 1;
  let lineStart = i;
  let depth = 0; // bracket nesting: newlines and indentation are ignored inside
  const openers: Array<{ ch: string; line: number; col: number }> = [];
  // A line inside brackets that starts with a statement-only keyword means a bracket was left
  // open: report it there instead of swallowing the rest of the file into one expression.
  const STATEMENT_START = /^[ \t]*(def|return|load|pass|break|continue|elif)\b/;
  const unclosed = () => {
    const o = openers[0];
    diagnostics.push(
      errorAt("syntax-error", `'${o.ch}' was never closed`, { file, line: o.line, col: o.col }, `close it with '${CLOSE[o.ch]}'`),
    );
    openers.length = 0;
    depth = 0;
  };
  const indents: number[] = [0];
  let atLineStart = true;
  const err = (msg: string, l: number, c: number, hint?: string) =>
    diagnostics.push(errorAt("lex-error", msg, { file, line: l, col: c }, hint));
  const col = () => i - lineStart + 1;
  const push = (kind: TokenKind, text: string, l: number, c: number, value?: bigint | number | string) =>
    tokens.push({ kind, text, line: l, col: c, value });
  const lastKind = () => (tokens.length ? tokens[tokens.length - 1].kind : "newline");

  while (i <= src.length) {
    if (atLineStart && depth === 0) {
      // measure indentation; blank and comment-only lines do not count
      let w = 0;
      let j = i;
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
        // blank line: skip to its end (the newline is handled below)
        i = j;
        atLineStart = false;
        if (j >= src.length) break;
        if (ch === "#") {
          while (i < src.length && src[i] !== "\n") i++;
        }
        if (src[i] === "\r") i++;
        if (src[i] === "\n") {
          i++;
          line++;
          lineStart = i;
        }
        atLineStart = true;
        continue;
      }
      if (tabAt >= 0)
        err("tab characters are not allowed in indentation", line, tabAt - lineStart + 1, "indent with spaces only (Starlark)");
      i = j;
      atLineStart = false;
      const cur = indents[indents.length - 1];
      if (w > cur) {
        indents.push(w);
        push("indent", "", line, 1);
      } else if (w < cur) {
        while (indents.length > 1 && w < indents[indents.length - 1]) {
          indents.pop();
          push("dedent", "", line, 1);
        }
        if (w !== indents[indents.length - 1]) {
          err("unindent does not match any outer indentation level", line, col());
          indents.push(w);
        }
      }
    }
    if (i >= src.length) break;
    const c = src[i];
    const startLine = line;
    const startCol = col();

    if (c === " " || c === "\t" || c === "\f") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    if (c === "\\" && (src[i + 1] === "\n" || (src[i + 1] === "\r" && src[i + 2] === "\n"))) {
      i += src[i + 1] === "\r" ? 3 : 2;
      line++;
      lineStart = i;
      continue;
    }
    if (c === "\n" || c === "\r") {
      i += c === "\r" && src[i + 1] === "\n" ? 2 : 1;
      if (depth > 0 && STATEMENT_START.test(src.slice(i, i + 64))) unclosed();
      if (depth === 0 && lastKind() !== "newline" && lastKind() !== "indent" && lastKind() !== "dedent")
        push("newline", "", startLine, startCol);
      line++;
      lineStart = i;
      atLineStart = depth === 0;
      continue;
    }
    // identifiers, keywords, string prefixes
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentPart(src[j])) j++;
      const word = src.slice(i, j);
      const q = src[j];
      if ((q === '"' || q === "'") && /^(r|R|b|B|rb|br|Rb|bR|RB|BR|rB|Br)$/.test(word)) {
        if (/[bB]/.test(word)) {
          err("bytes literals are not supported", startLine, startCol, "use a plain string literal");
        }
        i = j;
        scanString(/[rR]/.test(word), startLine, startCol);
        continue;
      }
      i = j;
      if (KEYWORDS.has(word)) push("keyword", word, startLine, startCol);
      else if (word in RESERVED) {
        err(`'${word}' is a reserved word in Starlark and cannot be used`, startLine, startCol, RESERVED[word] || undefined);
        push("ident", word, startLine, startCol);
      } else push("ident", word, startLine, startCol);
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(src[i + 1] ?? ""))) {
      scanNumber(startLine, startCol);
      continue;
    }
    if (c === '"' || c === "'") {
      scanString(false, startLine, startCol);
      continue;
    }
    // longest match first: 3-, 2-, then 1-character operators
    let op: string | undefined;
    for (let len = 3; len >= 1 && op === undefined; len--) {
      const cand = src.slice(i, i + len);
      if (OPERATOR_SET.has(cand)) op = cand;
    }
    if (op === undefined) {
      err(`unexpected character ${JSON.stringify(c)}`, startLine, startCol);
      i++;
      continue;
    }
    i += op.length;
    if (op === "(" || op === "[" || op === "{") {
      depth++;
      openers.push({ ch: op, line: startLine, col: startCol });
    } else if ((op === ")" || op === "]" || op === "}") && depth > 0) {
      depth--;
      openers.pop();
    }
    push("op", op, startLine, startCol);
  }
  if (depth > 0) unclosed();
  if (lastKind() !== "newline" && tokens.length > 0 && lastKind() !== "dedent") push("newline", "", line, col());
  while (indents.length > 1) {
    indents.pop();
    push("dedent", "", line, col());
  }
  push("eof", "", line, col());
  return { tokens, diagnostics };

  /** A keyword may follow a number directly: `0in [0]` scans as 0, in (as in the reference scanners). */
  function keywordAt(at: number): boolean {
    let j = at;
    while (j < src.length && isIdentPart(src[j])) j++;
    return KEYWORDS.has(src.slice(at, j));
  }

  function scanNumber(l: number, c: number): void {
    const start = i;
    if (src[i] === "0" && /[xXoObB]/.test(src[i + 1] ?? "")) {
      const base = src[i + 1].toLowerCase();
      i += 2;
      const digitRe = base === "x" ? /[0-9a-fA-F]/ : base === "o" ? /[0-7]/ : /[01]/;
      const ds = i;
      while (i < src.length && digitRe.test(src[i])) i++;
      const text = src.slice(start, i);
      const end = i;
      if (!keywordAt(i)) while (i < src.length && isIdentPart(src[i])) i++;
      if (i > end || end === ds) {
        err(`invalid ${base === "x" ? "hex" : base === "o" ? "octal" : "binary"} literal ${JSON.stringify(src.slice(start, i))}`, l, c);
        push("int", src.slice(start, i), l, c, 0n);
        return;
      }
      push("int", text, l, c, BigInt("0" + base + text.slice(2)));
      return;
    }
    while (i < src.length && isDigit(src[i])) i++;
    let isFloat = false;
    if (src[i] === ".") {
      isFloat = true;
      i++;
      while (i < src.length && isDigit(src[i])) i++;
    }
    if (src[i] === "e" || src[i] === "E") {
      const save = i;
      i++;
      if (src[i] === "+" || src[i] === "-") i++;
      if (isDigit(src[i] ?? "")) {
        isFloat = true;
        while (i < src.length && isDigit(src[i])) i++;
      } else i = save;
    }
    const text = src.slice(start, i);
    if (i < src.length && isIdentStart(src[i]) && !keywordAt(i)) {
      let j = i;
      while (j < src.length && isIdentPart(src[j])) j++;
      err(`invalid number literal ${JSON.stringify(src.slice(start, j))}`, l, c);
      i = j;
      push("int", text, l, c, 0n);
      return;
    }
    const clean = text;
    if (isFloat) {
      const v = Number(clean);
      if (!Number.isFinite(v)) err(`float literal ${text} is out of range`, l, c);
      push("float", text, l, c, v);
      return;
    }
    if (clean.length > 1 && clean[0] === "0" && /[1-9]/.test(clean)) {
      err(
        `invalid int literal ${text}: leading zeros are not allowed`,
        l,
        c,
        `use 0o${clean.replace(/^0+/, "")} for an octal number, or drop the zeros`,
      );
      push("int", text, l, c, 0n);
      return;
    }
    push("int", text, l, c, BigInt(clean));
  }

  function scanString(raw: boolean, l: number, c: number): void {
    const q = src[i];
    const triple = src.startsWith(q + q + q, i);
    const start = i;
    i += triple ? 3 : 1;
    let out = "";
    for (;;) {
      if (i >= src.length) {
        err(triple ? "unterminated triple-quoted string" : "unterminated string literal", l, c, "close the string with a matching quote");
        break;
      }
      const ch = src[i];
      if (triple ? src.startsWith(q + q + q, i) : ch === q) {
        i += triple ? 3 : 1;
        break;
      }
      if (ch === "\n" || ch === "\r") {
        if (!triple) {
          err("unterminated string literal (a newline in a string needs \\n or a triple-quoted string)", l, c);
          break;
        }
        out += "\n";
        i += ch === "\r" && src[i + 1] === "\n" ? 2 : 1;
        line++;
        lineStart = i;
        continue;
      }
      if (ch !== "\\") {
        out += ch;
        i++;
        continue;
      }
      // escapes
      const n = src[i + 1];
      if (n === undefined) {
        i++;
        continue;
      }
      if (raw) {
        if (n === "\n") {
          out += "\\\n";
          i += 2;
          line++;
          lineStart = i;
        } else {
          out += "\\" + n;
          i += 2;
        }
        continue;
      }
      const escCol = col();
      i += 2;
      switch (n) {
        case "\n":
          line++;
          lineStart = i;
          break;
        case "\r":
          if (src[i] === "\n") i++;
          line++;
          lineStart = i;
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
          const h = src.slice(i, i + 2);
          if (!/^[0-9a-fA-F]{2}$/.test(h)) err("invalid \\x escape: needs exactly two hex digits", line, escCol);
          else {
            const code = parseInt(h, 16);
            if (code > 127) err(`non-ASCII \\x escape \\x${h}: use \\u${h.padStart(4, "0")}`, line, escCol);
            out += String.fromCharCode(code);
            i += 2;
          }
          break;
        }
        case "u":
        case "U": {
          const len = n === "u" ? 4 : 8;
          const h = src.slice(i, i + len);
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(h)) err(`invalid \\${n} escape: needs exactly ${len} hex digits`, line, escCol);
          else {
            const code = parseInt(h, 16);
            if (code > 0x10ffff || (code >= 0xd800 && code < 0xe000)) err(`invalid Unicode code point \\${n}${h}`, line, escCol);
            else out += String.fromCodePoint(code);
            i += len;
          }
          break;
        }
        default:
          if (n >= "0" && n <= "7") {
            let j = i - 1;
            let k = 0;
            while (k < 3 && src[j] >= "0" && src[j] <= "7") {
              j++;
              k++;
            }
            const code = parseInt(src.slice(i - 1, j), 8);
            if (code > 127) err(`non-ASCII octal escape \\${src.slice(i - 1, j)}`, line, escCol);
            out += String.fromCharCode(code);
            i = j;
          } else {
            err(`invalid escape sequence \\${n}`, line, escCol, `write \\\\${n} for a literal backslash, or use a raw string r"..."`);
            out += "\\" + n;
          }
      }
    }
    push("string", src.slice(start, i), l, c, out);
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
