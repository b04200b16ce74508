// L-14: besides the step budget, evaluation has an allocation budget counting the
// collection elements it creates, so a runaway comprehension stops with a diagnostic before it
// exhausts memory — even when the step budget is raised far enough to let it run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ALLOC_BUDGET, Thread, execFile } from "../../src/lang/index.js";

function allocError(src: string, allocBudget: number): { code: string; at: string; allocated: number } {
  const thread = new Thread({ stepBudget: 1_000_000_000, allocBudget, print: () => {} });
  const r = execFile("alloc.star", src, { thread });
  assert.equal(r.ok, false, src);
  const d = r.diagnostics[0];
  return { code: d.code, at: `${d.pos?.line}:${d.pos?.col}`, allocated: thread.allocated };
}

test("L-14: list and dict comprehensions of 10^8 items stop at the allocation budget, at the comprehension", () => {
  const cases: Array<[string, string]> = [
    ["x = [i for i in range(100000000)]\n", "1:5"],
    ["x = {i: str(i) for i in range(100000000)}\n", "1:5"],
    ["x = [[i] for i in range(100000000)]\n", "1:6"], // the element list that went over
  ];
  for (const [src, at] of cases) {
    const e = allocError(src, 100_000);
    assert.equal(e.code, "alloc-budget", src);
    assert.equal(e.at, at, src);
    assert.ok(e.allocated <= 100_000 + 3, `${e.allocated} elements counted`);
  }
});

test("L-14: every way of building a large collection counts against the allocation budget", () => {
  const builders = [
    "l = []\nfor i in range(100000):\n    l.append(i)\n",
    "l = []\nfor i in range(100000):\n    l.extend([i, i])\n",
    "d = {}\nfor i in range(100000):\n    d[i] = i\n",
    "d = {}\nfor i in range(100000):\n    d.setdefault(i, 1)\n",
    "s = set()\nfor i in range(100000):\n    s.add(i)\n",
    "x = list(range(100000))\n",
    "x = sorted(range(100000))\n",
    "x = enumerate(range(100000))\n",
    "x = zip(range(100000), range(100000))\n",
    "x = [0] * 1000000\n",
    "x = 'ab' * 5000000\n",
    "x = ','.join(['x'] * 1000000)\n",
    "x = ('a ' * 1000000).split()\n",
    "x = [[0] * 1000 for i in range(1000)]\n",
    "x = {}\nfor i in range(100000):\n    x = x | {i: i}\n    x = dict(x)\n",
  ];
  for (const src of builders) assert.equal(allocError(src, 50_000).code, "alloc-budget", src);
  // Rebinding a list to a one-longer copy counts the new element, not the whole copy each time.
  const r = execFile("ok.star", "l = []\nfor i in range(2000):\n    l = l + [i]\n", { allocBudget: 10_000, print: () => {} });
  assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
});

test("L-14: the default allocation budget stops a 10^8-element comprehension inside a 512 MB heap", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-alloc-"));
  try {
    const file = join(dir, "big.star");
    writeFileSync(file, "x = [i for i in range(100000000)]\n");
    const bin = join(process.cwd(), "bin", "switchyard.js");
    // With the heap capped, running out of memory would kill the child instead of this error.
    const r = spawnSync(process.execPath, ["--max-old-space-size=512", bin, "eval", file, "--step-budget", "1000000000"], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.ok(
      r.stderr.startsWith(
        `${file}:1:5: error[alloc-budget]: evaluation created more than ${DEFAULT_ALLOC_BUDGET.toLocaleString("en-US")} `,
      ),
      r.stderr,
    );
    const low = spawnSync(process.execPath, [bin, "eval", file, "--alloc-budget", "1000"], { encoding: "utf8", timeout: 60_000 });
    assert.match(low.stderr, /error\[alloc-budget\]: evaluation created more than 1,000 /);
    const bad = spawnSync(process.execPath, [bin, "eval", file, "--alloc-budget", "-1"], { encoding: "utf8", timeout: 60_000 });
    assert.equal(bad.status, 2, bad.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
