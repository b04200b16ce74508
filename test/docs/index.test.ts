// The docs index lists every page, and every link between pages resolves (to a file and, where
// a link names one, to a heading).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const pages = readdirSync("docs")
  .filter((f) => f.endsWith(".md") && f !== "README.md")
  .sort();

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

test("docs/README.md lists every page of docs/ with the question it answers", () => {
  const index = readFileSync("docs/README.md", "utf8");
  for (const page of pages)
    assert.match(
      index,
      new RegExp(`\\| \\[${page.replace(".", "\\.")}\\]\\(${page.replace(".", "\\.")}\\) \\| .{20,}\\|`),
      `docs/README.md has no line for ${page}`,
    );
});

test("every relative link in docs/*.md resolves to a page and heading", () => {
  const broken: string[] = [];
  for (const page of ["README.md", ...pages]) {
    const text = readFileSync(join("docs", page), "utf8");
    for (const m of text.matchAll(/\]\(([A-Za-z0-9_./-]+\.md)?(?:#([^)]+))?\)/g)) {
      const target = m[1] ?? page;
      if (m[1] === undefined && m[2] === undefined) continue;
      const file = join("docs", target);
      if (!existsSync(file)) {
        broken.push(`${page}: ${m[0]} (no file)`);
        continue;
      }
      if (m[2] !== undefined) {
        const headings = [...readFileSync(file, "utf8").matchAll(/^#+ (.*)$/gm)].map((h) => anchor(h[1]!));
        if (!headings.includes(m[2])) broken.push(`${page}: ${m[0]} (no heading #${m[2]} in ${target})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
