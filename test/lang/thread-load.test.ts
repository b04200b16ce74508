// The load hook is state of the thread executing a file (as starlark-go's
// Thread.Load), not of the module: a file executed on another thread from inside a loader does
// not see the outer file's loader, and the thread holds none once its file has finished.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Thread, execFile } from "../../src/lang/index.js";

test("the load hook belongs to the executing thread and is cleared when its file ends", () => {
  const outer = new Thread({ print: () => {} });
  let inner: ReturnType<typeof execFile> | undefined;
  const r = execFile("main.star", 'load("lib.star", "x")\ny = x + 1\n', {
    thread: outer,
    load: (module) => {
      assert.equal(module, "lib.star");
      assert.equal(typeof outer.load, "function", "the outer thread has its loader while its file runs");
      // Another file, on its own thread with no loader, run from inside the outer loader.
      inner = execFile("other.star", 'load("lib.star", "x")\n', { print: () => {} });
      return { globals: new Map([["x", 41n]]) };
    },
  });
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  assert.equal(r.globals.get("y"), 42n);
  assert.equal(inner!.ok, false);
  assert.equal(inner!.diagnostics[0]!.code, "load-error");
  assert.match(inner!.diagnostics[0]!.message, /load is not available here/);
  assert.equal(outer.load, undefined, "no loader is left on the thread");
});
