// C-1 … C-9: `check` reports every independent problem in one pass, so joining two
// independently broken packs into one file reports the union of their diagnostics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { compilePath } from "../../src/plan/index.js";

/** A small broken pack whose task names all start with `p`; each `# <-- CODE` marks an expected diagnostic. */
const PACKS: Array<(p: string) => string> = [
  (p) => `${p}prep = command(name = "${p}prep", run = "true", emits = {"keys": "list"})
${p}a = command(name = "${p}a", run = "true", retry = 3)  # <-- unknown-argument
${p}r = route(name = "${p}r", depends_on = [${p}prep], questions = {"q": noul(ask = "?", drop = ["yes", "no"])})  # <-- uncovered-label`,
  (p) => `${p}prep = command(name = "${p}prep", run = "true", emits = {"members": "list"})
${p}b = agent(name = "${p}b", depends_on = [${p}prep], over = ${p}prep.members, prompt = "p")  # <-- missing-max-fanout`,
  (p) => `${p}c = command(name = "${p}c", run = "x", timeout = "soon")  # <-- invalid-duration`,
  (p) => `${p}prep = command(name = "${p}prep", run = "true", emits = {"facts": "object"})
${p}d = agent(name = "${p}d", depends_on = [${p}prep], over = ${p}prep.facts, max_fanout = 5, prompt = "p")  # <-- over-not-list`,
  (p) => `${p}prep = command(name = "${p}prep", run = "true", emits = {"n": "number"})
${p}e = agent(name = "${p}e", depends_on = [${p}prep], prompt = "{{inputs.${p}prep.m}}")  # <-- unknown-placeholder`,
  (p) => `${p}f = agent(name = "${p}f", prompt = 3)  # <-- wrong-type`,
  (p) => `${p}prep = command(name = "${p}prep", run = "true", emits = {"n": "number"})
${p}g = agent(name = "${p}g", depends_on = [${p}prep], when = ${p}prep.n, answers = "x", prompt = "p")  # <-- when-not-route`,
  (p) => `${p}h = command(name = "${p}h")  # <-- missing-argument`,
  (p) => `${p}prep = command(name = "${p}prep", run = "true")
${p}gate = route(name = "${p}gate", depends_on = [${p}prep], questions = {"q": noul(ask = "?")})
${p}i = agent(name = "${p}i", depends_on = [${p}gate], wehn = ${p}gate.q, answers = "yes", prompt = "p")  # <-- unknown-argument`,
];

function expected(text: string, offset: number): string[] {
  return text.split("\n").flatMap((l, i) => [...l.matchAll(/# <-- ([a-z-]+)/g)].map((m) => `${m[1]} @ ${i + 1 + offset}`));
}

function diagnostics(text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "sy-join-"));
  try {
    writeFileSync(join(dir, "main.star"), text);
    return [...new Set(compilePath(join(dir, "main.star")).diagnostics.map((d) => `${d.code} @ ${d.pos?.line}`))].sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("C-1 … C-9: each broken pack alone reports exactly its marked diagnostics", () => {
  for (const make of PACKS) assert.deepEqual(diagnostics(make("x")), expected(make("x"), 0).sort(), make("x"));
});

test("property: joining two independently broken packs reports the union of their diagnostics", () => {
  fc.assert(
    fc.property(fc.nat(PACKS.length - 1), fc.nat(PACKS.length - 1), (i, j) => {
      const a = PACKS[i]!("x");
      const b = PACKS[j]!("y");
      const want = [...expected(a, 0), ...expected(b, a.split("\n").length)].sort();
      assert.deepEqual(diagnostics(`${a}\n${b}`), want);
    }),
    { numRuns: 64 },
  );
});
