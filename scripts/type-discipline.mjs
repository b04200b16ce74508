// Counts the places in src/ where a type is asserted rather than checked: `as` casts (`as const`
// is not a cast: it narrows, never widens), `<T>x` assertions and non-null assertions (`x!`).
// Parsed with the TypeScript compiler, so strings, comments and `!==` never count.
//
//   node scripts/type-discipline.mjs            totals for src/
//   node scripts/type-discipline.mjs --files    the same, per file, most first
//   node scripts/type-discipline.mjs DIR...     other folders instead of src/
//   node scripts/type-discipline.mjs --check    fails (exit 1) when src/ has more than LIMIT
//
// LIMIT is the count src/ has reached: lower it whenever a change removes casts or assertions, so
// they cannot grow back (test/lint/type-discipline.test.ts runs --check).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The most `as` casts and non-null assertions src/ may hold. */
const LIMIT = { casts: 140, nonNull: 93 };

const args = process.argv.slice(2);
const check = args.includes("--check");
const perFile = args.includes("--files");
const roots = args.filter((a) => !a.startsWith("--"));

function* tsFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) yield path;
  }
}

function isAsConst(node) {
  return ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === "const";
}

function count(path) {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const tally = { casts: 0, nonNull: 0 };
  const visit = (node) => {
    if ((ts.isAsExpression(node) && !isAsConst(node)) || ts.isTypeAssertionExpression(node)) tally.casts++;
    else if (ts.isNonNullExpression(node)) tally.nonNull++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return tally;
}

const rows = [];
for (const root of roots.length > 0 ? roots : ["src"]) {
  for (const path of tsFiles(root)) rows.push({ path: relative(process.cwd(), path), ...count(path) });
}
const total = rows.reduce((t, r) => ({ casts: t.casts + r.casts, nonNull: t.nonNull + r.nonNull }), { casts: 0, nonNull: 0 });
if (perFile) {
  rows.sort((a, b) => b.casts + b.nonNull - (a.casts + a.nonNull) || (a.path < b.path ? -1 : 1));
  for (const r of rows.filter((r) => r.casts + r.nonNull > 0)) console.log(`${r.casts}\t${r.nonNull}\t${r.path}`);
}
console.log(`casts (as, <T>): ${total.casts}   non-null (!): ${total.nonNull}   files: ${rows.length}`);
if (check && (total.casts > LIMIT.casts || total.nonNull > LIMIT.nonNull)) {
  console.error(
    `more type assertions than the limit (${LIMIT.casts} casts, ${LIMIT.nonNull} non-null): check the value instead (a type guard, a typed parser, an explicit miss) — see docs/architecture.md`,
  );
  process.exitCode = 1;
}
