// C-1 … C-9: every broken playbook of test/fixtures/broken/ produces exactly the diagnostics its
// first line announces (`# expect: CODE @ LINE, CODE @ FILE:LINE`), and nothing else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { compilePath } from "../../src/plan/index.js";
import { planCode } from "../../src/plan/codes.js";

const DIR = "test/fixtures/broken";

function expected(file: string, playbookDisplay: string, root: string): string[] {
  const first = readFileSync(file, "utf8").split("\n")[0];
  const m = /^# expect: (.+)$/.exec(first!);
  assert.ok(m, `${file}: first line must be "# expect: CODE @ LINE"`);
  return m[1]!
    .split(",")
    .map((s) => {
      const [code, where] = s.trim().split(/\s*@\s*/);
      const loc = where!.includes(":")
        ? `${relative(process.cwd(), join(root, where!.split(":")[0]!))
            .split("\\")
            .join("/")}:${where!.split(":")[1]}`
        : `${playbookDisplay}:${where}`;
      return `${code} @ ${loc}`;
    })
    .sort();
}

const entries = readdirSync(DIR).sort();

test("the broken corpus holds at least 40 playbooks", () => {
  assert.ok(entries.length >= 40, `only ${entries.length}`);
});

for (const name of entries) {
  const path = join(DIR, name);
  const isPack = statSync(path).isDirectory();
  const main = isPack ? join(path, "main.star") : path;
  const header = readFileSync(main, "utf8").split("\n")[0];
  const rules = [...new Set([...header!.matchAll(/([a-z-]+) @/g)].map((m) => planCode(m[1]!)?.rule ?? "L-15"))].join(", ");
  test(`${rules}: broken corpus ${name} reports exactly its expected diagnostics`, () => {
    const r = compilePath(path);
    const display = relative(process.cwd(), main).split("\\").join("/");
    const want = expected(main, display, isPack ? path : DIR);
    const got = [...new Set(r.diagnostics.map((d) => `${d.code} @ ${d.pos?.file}:${d.pos?.line}`))].sort();
    assert.deepEqual(
      got,
      [...new Set(want)].sort(),
      r.diagnostics.map((d) => `${d.pos?.file}:${d.pos?.line}:${d.pos?.col} ${d.code}: ${d.message}`).join("\n"),
    );
    assert.equal(r.plan, undefined);
    for (const d of r.diagnostics) {
      if (planCode(d.code)) assert.ok(d.message.length > 10, `a message for people: ${d.message}`);
      // plan codes are catalogued; language codes come from the interpreter's catalog
      if (planCode(d.code) === undefined) assert.match(d.code, /^[a-z]+(-[a-z]+)*$/);
    }
  });
}
