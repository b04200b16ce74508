// src/lang keeps no module-level mutable state. A value's frozen
// mark and a function's identity live on the value (as in starlark-go), so two threads
// evaluating side by side share nothing but the values one hands the other.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Thread, execFile, type Value } from "../../src/lang/index.js";

function run(src: string, predeclared: Record<string, Value> = {}) {
  const r = execFile("m.star", src, { thread: new Thread({ print: () => {} }), predeclared });
  return r;
}

test("src/lang declares no module-level mutable state (no top-level let, no process-wide maps or sets of values)", () => {
  const found: string[] = [];
  for (const name of readdirSync(join("src", "lang")).filter((n) => n.endsWith(".ts"))) {
    const text = readFileSync(join("src", "lang", name), "utf8");
    for (const line of text.split("\n")) {
      if (/^(export )?(let|var) /.test(line) || /^(export )?const \w+(: (?!Readonly)[^=]+)? = new (WeakMap|WeakSet|Map)\b/.test(line))
        found.push(`${name}: ${line}`);
    }
  }
  assert.deepEqual(found, []);
});

test("a function hashes by identity across threads; freezing marks the values of one module only", () => {
  const a = run("def f():\n    return 1\n\ndef g():\n    return 2\n\nt = (f, [1])\n");
  assert.deepEqual(a.diagnostics, []);
  const f = a.globals.get("f")!;
  const g = a.globals.get("g")!;
  // Thread B keys dicts by thread A's functions: the same function is the same key, another is not.
  const b = run("d = {f: 1, g: 2}\nd[f] = 3\nn = len(d)\nsame = d[f]\nk = {(f, 1): 1, (g, 1): 2}\nm = len(k)\n", { f, g });
  assert.deepEqual(b.diagnostics, []);
  assert.equal(b.globals.get("n"), 2n);
  assert.equal(b.globals.get("same"), 3n);
  assert.equal(b.globals.get("m"), 2n);
  // Module A's tuple was frozen when A finished, with the list inside it.
  const c = run("t[1].append(2)\n", { t: a.globals.get("t")! });
  assert.deepEqual(
    c.diagnostics.map((d) => d.code),
    ["frozen-value"],
  );
  // A tuple made while another thread runs is not frozen by the other thread's module ending.
  const d = run("def h():\n    u = (1, [1])\n    u[1].append(2)\n    return u[1]\n\nr = h()\n");
  assert.deepEqual(d.diagnostics, []);
});
