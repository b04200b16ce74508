// Parsing JSON that commands and agents wrote. No output may be a poison pill:
// JSON nested 100,000 deep parses, but recording it (JSON.stringify) then overflows the stack on
// every resume. So the text is checked before it is parsed, in one pass: nesting deeper than
// MAX_JSON_DEPTH is refused, and so is an integer literal that a JavaScript number cannot hold
// exactly, rather than being silently rounded. Either fails that element as `output-invalid`,
// naming the limit.
//
// The integer rule, exactly: a number token with no fraction and no exponent whose magnitude is
// more than 9007199254740991 (2^53 - 1, Number.MAX_SAFE_INTEGER) is refused. 2^53 itself is
// refused too although a double holds it, because 2^53 + 1 reads as 2^53: from the parsed value
// no reader could tell which was written. A token with a fraction or an exponent (0.1, 1e308,
// 5e-324, 1.5E+3) is a float by its author's choice and is never refused for its digits. So every
// text JSON.stringify writes is accepted except one holding an integer-valued number from 2^53 up
// to 1e21 (written as a bare integer), which is the rule's own case.

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
const DOT = 46;
const PLUS = 43;
const LOWER_E = 101;
const UPPER_E = 69;

/** Integer literals with more digits than this may exceed 2^53 and are looked at closely. */
const SAFE_DIGITS = 15;

/** The index after the run of ASCII digits starting at `i`. */
function skipDigits(text: string, i: number): number {
  while (i < text.length && text.charCodeAt(i) >= ZERO && text.charCodeAt(i) <= NINE) i++;
  return i;
}

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
      // One whole number token (RFC 8259 §6): -? int frac? exp?. Only a bare integer literal can
      // be inexact in a way worth refusing; a fraction or exponent is a float by its author's
      // choice, and its digits are not an integer of their own.
      const start = c === MINUS ? i + 1 : i;
      let j = skipDigits(text, start);
      const intEnd = j;
      let isInteger = true;
      if (text.charCodeAt(j) === DOT) {
        isInteger = false;
        j = skipDigits(text, j + 1);
      }
      const e = text.charCodeAt(j);
      if (e === LOWER_E || e === UPPER_E) {
        isInteger = false;
        const sign = text.charCodeAt(j + 1);
        j = skipDigits(text, sign === PLUS || sign === MINUS ? j + 2 : j + 1);
      }
      if (isInteger && intEnd - start > SAFE_DIGITS && !Number.isSafeInteger(Number(text.slice(i, intEnd)))) {
        const literal = text.slice(i, intEnd);
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
