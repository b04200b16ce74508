// The count of `as` casts and non-null assertions in src/ may only go down: scripts/type-discipline.mjs
// --check fails above its LIMIT (lowered whenever a change removes some).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

test("src/ holds no more `as` casts and non-null assertions than the recorded limit", () => {
  const r = spawnSync(process.execPath, ["scripts/type-discipline.mjs", "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test("the limit check fails on a folder over the limit", () => {
  // test/ asserts freely on fixed data (docs/architecture.md), far above src/'s limit.
  const r = spawnSync(process.execPath, ["scripts/type-discipline.mjs", "--check", "test"], { encoding: "utf8" });
  assert.equal(r.status, 1, `${r.stdout}${r.stderr}`);
  assert.match(r.stderr, /more type assertions than the limit/);
});
