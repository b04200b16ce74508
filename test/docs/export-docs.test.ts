// Every export of src/ says what it is or why it exists in a doc comment (`/** … */`), so that a
// reader of an import, or of an editor's hover, need not open the file. Checked with the
// TypeScript compiler's own parser over every source file: an exported function, class,
// interface, type, enum or variable statement without a JSDoc comment before it fails the test,
// named FILE:LINE. Re-export lists (`export { x } from …`) are documented where x is declared.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** Whether a `/** … *\/` comment is among the comments right before the node. */
function hasDocComment(text: string, node: ts.Node): boolean {
  return (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).some(
    (r) => text.startsWith("/**", r.pos) && text[r.pos + 3] !== "/",
  );
}

/** FILE:LINE NAME of every exported declaration of `file` without a doc comment. */
export function undocumentedExports(file: string, text = readFileSync(file, "utf8")): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  for (const st of sf.statements) {
    if (!isExported(st) || hasDocComment(text, st)) continue;
    const named = st as ts.Node & { name?: ts.Node };
    const name = ts.isVariableStatement(st)
      ? st.declarationList.declarations.map((d) => d.name.getText(sf)).join(", ")
      : (named.name?.getText(sf) ?? "default");
    out.push(`${file}:${sf.getLineAndCharacterOfPosition(st.getStart(sf)).line + 1} ${name}`);
  }
  return out;
}

test("every export in src/ has a doc comment saying what it is or why", () => {
  const missing = sourceFiles("src").flatMap((f) => undocumentedExports(f));
  assert.deepEqual(missing, [], `${missing.length} exports have no /** … */ comment:\n${missing.join("\n")}`);
});

test("the check sees a missing doc comment on each kind of export, and accepts one written", () => {
  const bare = [
    "export function f() {}",
    "export const a = 1, b = 2;",
    "export class C {}",
    "export interface I {}",
    "export type T = string;",
    "export enum E { A }",
    "export async function g() {}",
    "// a line comment is not a doc comment\nexport function h() {}",
    "/* nor is a block comment */\nexport function k() {}",
  ];
  assert.deepEqual(undocumentedExports("x.ts", bare.join("\n")), [
    "x.ts:1 f",
    "x.ts:2 a, b",
    "x.ts:3 C",
    "x.ts:4 I",
    "x.ts:5 T",
    "x.ts:6 E",
    "x.ts:7 g",
    "x.ts:9 h",
    "x.ts:11 k",
  ]);
  const documented = [
    "/** What f is. */\nexport function f() {}",
    "/** What a is. */\n// eslint-disable-next-line max-lines-per-function -- a table\nexport const a = 1;",
    'export { x } from "./x.js";',
    "function local() {}",
  ];
  assert.deepEqual(undocumentedExports("y.ts", documented.join("\n")), []);
});
