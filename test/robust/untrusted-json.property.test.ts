// T-1, untrusted outputs: every JSON text JSON.stringify writes is accepted by every reader of
// JSON that commands and agents leave behind, and reads back to the same text; the only numbers
// refused are integer literals (no fraction, no exponent) whose magnitude is 2^53 or more, which a
// number cannot keep exactly. The readers: parseUntrustedJson ($SWITCHYARD_OUTPUT, $SWITCHYARD_USAGE,
// an agent's `.json` files, locally and on workers), the agent CLIs' output readers (claude, codex,
// gemini), and the web view's reading of an attempt's input and usage files.
//
// The oracle is independent of the scanner under test: it walks the value, not the text. A value
// is refused exactly when it holds an integer-valued number n with 2^53 <= |n| < 1e21, the range
// JSON.stringify writes as a bare integer (ECMA-262 Number::toString: from 1e21 on it writes an
// exponent).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { parseUntrustedJson } from "../../src/run/process/untrusted-json.js";
import { READERS } from "../../src/run/agents/presets/read-output.js";
import { attemptFiles } from "../../src/ui/attempt-files.js";
import { TempDir } from "../run/helpers.js";

const TWO_53 = 2 ** 53;

/** True when JSON.stringify(value) holds an integer literal a number cannot keep exactly. */
function holdsInexactInteger(v: unknown): boolean {
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) >= TWO_53 && Math.abs(v) < 1e21;
  if (Array.isArray(v)) return v.some(holdsInexactInteger);
  if (v !== null && typeof v === "object") return Object.values(v).some(holdsInexactInteger);
  return false;
}

/** The values the issue named, and doubles of every kind (finite: JSON has no NaN or Infinity). */
const SPECIAL = [-0, 1e308, -1e308, 5e-324, -5e-324, 0.30000000000000004, 0.09999999999999998, 1 - 0.9, 1e21, 1e-7, 123.456e-300];
const double = fc.double({ noNaN: true, noDefaultInfinity: true });
const value = fc.oneof(
  fc.jsonValue(),
  double,
  fc.constantFrom(...SPECIAL),
  fc.dictionary(fc.string(), fc.oneof(double, fc.constantFrom(...SPECIAL), fc.jsonValue({ maxDepth: 3 }))),
  fc.array(fc.oneof(double, fc.constantFrom(...SPECIAL)), { maxLength: 20 }),
);

/** Agent CLIs' outputs with the value inside, where each tool's documented shape allows any JSON. */
const cliOutputs = (text: string): Array<[keyof typeof READERS, string]> => [
  ["claude-json", `{"type":"result","subtype":"success","result":"ok","extra":${text}}`],
  ["codex-jsonl", `{"type":"thread.started","extra":${text}}\n{"type":"turn.completed","usage":{"input_tokens":1}}\n`],
  ["gemini-json", `{"response":"ok","extra":${text}}`],
  ["opencode-jsonl", `{"type":"step_start","extra":${text}}\n{"type":"step_finish","part":{"tokens":{"input":1}}}\n`],
  ["qwen-json", `[{"type":"result","subtype":"success","result":"ok","extra":${text}}]`],
];

test("T-1: every text JSON.stringify writes is accepted by parseUntrustedJson and reads back to the same text, unless it holds an integer literal of 2^53 or more", () => {
  fc.assert(
    fc.property(value, (v) => {
      const text = JSON.stringify(v);
      if (holdsInexactInteger(v)) {
        assert.throws(() => parseUntrustedJson(text, "out"), /holds the integer -?\d+, beyond 2\^53/);
      } else {
        assert.equal(JSON.stringify(parseUntrustedJson(text, "out")), text);
        // The same with whitespace between tokens, as other writers (Python's json.dumps) leave it.
        const spaced = JSON.stringify(v, null, 2);
        assert.equal(JSON.stringify(parseUntrustedJson(spaced, "out")), text);
      }
    }),
    { numRuns: 2000, examples: SPECIAL.map((n) => [{ p: n, list: [n, -n] }] as [fc.JsonValue]) },
  );
});

test("T-1: the agent CLIs' output readers accept any JSON value inside the tool's documented shape", () => {
  fc.assert(
    fc.property(value, (v) => {
      for (const [format, stdout] of cliOutputs(JSON.stringify(v))) {
        const r = READERS[format]({ stdout, stderr: "", exit: 0 });
        assert.equal(r.ok, true, `${format}: ${r.ok ? "" : r.error}`);
      }
    }),
    { numRuns: 500 },
  );
});

test("T-1: the web view reads an attempt's input and usage JSON back to the same text", () => {
  const dir = new TempDir();
  try {
    const work = join(dir.path, "work", "t");
    mkdirSync(work, { recursive: true });
    let attempt = 0;
    fc.assert(
      fc.property(value, (v) => {
        attempt += 1;
        const text = JSON.stringify(v);
        writeFileSync(join(work, `a${attempt}.input.json`), text);
        writeFileSync(join(work, `a${attempt}.usage.json`), text);
        const shown = attemptFiles(dir.path, "t", null, attempt);
        assert.equal(JSON.stringify(shown.input), text);
        assert.equal(JSON.stringify(shown.usage), text);
      }),
      { numRuns: 200 },
    );
  } finally {
    dir.cleanup();
  }
});

test("T-1: integer literals are refused from 2^53 on, by magnitude; fractions and exponents never are", () => {
  const ok = (t: string) => JSON.stringify(parseUntrustedJson(t, "out"));
  const refused = (t: string) => assert.throws(() => parseUntrustedJson(t, "out"), /holds the integer/);
  // The boundary, worked out by hand: 2^53 - 1 = 9007199254740991 is the largest integer no other
  // literal rounds to; 2^53 = 9007199254740992 is also what 9007199254740993 reads as.
  assert.equal(ok("[9007199254740991,-9007199254740991]"), "[9007199254740991,-9007199254740991]");
  for (const t of [
    "9007199254740992",
    "-9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "12345678901234567890123",
    "1" + "0".repeat(400),
  ])
    refused(`{"n": ${t}}`);
  assert.throws(() => parseUntrustedJson('{"n": 9007199254740993}', "the output"), {
    message: /^the output holds the integer 9007199254740993, beyond 2\^53 \(9007199254740991\)/,
  });
  // Digits after a point or in an exponent are not integers of their own.
  assert.equal(ok('{"p": 0.30000000000000004}'), '{"p":0.30000000000000004}');
  assert.equal(ok('{"p": 0.09999999999999998}'), '{"p":0.09999999999999998}');
  assert.equal(
    ok("[1.00000000000000000000001, 9007199254740993.0, 1e30, 1E+308, 5e-324, 2.5e-12345678901234567890]"),
    "[1,9007199254740992,1e+30,1e+308,5e-324,0]",
  );
  assert.equal(ok("[-0, -0.0, 0e0, -1.5E-7]"), "[0,0,0,-1.5e-7]");
  // Numbers inside strings are text.
  assert.equal(ok('{"id": "9007199254740993", "k\\"9007199254740993": 1}'), '{"id":"9007199254740993","k\\"9007199254740993":1}');
});
