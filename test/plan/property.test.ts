// Property tests: `check` on random and mutated playbook sources only ever returns diagnostics —
// never an uncaught exception — and always finishes quickly (L-14's step budget bounds loops).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { compilePath } from "../../src/plan/index.js";

const TRIAGE = readFileSync("test/fixtures/packs/triage/triage.star", "utf8");
const VOCAB = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  "=",
  ":",
  ".",
  "\n",
  "    ",
  "#",
  '"',
  "'",
  "\\",
  "def ",
  "for ",
  "in ",
  "if ",
  "lambda ",
  "return ",
  "None",
  "True",
  "1",
  "0",
  "-1",
  "10001",
  "1.5",
  "prepare",
  "gate",
  "match",
  "depth",
  "uncertain",
  "quick",
  "over",
  "when",
  "answers",
  "otherwise",
  "keyed",
  "max_fanout",
  "depends_on",
  "route",
  "agent",
  "command",
  "choice",
  "noul",
  "score",
  "evaluate",
  "revise",
  "playbook",
  "load",
  'fail("x")',
  "{{key}}",
  "{{inputs.prepare.x}}",
  "prepare.facts",
  "*",
  "**",
  "+",
  "%",
  "while ",
  "range(1000000000)",
];

/** Edits applied to a valid playbook: deletions, insertions of meaningful tokens, line duplication. */
const edit = fc.oneof(
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: fc.constantFrom(...VOCAB) }),
  fc.record({ op: fc.constant("dupline" as const), at: fc.nat(), len: fc.constant(0) }),
);
type Edit =
  { op: "delete"; at: number; len: number } | { op: "insert"; at: number; text: string } | { op: "dupline"; at: number; len: number };

function apply(src: string, edits: Edit[]): string {
  let s = src;
  for (const e of edits) {
    const at = s.length === 0 ? 0 : e.at % s.length;
    if (e.op === "delete") s = s.slice(0, at) + s.slice(at + e.len);
    else if (e.op === "insert") s = s.slice(0, at) + e.text + s.slice(at);
    else {
      const lines = s.split("\n");
      const i = at % lines.length;
      lines.splice(i, 0, lines[i]!);
      s = lines.join("\n");
    }
  }
  return s;
}

function withPack(fn: (write: (src: string) => void, dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "sy-prop-"));
  try {
    fn((src) => writeFileSync(join(dir, "main.star"), src), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkOnce(dir: string): void {
  const started = Date.now();
  const r = compilePath(dir, { stepBudget: 300_000 });
  // The step budget bounds the check: no runaway (loose for a loaded machine).
  assert.ok(Date.now() - started < 20000, "check finished in time");
  for (const d of r.diagnostics) {
    assert.equal(typeof d.code, "string");
    assert.ok(d.code !== "internal-error", `internal error: ${d.message}`);
  }
  if (!r.plan)
    assert.ok(
      r.diagnostics.some((d) => d.severity === "error"),
      "no plan means at least one error",
    );
}

test("property: mutated triage playbooks give diagnostics, never an exception or a hang", () => {
  withPack((write, dir) => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        write(apply(TRIAGE, edits as Edit[]));
        checkOnce(dir);
      }),
      { numRuns: 150, seed: 20261202 },
    );
  });
});

test("property: random token soup gives diagnostics, never an exception or a hang", () => {
  withPack((write, dir) => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...VOCAB, "x", "y", " "), { maxLength: 60 }), fc.string({ maxLength: 30 }), (tokens, noise) => {
        write(tokens.join("") + noise);
        checkOnce(dir);
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});

test("property: mutated plan files are read or rejected with malformed-plan, never a crash", async () => {
  const { readPlanToml, writePlanToml } = await import("../../src/plan/index.js");
  const { DiagnosticError } = await import("../../src/lang/diagnostic.js");
  const text = writePlanToml(compilePath("test/fixtures/packs/triage").plan!);
  const tomlVocab = [
    "[",
    "]",
    "[[task]]",
    "=",
    '"',
    "1",
    "-5",
    "true",
    "x",
    "\n",
    "{}",
    "[]",
    "3.5",
    "kind",
    "when",
    "route",
    "depends_on",
  ];
  const tomlEdit = fc.oneof(
    fc.record({ op: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 30 }) }),
    fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: fc.constantFrom(...tomlVocab) }),
  );
  fc.assert(
    fc.property(fc.array(tomlEdit, { minLength: 1, maxLength: 3 }), (edits) => {
      const mutated = apply(text, edits as Edit[]);
      try {
        const plan = readPlanToml(mutated, "p.toml");
        assert.equal(typeof plan.playbook, "string");
      } catch (e) {
        assert.ok(e instanceof DiagnosticError, `unexpected ${(e as Error).stack}`);
        assert.equal(e.diagnostics[0]!.code, "malformed-plan");
      }
    }),
    { numRuns: 300, seed: 42 },
  );
});
