// Parsing JSON that commands and agents wrote (issue 9 item 4). No output may be a poison pill:
// JSON nested 100,000 deep parses, but recording it (JSON.stringify) then overflows the stack on
// every resume. So the text is checked before it is parsed, in one pass: nesting deeper than
// MAX_JSON_DEPTH is refused, and so is an integer that a JavaScript number cannot hold exactly
// (beyond 2^53), rather than being silently rounded. Either fails that element as
// `output-invalid`, naming the limit.

import { UntrustedFileError } from "./untrusted-file.js";

/** The deepest nesting of arrays and objects accepted in an instance's JSON. */
const MAX_JSON_DEPTH = 256;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const OPEN_BRACE = 123;
const CLOSE_BRACKET = 93;
const CLOSE_BRACE = 125;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;

/** Integer literals with more digits than this may exceed 2^53 and are looked at closely. */
const SAFE_DIGITS = 15;

function invalid(message: string): UntrustedFileError {
  return new UntrustedFileError("output-invalid", message);
}

/** Throws output-invalid when the JSON text nests too deep or holds an inexact integer. */
function checkJsonLimits(text: string, what: string): void {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: find its closing quote (one not escaped by an odd run of backslashes).
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return; // unterminated: JSON.parse reports it
        let b = j - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        if ((j - 1 - b) % 2 === 0) break;
      }
      i = j;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > MAX_JSON_DEPTH)
        throw invalid(`${what} nests arrays and objects more than ${MAX_JSON_DEPTH} deep, the limit; flatten it`);
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      let j = c === MINUS ? i + 1 : i;
      const start = j;
      while (j < n && text.charCodeAt(j) >= ZERO && text.charCodeAt(j) <= NINE) j++;
      const digits = j - start;
      const next = j < n ? text.charCodeAt(j) : 0;
      const isInteger = next !== 46 && next !== 101 && next !== 69; // no '.', 'e', 'E'
      if (isInteger && digits > SAFE_DIGITS && !Number.isSafeInteger(Number(text.slice(i, j)))) {
        const literal = text.slice(i, j);
        throw invalid(
          `${what} holds the integer ${literal.length > 40 ? literal.slice(0, 40) + "…" : literal}, beyond 2^53 (9007199254740991), the largest a number keeps exactly; write it as a string`,
        );
      }
      i = j - 1;
    }
  }
}

/** JSON.parse after checkJsonLimits; a syntax error is output-invalid too. */
export function parseUntrustedJson(text: string, what: string): unknown {
  checkJsonLimits(text, what);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}
