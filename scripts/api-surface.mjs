// The library API's surface (docs/api.md, "Versioning"): every name the package exports, with its
// kind and its signature or members, one line each, read from the emitted declarations
// (dist/src/api/index.d.ts) with the TypeScript compiler. api/surface.txt is the committed copy;
// test/api/surface fails when they differ, so an export is added, removed or changed only on purpose.
//
//   node scripts/api-surface.mjs           print the surface (after `npx tsc -p .`)
//   node scripts/api-surface.mjs --write   write api/surface.txt
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The committed surface. */
export const SURFACE_FILE = join(root, "api", "surface.txt");
const ENTRY = join(root, "dist", "src", "api", "index.d.ts");
const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType | ts.TypeFormatFlags.WriteArrowStyleSignature;

function kindOf(decl) {
  if (ts.isClassDeclaration(decl)) return "class";
  if (ts.isInterfaceDeclaration(decl)) return "interface";
  if (ts.isTypeAliasDeclaration(decl)) return "type";
  if (ts.isFunctionDeclaration(decl)) return "function";
  if (ts.isEnumDeclaration(decl)) return "enum";
  return "const";
}

/** The public members of a class or interface, each `  name: type` (private and @internal ones left out). */
function members(checker, symbol, decl) {
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const lines = [];
  for (const p of checker.getPropertiesOfType(type)) {
    const d = p.valueDeclaration ?? p.declarations?.[0];
    if (!d) continue;
    const mods = ts.getCombinedModifierFlags(d);
    if (mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
    if (ts.getJSDocTags(d).some((t) => t.tagName.text === "internal")) continue;
    const optional = p.flags & ts.SymbolFlags.Optional ? "?" : "";
    const readonly = mods & ts.ModifierFlags.Readonly ? "readonly " : "";
    lines.push(`  ${readonly}${p.name}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(p, d), d, FLAGS)}`);
  }
  if (ts.isClassDeclaration(decl)) {
    for (const s of checker.getSignaturesOfType(checker.getTypeOfSymbol(symbol), ts.SignatureKind.Construct)) {
      const d = s.getDeclaration();
      if (d && ts.getJSDocTags(d).some((t) => t.tagName.text === "internal")) lines.push("  constructor: internal");
      else lines.push(`  constructor${checker.signatureToString(s, decl, FLAGS)}`);
    }
  }
  return lines.sort();
}

/** The surface as text: one block per export, sorted by name. */
export function apiSurface() {
  const program = ts.createProgram([ENTRY], { strict: true, noEmit: true, types: ["node"] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  if (!source) throw new Error(`${ENTRY} is missing: build first (npx tsc -p .)`);
  const out = [];
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(source)).sort((a, b) => a.name.localeCompare(b.name))) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const decl = symbol.declarations?.[0];
    if (!decl) continue;
    const kind = kindOf(decl);
    if (kind === "function") {
      for (const s of checker.getSignaturesOfType(checker.getTypeOfSymbol(symbol), ts.SignatureKind.Call))
        out.push(`function ${exported.name}${checker.signatureToString(s, decl, FLAGS)}`);
    } else if (kind === "type") {
      const params = decl.typeParameters ? `<${decl.typeParameters.map((t) => t.getText()).join(", ")}>` : "";
      out.push(`type ${exported.name}${params} = ${decl.type.getText().replace(/\s+/g, " ")}`);
    } else if (kind === "class" || kind === "interface") {
      out.push(`${kind} ${exported.name}`, ...members(checker, symbol, decl));
    } else {
      out.push(`${kind} ${exported.name}: ${checker.typeToString(checker.getTypeOfSymbol(symbol), decl, FLAGS)}`);
    }
  }
  // A type from a module the entry does not name prints as import("/abs/path").Name: keep the name.
  return out.map((line) => line.replace(/import\("[^"]*"\)\./g, "")).join("\n") + "\n";
}

/** The committed surface, to compare with apiSurface(). */
export function committedSurface() {
  return readFileSync(SURFACE_FILE, "utf8");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = apiSurface();
  if (process.argv.includes("--write")) {
    writeFileSync(SURFACE_FILE, text);
    process.stdout.write(`wrote ${SURFACE_FILE} (${text.split("\n").length - 1} lines)\n`);
  } else process.stdout.write(text);
}
