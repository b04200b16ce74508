// Every rule id the repository cites (G-5, D-33, … in code comments, messages, test names and docs)
// resolves to the one paragraph of docs/reference/ that states the rule, and no file says
// "issue N" where it should say what the code does or which rule it keeps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The areas of the contract: L language, T tasks, M mapping, G gating, Q questions, C compilation, R runs, D decisions, H lab, X CLI. */
const PREFIXES = "LTMGQCRDHX";
/** A cited rule id: "G-5", "G-2a". Not "UTF-8" or "SHA-256" (other prefixes), nor "A-7" or "N-1". */
const CITED = new RegExp(String.raw`(?<![A-Za-z0-9_-])([${PREFIXES}]-\d+[a-z]?)(?![A-Za-z0-9_])`, "g");
/** A rule's own paragraph in docs/reference/: it starts with its id in bold. */
const DEFINED = /^\*\*([A-Z]-\d+[a-z]?)\b/gm;
/** "issue 17", "Issue 9 item 2", "issue #12", "issue11", "the issue-3 target": a reference to this project's own tracker. */
const ISSUE = /\bissues?[ -]?#?\d+/gi;
/** Where "issue N" is someone else's: a URL, or an explicit owner/repo#N. */
const OTHER_PROJECT = /https?:\/\/|\b[\w.-]+\/[\w.-]+#\d+/;

const REFERENCE = "docs/reference";
/** Where ids are cited and "issue N" is checked for. */
const ROOTS = ["src", "test", "docs", "scripts", "bench", "examples", ".ci", "README.md"];
const SKIP_DIRS = new Set(["node_modules", "dist", ".tmp", ".switchyard", ".git"]);
const TEXT = /\.(ts|mts|mjs|js|md|sh|star|toml|json|jsonl|txt|css|html)$|^run$/;
const THIS_FILE = "test/docs/rule-ids.test.ts";

function files(path: string, out: string[] = []): string[] {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return out;
  if (st.isFile()) {
    const name = path.split("/").pop() ?? path;
    if (TEXT.test(name) && st.size < 5_000_000) out.push(path);
    return out;
  }
  for (const name of readdirSync(path).sort()) if (!SKIP_DIRS.has(name)) files(join(path, name), out);
  return out;
}

/** The rule ids a text cites, each once. */
function citedIds(text: string): string[] {
  return [...new Set([...text.matchAll(CITED)].map((m) => m[1] ?? ""))];
}

/** The "issue N" references of a text that are not another project's, with their line numbers. */
function issueReferences(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split("\n").forEach((line, i) => {
    if (OTHER_PROJECT.test(line)) return;
    for (const m of line.matchAll(ISSUE)) found.push({ line: i + 1, text: m[0] });
  });
  return found;
}

/** id → the pages of docs/reference/ whose paragraph states it (more than one is a mistake). */
function definitions(): Map<string, string[]> {
  const defs = new Map<string, string[]>();
  for (const page of files(REFERENCE).filter((f) => f.endsWith(".md")))
    for (const m of readFileSync(page, "utf8").matchAll(DEFINED)) {
      const id = m[1] ?? "";
      defs.set(id, [...(defs.get(id) ?? []), page]);
    }
  return defs;
}

test("rule ids are told apart from look-alikes: G-2a and the ends of a range count; UTF-8, SHA-256, A-7, N-1 do not", () => {
  const text = 'G-5, UTF-8 and SHA-256; (G-2a) "L-10..L-16" Q-30 … Q-33; account A-7, "0".."N-1", x-G-9, G-9z9';
  assert.deepEqual(citedIds(text), ["G-5", "G-2a", "L-10", "L-16", "Q-30", "Q-33"]);
});

test("an issue number of this project is found; a URL or another project's owner/repo#N is not", () => {
  const word = "issue";
  const text = [
    `see ${word} 12`,
    `(${word} #3)`,
    `${word}11`,
    `https://github.com/a/b/${word}s/12`,
    `langchain-ai/langchain#4629 ${word} 4629`,
    "issues remain",
  ].join("\n");
  assert.deepEqual(issueReferences(text), [
    { line: 1, text: `${word} 12` },
    { line: 2, text: `${word} #3` },
    { line: 3, text: `${word}11` },
  ]);
});

test("every rule id cited in the repository has its paragraph in docs/reference/", () => {
  const defs = definitions();
  const missing: string[] = [];
  for (const file of ROOTS.flatMap((r) => files(r))) {
    for (const id of citedIds(readFileSync(file, "utf8"))) if (!defs.has(id)) missing.push(`${file}: ${id}`);
  }
  assert.deepEqual(missing, [], "each of these ids needs a paragraph starting **ID** in a page of docs/reference/");
});

test("every rule id in docs/reference/ is stated once, and the index lists each page", () => {
  const defs = definitions();
  assert.ok(defs.size >= 80, `only ${defs.size} rules found in docs/reference/`);
  const twice = [...defs].filter(([, pages]) => pages.length > 1).map(([id, pages]) => `${id}: ${pages.join(", ")}`);
  assert.deepEqual(twice, []);
  const index = readFileSync(join(REFERENCE, "README.md"), "utf8");
  for (const page of readdirSync(REFERENCE).filter((f) => f.endsWith(".md") && f !== "README.md"))
    assert.ok(index.includes(`](${page})`), `docs/reference/README.md does not link ${page}`);
});

test('no "issue N" of this project in code, tests, scripts, benches, CI or docs: say what the code does or the rule it keeps', () => {
  const found: string[] = [];
  for (const file of ROOTS.flatMap((r) => files(r))) {
    if (file === THIS_FILE) continue;
    for (const r of issueReferences(readFileSync(file, "utf8"))) found.push(`${file}:${r.line}: ${r.text}`);
  }
  assert.deepEqual(found, []);
});
