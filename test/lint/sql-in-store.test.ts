// SQL text belongs in src/run/store/, the room that owns the tables. These files outside it still
// hold SQL of their own and wait to read and write through named store functions instead; the list
// may only shrink, so no new SQL appears outside the store.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const STILL_OUTSIDE = [
  "src/run/queue/inbox-writer.ts",
  "src/run/queue/inbox.ts",
  "src/run/queue/queue-executor.ts",
  "src/run/queue/schema.ts",
  "src/run/queue/shared-inputs.ts",
];

/** A statement's opening words, in either case: what SQL text looks like in a string. */
const SQL = /\b(insert into \w|delete from \w|update \w+ set |select [\w*.,() ]+ from \w|create (unique )?(table|index) )/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

test("SQL text lives only in src/run/store/ and the files known to still hold it", () => {
  const files = sourceFiles("src").filter((f) => !f.startsWith("src/run/store/"));
  assert.ok(files.length > 200, `read ${files.length} files`);
  const withSql = files.filter((f) => SQL.test(readFileSync(f, "utf8"))).sort();
  assert.deepEqual(
    withSql.filter((f) => !STILL_OUTSIDE.includes(f)),
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
  ])
    assert.match(sql, SQL);
  assert.deepEqual(
    sourceFiles("src/lang").filter((f) => SQL.test(readFileSync(f, "utf8"))),
    [],
  );
  assert.equal(SQL.test(readFileSync("src/run/store/store-sql.ts", "utf8")), true);
});
