// L-10 … L-16: our own conformance corpus, written from the Starlark specification (not
// copied from any public corpus). Each file under test/lang/conformance/ is a series of chunks
// separated by a line `---`; each chunk is one small program, run on its own. A chunk passes when:
//   - it has no `### CODE` marker: it runs without error (its assert_eq calls all hold);
//   - it has markers: the diagnostics are exactly those markers — each `### CODE` (optionally
//     `### CODE@COL`, and/or a quoted regular expression for the message) names the code of an
//     error on that line. Static errors are all reported together; a run stops at its first error.
// `assert_eq(got, want)` is defined by a one-line prelude (so the files also run under
// `switchyard eval`): it fails unless got and want have the same type, are equal, and print alike.
// Every chunk runs in process; all error-free chunks also run together through `switchyard eval`
// (the CLI's entry function, test/support/cli-in-process.ts), and a sample of error chunks through
// it one by one.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile, type Diagnostic } from "../../src/lang/index.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const DIR = join(process.cwd(), "test", "lang", "conformance");

export const PRELUDE =
  'def assert_eq(got, want): return None if type(got) == type(want) and got == want and repr(got) == repr(want) else fail("assert_eq: got", repr(got), "want", repr(want))\n';

interface Expected {
  line: number; // 1-based, within the chunk
  code: string;
  col?: number;
  message?: RegExp;
}

interface Chunk {
  file: string;
  /** 1-based line of the chunk's first line in its corpus file. */
  startLine: number;
  source: string;
  expected: Expected[];
  /** assert_eq calls plus expected errors: what the chunk checks. */
  checks: number;
}

const MARKER = /###\s*([a-z-]+)(?:@(\d+))?(?:\s+"((?:[^"\\]|\\.)*)")?\s*$/;

function parseCorpus(file: string, text: string): Chunk[] {
  const chunks: Chunk[] = [];
  const lines = text.split("\n");
  let start = 0;
  const flush = (end: number) => {
    const body = lines.slice(start, end);
    if (body.some((l) => l.trim() !== "" && !l.trim().startsWith("#")) || body.some((l) => MARKER.test(l))) {
      const expected: Expected[] = [];
      body.forEach((l, i) => {
        const m = MARKER.exec(l);
        if (m)
          expected.push({
            line: i + 1,
            code: m[1]!,
            col: m[2] ? Number(m[2]) : undefined,
            message: m[3] ? new RegExp(m[3].replace(/\\"/g, '"')) : undefined,
          });
      });
      const asserts = body.filter((l) => /\bassert_eq\(/.test(l)).length;
      chunks.push({ file, startLine: start + 1, source: body.join("\n") + "\n", expected, checks: asserts + expected.length });
    }
    start = end + 1;
  };
  lines.forEach((l, i) => {
    if (l === "---") flush(i);
  });
  flush(lines.length);
  return chunks;
}

function loadCorpus(): Chunk[] {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith(".star"))
    .sort();
  return files.flatMap((f) => parseCorpus(f, readFileSync(join(DIR, f), "utf8")));
}

const PRELUDE_LINES = PRELUDE.split("\n").length - 1;

function describe(d: Diagnostic): string {
  // A failed assert_eq stops inside the prelude: name the chunk line that called it.
  const pos = d.pos && d.pos.line <= PRELUDE_LINES && d.stack && d.stack.length > 1 ? d.stack[0]!.pos : d.pos;
  return `${pos ? `${pos.line - PRELUDE_LINES}:${pos.col}` : "?"} ${d.code}: ${d.message}`;
}

/** Problems with one chunk's result, empty when it conforms. */
function check(chunk: Chunk, diagnostics: Diagnostic[]): string[] {
  const problems: string[] = [];
  const unmatched = [...diagnostics];
  for (const want of chunk.expected) {
    const i = unmatched.findIndex(
      (d) =>
        d.pos !== undefined &&
        d.pos.line - PRELUDE_LINES === want.line &&
        d.code === want.code &&
        (want.col === undefined || d.pos.col === want.col) &&
        (want.message === undefined || want.message.test(d.message)),
    );
    if (i < 0)
      problems.push(
        `expected ${want.code}${want.col ? `@${want.col}` : ""}${want.message ? ` /${want.message.source}/` : ""} on line ${want.line}`,
      );
    else unmatched.splice(i, 1);
  }
  for (const d of unmatched) problems.push(`unexpected ${describe(d)}`);
  return problems;
}

function where(chunk: Chunk): string {
  return `${chunk.file}:${chunk.startLine}`;
}

const corpus = loadCorpus();

test("the conformance corpus holds at least 300 cases, in chunks of our own", () => {
  const cases = corpus.reduce((n, c) => n + c.checks, 0);
  assert.ok(corpus.length >= 300, `${corpus.length} chunks`);
  assert.ok(cases >= 400, `${cases} cases`);
  for (const c of corpus) assert.ok(c.checks > 0, `${where(c)}: a chunk that checks nothing`);
  assert.ok(
    corpus.some((c) => c.expected.length > 1),
    "some chunk reports several static errors at once",
  );
});

test("L-10..L-16: every conformance chunk behaves as the specification says", () => {
  const failures: string[] = [];
  for (const chunk of corpus) {
    const r = execFile(chunk.file, PRELUDE + chunk.source, { stepBudget: 1_000_000, print: () => {} });
    for (const d of r.diagnostics) if (d.code === "internal-error") failures.push(`${where(chunk)}: internal error: ${d.message}`);
    for (const p of check(chunk, r.diagnostics)) failures.push(`${where(chunk)}: ${p}`);
  }
  assert.deepEqual(failures, []);
});

test("L-16: the corpus runs through `switchyard eval` (all error-free chunks together, and a sample of error chunks)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-conf-"));
  try {
    // Every error-free chunk, one after another in one module (globals may be reassigned).
    const clean = corpus.filter((c) => c.expected.length === 0);
    const path = join(dir, "clean.star");
    writeFileSync(path, PRELUDE + clean.map((c) => c.source).join("") + 'print("conformance ok")\n');
    const r = await spawnCliInProcess(["eval", path]);
    assert.equal(r.stderr, "");
    assert.equal(r.status, 0);
    assert.ok(r.stdout.endsWith("conformance ok\n"), r.stdout.slice(-200));
    // One runtime error with a known column from each of a few files: exit 1 and FILE:LINE:COL: error[CODE].
    const files = [...new Set(corpus.map((c) => c.file))];
    const sample = files
      .filter((_, i) => i % 3 === 0)
      .map((f) => corpus.find((c) => c.file === f && c.expected.length === 1 && c.expected[0]!.col !== undefined))
      .filter((c): c is Chunk => c !== undefined);
    assert.ok(sample.length >= 3, `${sample.length} sampled error chunks`);
    for (const failing of sample) {
      const errPath = join(dir, `err-${failing.file}`);
      writeFileSync(errPath, PRELUDE + failing.source);
      const e = await spawnCliInProcess(["eval", errPath]);
      const want = failing.expected[0];
      assert.equal(e.status, 1, `${where(failing)}: ${e.stderr}`);
      assert.ok(
        e.stderr.startsWith(`${errPath}:${want!.line + PRELUDE_LINES}:${want!.col}: error[${want!.code}]: `),
        `${where(failing)}: ${e.stderr}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the corpus runner itself rejects a wrong expectation and a failed assert_eq", () => {
  const [wrongCode, missed, mismatch, extra] = parseCorpus(
    "self.star",
    "x = 1 // 0 ### type-error\n---\nx = 1 ### runtime-error\n---\nassert_eq(1, 1.0)\n---\nx = [][0]\n",
  );
  const run = (c: Chunk) => check(c, execFile(c.file, PRELUDE + c.source, { print: () => {} }).diagnostics);
  assert.deepEqual(run(wrongCode!).length, 2); // the expected code missing, the actual one unexpected
  assert.match(run(missed!)[0]!, /expected runtime-error on line 1/);
  assert.match(run(mismatch!)[0]!, /unexpected 1:\d+ fail: assert_eq: got 1 want 1\.0/);
  assert.match(run(extra!)[0]!, /unexpected 1:\d+ index-error/);
});
