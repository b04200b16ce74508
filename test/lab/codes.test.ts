// Every error code the lab emits is in its catalog (for `switchyard explain CODE`).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LAB_CODES, LAB_CODE_SET } from "../../src/lab/codes.js";

test("H-1/H-2: every lab-* code used in src/lab and src/cli/lab.ts is in the catalog, with an explanation", () => {
  const cli = readdirSync("src/cli")
    .filter((f) => f.startsWith("lab"))
    .map((f) => join("src/cli", f));
  const files = [...readdirSync("src/lab").map((f) => join("src/lab", f)), ...cli].filter(
    (f) => f.endsWith(".ts") && !f.endsWith("codes.ts"),
  );
  const used = new Set<string>();
  for (const f of files) for (const m of readFileSync(f, "utf8").matchAll(/["[](lab-[a-z]+(?:-[a-z]+)*)["\]]/g)) used.add(m[1]!);
  assert.ok(used.size >= 4, `found only ${[...used].join(", ")}`);
  for (const code of used) assert.ok(LAB_CODE_SET.has(code), `${code} is used but not in LAB_CODES`);
  for (const entry of LAB_CODES) {
    assert.match(entry.code, /^[a-z]+(-[a-z]+)*$/);
    assert.ok(entry.explain.length > 80 && entry.summary.length > 10, entry.code);
  }
});
