// A commit sent as one query (src/run/pg/inlined-transaction.ts): every parameter written as a
// literal must reach the server as the same value a bound parameter would, and a statement text
// the scan cannot vouch for keeps the statement-by-statement path.

import { test } from "node:test";
import assert from "node:assert/strict";
import { inlinedTransaction } from "../../src/run/store/pg/inlined-transaction.js";
import { SyncPg } from "../../src/run/store/pg/sync-pg.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";

const HOSTILE = [
  "plain",
  "it's",
  "back\\slash",
  'a "quoted" word',
  "$1 and $2",
  "line\nbreak\ttab",
  "ünïcödé ✓",
  "'; drop table t; --",
  "",
  '{"a":[1,2]}',
];

test("values written into an inlined commit arrive exactly as bound parameters do", pgSkip, async () => {
  const db = await freshDatabase();
  const sql = new SyncPg({ url: db.url, where: "the test server" });
  try {
    sql.query('CREATE TABLE t (n integer, s text, arr text[], bin bytea, flag boolean, "odd ""name""" text)');
    const rows = HOSTILE.map((s, i) => [i, s, [s, null, `${s}!`], Buffer.from(s, "utf8"), i % 2 === 0, s]);
    const insert = 'INSERT INTO t (n, s, arr, bin, flag, "odd ""name""") VALUES ($1, $2, $3::text[], $4, $5, $6)';
    const statements = rows.map((values) => ({ text: insert, values }));
    // As the connection's thread receives them (structured clone: a Buffer becomes a Uint8Array).
    assert.ok(inlinedTransaction(structuredClone(statements)) !== null, "the store's kind of statement is inlined");
    sql.transaction(statements);
    const got = sql.query<{ n: number; s: string; arr: (string | null)[]; bin: Uint8Array; flag: boolean; odd: string }>(
      'SELECT n, s, arr, bin, flag, "odd ""name""" AS odd FROM t ORDER BY n',
    );
    assert.deepEqual(
      got.map((r) => [r.n, r.s, r.arr, Buffer.from(r.bin).toString("utf8"), r.flag, r.odd]),
      rows.map(([n, s, arr, bin, flag, odd]) => [n, s, arr, (bin as Buffer).toString("utf8"), flag, odd]),
    );
    // A failing statement rolls the whole commit back, and the connection goes on.
    assert.throws(() =>
      sql.transaction([
        { text: insert, values: rows[0] },
        { text: "INSERT INTO t (n) VALUES ($1)", values: ["not a number"] },
      ]),
    );
    assert.equal(sql.query<{ c: number }>("SELECT count(*)::int AS c FROM t")[0]!.c, HOSTILE.length);
  } finally {
    sql.close();
    await db.drop();
  }
});

test("a statement with dollar quoting, a comment, an E'' string or a parameter out of range is not inlined", () => {
  const cases = [
    "DO $$ BEGIN PERFORM $1; END $$",
    "SELECT $1 -- a comment",
    "SELECT /* a comment */ $1",
    "SELECT E'\\n', $1",
    "SELECT $2",
    "SELECT 'unterminated",
  ];
  for (const text of cases) assert.equal(inlinedTransaction([{ text, values: ["x"] }]), null, text);
  assert.equal(inlinedTransaction([{ text: "SELECT $1", values: [{ an: "object" }] }]), null, "objects are left to the driver");
  assert.equal(inlinedTransaction([{ text: "SELECT '$1', $1", values: ["x"] }]), "BEGIN;\nSELECT '$1', 'x';\nCOMMIT");
});
