// Every playbook shown in the docs compiles: a ```python or ```starlark block that
// declares a task is written to a temporary pack and compiled with compilePath. A deliberately
// broken example starts with `# expect: CODE` and must fail with exactly that code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePath } from "../../src/plan/index.js";
import { formatDiagnostic } from "../../src/lang/diagnostic.js";
import { allBlocks, expectedCode, fencedBlocks, isPlaybookBlock, type CodeBlock } from "./blocks.js";

function compileBlock(b: CodeBlock): { codes: string[]; messages: string } {
  const dir = mkdtempSync(join(tmpdir(), "sy-docblock-"));
  try {
    writeFileSync(join(dir, "main.star"), b.text);
    const r = compilePath(dir);
    const errors = r.diagnostics.filter((d) => d.severity !== "warning");
    return { codes: errors.map((d) => d.code), messages: errors.map((d) => formatDiagnostic(d, (f) => r.sources.get(f))).join("\n") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("docs: the block extractor finds fenced playbooks and their expect line", () => {
  const md = 'x\n```python\n# expect: uncovered-label\nr = route(name = "r")\n```\n```text\ncommand(\n```\n```starlark\nx = 1\n```\n';
  const blocks = fencedBlocks("t.md", md);
  assert.deepEqual(
    blocks.map((b) => [b.lang, b.line]),
    [
      ["python", 2],
      ["text", 6],
      ["starlark", 9],
    ],
  );
  assert.equal(expectedCode(blocks[0]), "uncovered-label");
  assert.deepEqual(blocks.map(isPlaybookBlock), [true, false, false]);
});

/** What is wrong with a playbook block, or undefined when it does what it claims. */
function problemOf(b: CodeBlock): string | undefined {
  const { codes, messages } = compileBlock(b);
  const want = expectedCode(b);
  if (want === undefined && codes.length > 0) return `${b.file}:${b.line}: the playbook does not compile:\n${messages}`;
  if (want !== undefined && !(codes.length > 0 && codes.every((c) => c === want))) {
    return `${b.file}:${b.line}: expected only error[${want}], got ${codes.length ? codes.join(", ") : "no error"}\n${messages}`;
  }
  return undefined;
}

test("docs: the block check notices a broken playbook, a wrong `# expect:` and a good one", () => {
  const good = 'prep = command(name = "prep", run = "true")\n';
  const bad = 'prep = command(name = "prep", run = "true", depends_on = [missing])\n';
  const block = (text: string): CodeBlock => ({ file: "t.md", line: 1, lang: "python", text });
  assert.equal(problemOf(block(good)), undefined);
  assert.match(problemOf(block(bad)) ?? "", /does not compile:[\s\S]*undefined-name/);
  assert.equal(problemOf(block("# expect: undefined-name\n" + bad)), undefined);
  assert.match(problemOf(block("# expect: uncovered-label\n" + bad)) ?? "", /expected only error\[uncovered-label\], got undefined-name/);
  assert.match(problemOf(block("# expect: undefined-name\n" + good)) ?? "", /got no error/);
});

test("docs: every playbook code block in docs/*.md and README.md compiles (or fails with its `# expect:` code)", () => {
  const blocks = allBlocks(process.cwd()).filter(isPlaybookBlock);
  for (const page of ["docs/gating.md", "docs/playbooks.md"])
    assert.ok(
      blocks.some((b) => b.file === page),
      `no playbook blocks found in ${page}`,
    );
  assert.ok(blocks.length >= 12, `found only ${blocks.length} playbook blocks`);
  const problems = blocks.map(problemOf).filter((p): p is string => p !== undefined);
  assert.equal(
    problems.length,
    0,
    `${problems.length} doc block(s) wrong (tag a deliberately broken example with a first line \`# expect: CODE\`, or use \`\`\`text):\n\n${problems.join("\n\n")}`,
  );
});
