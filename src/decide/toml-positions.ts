// Where each key of a TOML file is written, for FILE:LINE:COL in machine config errors.
// smol-toml parses values but keeps no positions, so this small scanner walks the (already
// validated) text once and records the position of every key and of the value after it, by its
// full path: table headers, dotted keys, quoted keys and inline tables all count. It never throws:
// on anything it does not follow it stops and returns what it found, and messages then simply
// carry no position.

import { parseJson } from "../shared/primitives.js";
import type { Position } from "../lang/diagnostic.js";
import { CodedError } from "../shared/coded-error.js";

/** Where each key of a TOML file is written, so that config errors point at FILE:LINE:COL. */
export interface KeyPositions {
  /** Where the key itself (or its table header) is written. */
  key(path: readonly string[]): Position | undefined;
  /** Where the key's value starts; falls back to the key. */
  value(path: readonly string[]): Position | undefined;
}

const SEP = "\u001f";
const BARE = /[A-Za-z0-9_-]/;

/** Scans TOML text for the position of every key and value, by dotted path (tables, arrays of tables, inline tables). */
// eslint-disable-next-line max-lines-per-function -- a scanner: one loop dispatching on the next character of the TOML text
export function locateKeys(text: string, file: string): KeyPositions {
  const keys = new Map<string, Position>();
  const values = new Map<string, Position>();
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const pos = (at: number): Position => ({ file, line, col: at - lineStart + 1 });
  const advance = (): void => {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
    i++;
  };
  const skipBlank = (newlines: boolean): void => {
    for (;;) {
      const c = text[i];
      if (c === " " || c === "\t" || c === "\r") advance();
      else if (newlines && c === "\n") advance();
      else if (c === "#") while (i < text.length && text[i] !== "\n") advance();
      else return;
    }
  };

  // A string starting at i (basic, literal, or their multi-line forms); returns its rough value.
  const readString = (): string => {
    const q = text.charAt(i);
    const multi = text.startsWith(q.repeat(3), i);
    const close = multi ? q.repeat(3) : q;
    const startContent = i + close.length;
    for (let k = 0; k < close.length; k++) advance();
    while (i < text.length && !text.startsWith(close, i)) {
      if (q === '"' && text[i] === "\\") advance();
      if (!multi && text[i] === "\n") throw new CodedError("config-syntax", "unterminated string");
      advance();
    }
    const raw = text.slice(startContent, i);
    for (let k = 0; k < close.length; k++) advance();
    // Multi-line strings may end with up to two extra quotes belonging to the content.
    while (multi && text[i] === q) advance();
    if (q === "'") return raw;
    try {
      const text = parseJson(`"${raw}"`);
      return typeof text === "string" ? text : raw;
    } catch {
      return raw;
    }
  };

  // A dotted key at i; records each prefix so `a.b = 1` locates both `a` and `a.b`.
  const readKey = (prefix: string[]): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipBlank(false);
      const at = pos(i);
      let part: string;
      if (text[i] === '"' || text[i] === "'") part = readString();
      else {
        const s = i;
        while (i < text.length && BARE.test(text.charAt(i))) advance();
        if (i === s) throw new CodedError("config-syntax", "expected a key");
        part = text.slice(s, i);
      }
      parts.push(part);
      const id = [...prefix, ...parts].join(SEP);
      if (!keys.has(id)) keys.set(id, at);
      skipBlank(false);
      if (text[i] !== ".") return parts;
      advance();
    }
  };

  const readValue = (path: string[]): void => {
    skipBlank(false);
    const id = path.join(SEP);
    if (!values.has(id)) values.set(id, pos(i));
    const c = text[i];
    if (c === '"' || c === "'") {
      readString();
    } else if (c === "[") {
      advance();
      let index = 0;
      for (;;) {
        skipBlank(true);
        if (text[i] === "]") break;
        readValue([...path, String(index++)]);
        skipBlank(true);
        if (text[i] === ",") advance();
        else if (text[i] !== "]") throw new CodedError("config-syntax", "bad array");
      }
      advance();
    } else if (c === "{") {
      advance();
      for (;;) {
        skipBlank(false);
        if (text[i] === "}") break;
        const k = readKey(path);
        skipBlank(false);
        if (text[i] !== "=") throw new CodedError("config-syntax", "expected =");
        advance();
        readValue([...path, ...k]);
        skipBlank(false);
        if (text[i] === ",") advance();
        else if (text[i] !== "}") throw new CodedError("config-syntax", "bad inline table");
      }
      advance();
    } else {
      // A bare scalar: number, boolean, date. Ends at the first delimiter.
      while (i < text.length && !/[,\]}\n#]/.test(text.charAt(i))) advance();
    }
  };

  try {
    let table: string[] = [];
    for (;;) {
      skipBlank(true);
      if (i >= text.length) break;
      if (text[i] === "[") {
        const double = text[i + 1] === "[";
        advance();
        if (double) advance();
        table = readKey([]);
        skipBlank(false);
        advance();
        if (double) advance();
      } else {
        const k = readKey(table);
        skipBlank(false);
        if (text[i] !== "=") throw new CodedError("config-syntax", "expected =");
        advance();
        readValue([...table, ...k]);
      }
    }
  } catch {
    // Stop scanning; positions found so far remain useful.
  }

  return {
    key: (path) => keys.get(path.join(SEP)),
    value: (path) => values.get(path.join(SEP)) ?? keys.get(path.join(SEP)),
  };
}
