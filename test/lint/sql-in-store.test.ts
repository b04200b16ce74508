// SQL text belongs in src/run/store/, the room that owns the tables: every other file reads and
// writes through the store's named functions (exported through src/run/store/index.ts), so no SQL
// appears outside the store.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A statement's opening words, in either case: what SQL text looks like in a string, the table
 * named or interpolated (`from ${ident(schema)}.inbox`), and the PostgreSQL calls (`select
 * pg_notify(`, `listen ${channel}`) that are statements without a table.
 */
const SQL =
  /\b(insert into [\w"$]|delete from [\w"$]|update [\w"${}().]+ set |select [\w*.,():$ ]+ from [\w"$]|create (unique )?(table|index|schema) |select pg_\w+\(|listen \$\{)/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

test("SQL text lives only in src/run/store/", () => {
  const files = sourceFiles("src").filter((f) => !f.startsWith("src/run/store/"));
  assert.ok(files.length > 200, `read ${files.length} files`);
  assert.deepEqual(
    files.filter((f) => SQL.test(readFileSync(f, "utf8"))).sort(),
    [],
    "SQL outside src/run/store/: add a named function to the store (exported through src/run/store/index.ts) and call it",
  );
});

test("the SQL pattern sees statements in either case and not in the Starlark set methods (update, …)", () => {
  for (const sql of [
    "SELECT seq, payload FROM events",
    "insert into jobs (id)",
    "UPDATE runs SET status",
    "delete from x",
    "CREATE TABLE t (",
    "select id::text, locked_at from ${QUEUE_SCHEMA}.remove_job($1)",
    "insert into ${ident(schema)}.workers (id)",
    "update ${ident(schema)}.inbox set folded = true",
    "delete from ${QUEUE_SCHEMA}._private_jobs where",
    'create schema if not exists "s"',
    "select pg_try_advisory_lock($1, hashtext($2))",
    "listen ${names.cancel}",
  ])
    assert.match(sql, SQL);
  assert.deepEqual(
    sourceFiles("src/lang").filter((f) => SQL.test(readFileSync(f, "utf8"))),
    [],
  );
  for (const words of ["listen to the store", "update every run"]) assert.doesNotMatch(words, SQL);
  assert.equal(SQL.test(readFileSync("src/run/store/store-sql.ts", "utf8")), true);
  assert.equal(SQL.test(readFileSync("src/run/store/pg/queue-workers.ts", "utf8")), true);
});
