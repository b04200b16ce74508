// `switchyard eval FILE.star` (L-16) on temp files: what it prints and returns, through the CLI's
// entry function in the test's own process (test/support/cli-in-process.ts); the step budget's case
// runs it as a child process.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sy-eval-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function evalFile(file: string, ...extra: string[]) {
  return runCliInProcess(["eval", file, ...extra]);
}

test("L-16: eval prints to stdout and exits 0; load resolves relative to the file, each module once", async () => {
  await withDir(async (dir) => {
    mkdirSync(join(dir, "lib"));
    writeFileSync(join(dir, "lib", "util.star"), 'print("loading util")\ndef double(x):\n    return x * 2\n');
    writeFileSync(join(dir, "lib", "more.star"), 'load("util.star", "double")\ndef quad(x):\n    return double(double(x))\n');
    writeFileSync(
      join(dir, "main.star"),
      'load("lib/util.star", "double")\nload("lib/more.star", "quad")\nprint(double(2), quad(1))\nprint("%d%%" % 50)\n',
    );
    const r = await evalFile(join(dir, "main.star"));
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "loading util\n4 4\n50%\n");
  });
});

test("L-16/L-15: a runtime error exits 1 with FILE:LINE:COL, the source line, a caret and the call stack", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "bad.star");
    writeFileSync(file, 'def f(x):\n    return x + "s"\nprint("before")\nf(1)\n');
    const r = await evalFile(file);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "before\n");
    assert.equal(
      r.stderr,
      [
        `${file}:2:14: error[type-error]: unsupported operand types for +: int and string`,
        '2 |     return x + "s"',
        "  |              ^",
        "call stack (most recent call last):",
        `  ${file}:4:1: in <toplevel>`,
        `  ${file}:2:14: in f`,
        "",
      ].join("\n"),
    );
  });
});

test("L-16/L-15: all static errors of the file are printed, and nothing runs", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "static.star");
    writeFileSync(file, 'print("never")\nx = undefined_a\ny = "a" "b"\nz = undefined_b\n');
    const r = await evalFile(file);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    const heads = r.stderr.split("\n").filter((l) => l.startsWith(file));
    assert.deepEqual(
      heads.map((l) => l.slice(file.length + 1).split(": ")[0] + ": " + l.split("error[")[1]?.split("]")[0]),
      ["2:5: undefined-name", "3:9: syntax-error", "4:5: undefined-name"],
    );
  });
});

test("L-3/L-16: load cycles and missing modules are load errors; a missing file is a usage error (exit 2)", async () => {
  await withDir(async (dir) => {
    writeFileSync(join(dir, "a.star"), 'load("b.star", "x")\n');
    writeFileSync(join(dir, "b.star"), 'load("a.star", "y")\nx = 1\n');
    const cyc = await evalFile(join(dir, "a.star"));
    assert.equal(cyc.code, 1);
    assert.match(cyc.stderr, /error\[load-error\]: load cycle/);
    writeFileSync(join(dir, "c.star"), 'load("nope.star", "x")\n');
    const missing = await evalFile(join(dir, "c.star"));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /c\.star:1:6: error\[load-error\]: cannot load "nope\.star"/);
    const none = await evalFile(join(dir, "does-not-exist.star"));
    assert.equal(none.code, 2);
    assert.match(none.stderr, /cannot read/);
  });
});

test("L-14/L-16: the step budget stops an endless computation with exit 1", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "loop.star");
    writeFileSync(file, "n = 0\nfor i in range(1000000000):\n    n += 1\n");
    // A child process with a time limit: were the budget broken, the loop would block this
    // process's event loop and no test timeout could end it.
    const child = spawnSync(process.execPath, [BIN, "eval", file, "--step-budget", "100000"], { encoding: "utf8", timeout: 20_000 });
    const r = { code: child.status, stderr: child.stderr };
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error\[step-budget\]: evaluation exceeded the step budget of 100,000 operations/);
  });
});
