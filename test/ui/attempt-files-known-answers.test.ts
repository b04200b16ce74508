// The web view's reading of an attempt's files (docs/ui.md), at its limits, with the answers worked
// out by hand: the log's last 16384 bytes (16 KB), input and usage JSON up to 262144 bytes (256 KB),
// a workspace file up to 65536 bytes (64 KB), at most 200 workspace files listed breadth first in
// name order, a revise round's body prompt beside the attempt's files, and a file named by a path
// that leaves the workspace, passes a symbolic link, or holds a backslash is refused.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attemptFiles, roundPrompt, workspaceFile } from "../../src/ui/attempt-files.js";

/** A state folder's runs/run-1 with the files of task "t", key "k1", attempt 2 (workspace k1.a2). */
function withRun(body: (runDir: string, work: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "sy-attempt-files-"));
  try {
    const runDir = join(root, "runs", "run-1");
    const work = join(runDir, "work", "t");
    mkdirSync(join(work, "k1.a2"), { recursive: true });
    body(runDir, work);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A JSON text of exactly `bytes` bytes: {"a":"xxx…"}. */
const jsonOf = (bytes: number) => `{"a":"${"x".repeat(bytes - 8)}"}`;

test("the log shows its last 16384 bytes: a log of 16384 is whole, of 16385 loses its first byte", () => {
  withRun((runDir, work) => {
    writeFileSync(join(work, "k1.a2.log"), "a" + "b".repeat(16383));
    assert.equal(attemptFiles(runDir, "t", "k1", 2).log_tail, "a" + "b".repeat(16383));
    writeFileSync(join(work, "k1.a2.log"), "a" + "b".repeat(16384));
    assert.equal(attemptFiles(runDir, "t", "k1", 2).log_tail, "b".repeat(16384));
    writeFileSync(join(work, "k1.a2.log"), "");
    assert.equal(attemptFiles(runDir, "t", "k1", 2).log_tail, "");
  });
});

test("input and usage JSON of 262144 bytes are shown parsed, of 262145 as their size; text that is not JSON as text", () => {
  withRun((runDir, work) => {
    assert.equal(jsonOf(262144).length, 262144);
    writeFileSync(join(work, "k1.a2.input.json"), jsonOf(262144));
    writeFileSync(join(work, "k1.a2.usage.json"), jsonOf(262145));
    writeFileSync(join(work, "k1.a2.prompt.txt"), "p".repeat(262145));
    const a = attemptFiles(runDir, "t", "k1", 2);
    assert.deepEqual(a.input, { a: "x".repeat(262136) });
    assert.equal(a.usage, "(262145 bytes, too large to show)");
    assert.equal(a.prompt, "p".repeat(262144), "the prompt's first 256 KB");
    writeFileSync(join(work, "k1.a2.usage.json"), '{"input_tokens": 3,');
    assert.equal(attemptFiles(runDir, "t", "k1", 2).usage, '{"input_tokens": 3,');
  });
});

test("an attempt's files are named KEY.aN, or aN for an unmapped task; absent files are null", () => {
  withRun((runDir, work) => {
    writeFileSync(join(work, "a3.input.json"), "[3]");
    writeFileSync(join(work, "k1.a3.input.json"), '["k1"]');
    mkdirSync(join(work, "a3"));
    writeFileSync(join(work, "a3", "out.txt"), "three");
    assert.deepEqual(attemptFiles(runDir, "t", null, 3), {
      attempt: 3,
      input: [3],
      log_tail: null,
      prompt: null,
      usage: null,
      files: [{ path: "out.txt", bytes: 5 }],
    });
    assert.deepEqual(attemptFiles(runDir, "t", "k1", 3).input, ["k1"]);
    assert.deepEqual(workspaceFile(runDir, "t", null, 3, "out.txt"), { text: "three", bytes: 5, truncated: false });
    assert.deepEqual(attemptFiles(runDir, "t", "k1", 2), { attempt: 2, input: null, log_tail: null, prompt: null, usage: null, files: [] });
  });
});

test("a revise round's body prompt is read from STEM-rN-body.prompt.txt, its first 262144 bytes; absent is null", () => {
  withRun((runDir, work) => {
    writeFileSync(join(work, "k1.a2-r3-body.prompt.txt"), "round three");
    writeFileSync(join(work, "a2-r1-body.prompt.txt"), "q".repeat(262145));
    assert.equal(roundPrompt(runDir, "t", "k1", 2, 3), "round three");
    assert.equal(roundPrompt(runDir, "t", "k1", 2, 2), null, "another round");
    assert.equal(roundPrompt(runDir, "t", "k1", 1, 3), null, "another attempt");
    assert.equal(roundPrompt(runDir, "t", null, 2, 1), "q".repeat(262144), "an unmapped task's stem is aN");
    assert.equal(roundPrompt(runDir, "t", null, 2, 3), null);
  });
});

test("the workspace is listed breadth first in name order, files only, no link followed", () => {
  withRun((runDir, work) => {
    const ws = join(work, "k1.a2");
    mkdirSync(join(ws, "a", "deep"), { recursive: true });
    writeFileSync(join(ws, "c.txt"), "cc");
    writeFileSync(join(ws, "b.txt"), "b");
    writeFileSync(join(ws, "a", "z.txt"), "zzz");
    writeFileSync(join(ws, "a", "deep", "y.txt"), "yyyy");
    symlinkSync(join(ws, "c.txt"), join(ws, "link"));
    symlinkSync(join(ws, "a"), join(ws, "folder-link"));
    assert.deepEqual(attemptFiles(runDir, "t", "k1", 2).files, [
      { path: "b.txt", bytes: 1 },
      { path: "c.txt", bytes: 2 },
      { path: "a/z.txt", bytes: 3 },
      { path: "a/deep/y.txt", bytes: 4 },
    ]);
  });
});

// The folder "0sub" sorts before the files, so it is queued before the 200th file is listed.
test("at most 200 workspace files are listed: 200 and 201 in one folder, 199 and a folder of 2", () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `f${String(i).padStart(3, "0")}`);
  for (const [inRoot, inSub, expected] of [
    [200, 0, names(200)],
    [201, 0, names(200)],
    [200, 1, names(200)],
    [199, 2, [...names(199), "0sub/s1"]],
  ] as const) {
    withRun((runDir, work) => {
      const ws = join(work, "k1.a2");
      for (const n of names(inRoot)) writeFileSync(join(ws, n), "");
      if (inSub > 0) mkdirSync(join(ws, "0sub"));
      for (let i = 1; i <= inSub; i++) writeFileSync(join(ws, "0sub", `s${i}`), "");
      assert.deepEqual(
        attemptFiles(runDir, "t", "k1", 2).files.map((f) => f.path),
        expected,
        `${inRoot} files and a folder of ${inSub}`,
      );
    });
  }
});

test("a workspace file shows its first 65536 bytes: 65536 whole, 65537 truncated", () => {
  withRun((runDir, work) => {
    const ws = join(work, "k1.a2");
    writeFileSync(join(ws, "whole"), "w".repeat(65536));
    writeFileSync(join(ws, "cut"), "c".repeat(65536) + "d");
    assert.deepEqual(workspaceFile(runDir, "t", "k1", 2, "whole"), { text: "w".repeat(65536), bytes: 65536, truncated: false });
    assert.deepEqual(workspaceFile(runDir, "t", "k1", 2, "cut"), { text: "c".repeat(65536), bytes: 65537, truncated: true });
  });
});

test("a workspace file named by a path that leaves the workspace, passes a link or holds a backslash is refused", () => {
  withRun((runDir, work) => {
    const ws = join(work, "k1.a2");
    mkdirSync(join(ws, "sub"));
    writeFileSync(join(ws, "sub", "f.txt"), "inside");
    writeFileSync(join(ws, "back\\slash"), "a backslash in a name");
    mkdirSync(join(ws, "back\\folder"));
    writeFileSync(join(ws, "back\\folder", "f.txt"), "in a folder with a backslash in its name");
    writeFileSync(join(work, "k1.a2.input.json"), "{}");
    symlinkSync(join(ws, "sub"), join(ws, "via"));
    symlinkSync(join(ws, "sub", "f.txt"), join(ws, "f-link"));
    assert.deepEqual(workspaceFile(runDir, "t", "k1", 2, "sub/f.txt"), { text: "inside", bytes: 6, truncated: false });
    for (const rel of [
      "",
      "/sub/f.txt",
      "sub//f.txt",
      "sub/",
      "./sub/f.txt",
      "sub/./f.txt",
      "../k1.a2.input.json",
      "sub/../../k1.a2.input.json",
      "back\\slash",
      "sub\\f.txt",
      "back\\folder/f.txt",
      "sub/f.txt\0",
      "via/f.txt",
      "f-link",
      "sub",
      "absent",
    ])
      assert.equal(workspaceFile(runDir, "t", "k1", 2, rel), null, JSON.stringify(rel));
  });
});

test("reading an attempt's files leaves no file open", { skip: !existsSync("/proc/self/fd") && "needs /proc" }, () => {
  withRun((runDir, work) => {
    writeFileSync(join(work, "k1.a2.input.json"), "{}");
    writeFileSync(join(work, "k1.a2.log"), "log");
    writeFileSync(join(work, "k1.a2", "f.txt"), "f");
    const open = () => readdirSync("/proc/self/fd").length;
    const before = open();
    for (let i = 0; i < 5; i++) {
      attemptFiles(runDir, "t", "k1", 2);
      workspaceFile(runDir, "t", "k1", 2, "f.txt");
    }
    assert.equal(open(), before);
  });
});
