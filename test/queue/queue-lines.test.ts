// What a worker prints of graphile-worker's warnings and errors: their first line, but nothing
// about a lost connection (the worker says that once itself) and no Node deprecation warning (words
// for the libraries' authors, which node-postgres raises as a connection dies under a query).
import { test } from "node:test";
import assert from "node:assert/strict";
import { queueLine } from "../../src/run/queue/schema.js";

function printed(level: string, message: string, error?: unknown): string {
  let out = "";
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    queueLine(level, message, error);
  } finally {
    process.stderr.write = write;
  }
  return out;
}

test("a queue error is printed as its first line, without its stack", () => {
  assert.equal(
    printed("error", "Failed to release job: boom\n    at x (y.js:1:1)"),
    "switchyard worker: queue error: Failed to release job: boom\n",
  );
});

test("a Node deprecation warning passed on by the queue is not printed, with or without its code", () => {
  const pgWords =
    "Calling client.query() when the client is already executing a query is deprecated and will be removed in pg@9.0. Use async/await or an external async flow control mechanism instead.";
  assert.equal(printed("error", `(node:32761) DeprecationWarning: ${pgWords}`), "");
  assert.equal(printed("warning", `(node:7) [DEP0005] DeprecationWarning: Buffer() is deprecated`), "");
  // Only Node's own form is dropped: a message that merely mentions one is the queue's and printed.
  assert.equal(
    printed("error", "job failed: (node:1) DeprecationWarning: x"),
    "switchyard worker: queue error: job failed: (node:1) DeprecationWarning: x\n",
  );
});

test("a lost connection is not printed: the worker tells it once as it stops", () => {
  assert.equal(printed("error", "Runner stopping (reason: worker pool exited with error: Connection terminated unexpectedly)"), "");
});
