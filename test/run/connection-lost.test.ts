// Which PostgreSQL errors mean "the server is gone" (told once, as the worker stops) rather than a
// statement the server refused. The words are PostgreSQL's and node-postgres's own, copied from
// what they print; the codes are the SQLSTATE classes 08 (connection) and 57P01–57P03 (shutdown).

import assert from "node:assert/strict";
import test from "node:test";
import { lostConnection } from "../../src/run/store/index.js";

test("a lost connection is named by its system code or SQLSTATE; a refused statement is not lost", () => {
  assert.equal(lostConnection({ code: "ECONNREFUSED" }), "ECONNREFUSED");
  assert.equal(lostConnection({ code: "57P01", message: "terminating connection due to administrator command" }), "57P01");
  assert.equal(lostConnection({ code: "08006" }), "08006");
  // 57P04 (database dropped) and 42P01 (no such table) are the server answering, not gone.
  assert.equal(lostConnection({ code: "57P04" }), undefined);
  assert.equal(lostConnection({ code: "42P01", message: 'relation "x" does not exist' }), undefined);
  assert.equal(lostConnection(new Error("boom")), undefined);
});

test("a lost connection told only in words: node-postgres's and the server's shutdown messages, whole", () => {
  for (const words of [
    "Connection terminated unexpectedly",
    "Client has encountered a connection error and is not queryable",
    "terminating connection due to administrator command",
    "terminating connection because of crash of another server process",
    "the database system is shutting down",
    "the database system is starting up",
  ])
    assert.equal(lostConnection({ message: words }), words, words);
  // Only whole messages: a sentence that merely mentions the words is not a lost connection.
  assert.equal(lostConnection({ message: "terminating connection due to administrator command was logged" }), undefined);
});

test("wrapped errors: every error of an AggregateError must be lost, or a cause is", () => {
  const lost = { code: "ECONNRESET" };
  assert.equal(lostConnection({ errors: [lost, { code: "57P01" }] }), "ECONNRESET");
  assert.equal(lostConnection({ errors: [lost, { code: "23505" }] }), undefined);
  assert.equal(lostConnection({ message: "worker failed", cause: { message: "Connection terminated" } }), "Connection terminated");
});
