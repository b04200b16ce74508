// L-15 at run time: a runtime error inside an `evaluate` function is
// reported like a compile-time error — FILE:LINE:COL, the source line with a caret, and the call
// stack — both from loadEvaluator and in what `switchyard run` prints and `show --json` records.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { DiagnosticError } from "../../src/lang/diagnostic.js";
import { compilePath, loadEvaluator } from "../../src/plan/index.js";
import { TempDir } from "../run/helpers.js";

const MAIN = `load("lib/f.star", "count", "list_result")
prep = command(name = "prep", run = "echo '{\\"n\\": 1}' > $SWITCHYARD_OUTPUT", emits = {"n": "number"})
a = evaluate(name = "a", depends_on = [prep], fn = count)
`;

const LIB = `def helper(x):
    return x["missing"]

def count(input):
    return {"n": 1 + helper(input)}

def list_result(input):
    return [input]
`;

const EXPECTED = [
  'lib/f.star:2:13: error[key-error]: key "missing" not in dict',
  '2 |     return x["missing"]',
  "  |             ^",
  "call stack (most recent call last):",
  "  lib/f.star:5:22: in count",
  "  lib/f.star:2:13: in helper",
];

test("L-15: an evaluate function's runtime error carries FILE:LINE:COL, the source line and the call stack", () => {
  const dir = new TempDir("sy-evalpos-");
  try {
    dir.file("main.star", MAIN);
    dir.file("lib/f.star", LIB);
    const r = compilePath(dir.path);
    assert.deepEqual(r.diagnostics, []);
    const fn = loadEvaluator(dir.path, r.plan!, "a");
    assert.throws(
      () => fn({ n: 1 }),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        const d = e.diagnostics[0];
        assert.equal(d.code, "key-error");
        assert.deepEqual(d.pos, { file: "lib/f.star", line: 2, col: 13 });
        // the call of helper points at the call in count (its column), not at column 1
        assert.deepEqual(
          d.stack?.map((f) => `${f.name}@${f.pos.line}:${f.pos.col}`),
          ["count@5:22", "helper@2:13"],
        );
        assert.deepEqual(e.message.split("\n").slice(0, EXPECTED.length), EXPECTED);
        return true;
      },
    );
  } finally {
    dir.cleanup();
  }
});

test("L-15: `switchyard run` prints and records the positioned error of a failing evaluate", () => {
  const dir = new TempDir("sy-evalpos-");
  try {
    dir.file("pack/main.star", MAIN);
    dir.file("pack/lib/f.star", LIB);
    const env = { ...process.env, SWITCHYARD_HOME: join(dir.path, "state"), XDG_CONFIG_HOME: join(dir.path, "xdg") };
    const bin = join(process.cwd(), "bin", "switchyard.js");
    const run = spawnSync(process.execPath, [bin, "run", "pack"], { cwd: dir.path, encoding: "utf8", env });
    assert.equal(run.status, 1, run.stderr + run.stdout);
    for (const line of EXPECTED) assert.ok(run.stdout.includes(line), `missing ${JSON.stringify(line)} in:\n${run.stdout}`);
    const id = /run (\S+): failed/.exec(run.stdout)?.[1];
    assert.ok(id, run.stdout);
    const show = JSON.parse(spawnSync(process.execPath, [bin, "show", id!, "--json"], { cwd: dir.path, encoding: "utf8", env }).stdout);
    const error: string = show.tasks.a.error;
    assert.match(error, /^evaluate-failed: count: lib\/f\.star:2:13: error\[key-error\]/);
    assert.ok(error.includes(EXPECTED.slice(1).join("\n")), error);
  } finally {
    dir.cleanup();
  }
});

test("a non-dict result from an evaluate function points at its def, with the source line", () => {
  const dir = new TempDir("sy-evalpos-");
  try {
    dir.file("main.star", MAIN.replace("fn = count", "fn = list_result"));
    dir.file("lib/f.star", LIB);
    const r = compilePath(dir.path);
    const fn = loadEvaluator(dir.path, r.plan!, "a");
    assert.throws(
      () => fn({}),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        assert.deepEqual(e.message.split("\n").slice(0, 3), [
          "lib/f.star:7:1: error[evaluator]: evaluate task 'a': list_result() returned list, not a dict",
          "7 | def list_result(input):",
          "  | ^",
        ]);
        return true;
      },
    );
  } finally {
    dir.cleanup();
  }
});
