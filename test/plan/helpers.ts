// Test helpers: compile playbook sources written to a temporary pack.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { compilePath, type CompileResult } from "../../src/plan/index.js";

/** Writes files (pack-relative path → text) to a fresh temp folder; returns its path. */
export function writePack(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "sy-plan-"));
  for (const [rel, text] of Object.entries(files)) {
    const p = join(dir, ...rel.split("/"));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return dir;
}

/** Compiles `main.star` (plus other files) in a temp pack, then removes it. */
export function compileSource(main: string, files: Record<string, string> = {}, playbook?: string): CompileResult {
  const dir = writePack({ "main.star": main, ...files });
  try {
    return compilePath(dir, { playbook });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function codes(r: CompileResult): string[] {
  return r.diagnostics.map((d) => d.code);
}

/** A producer every test can depend on. */
export const PREP =
  'prep = command(name = "prep", run = "true", emits = {"members": "list", "facts": "object", "opts": "list", "per": "object", "n": "number"})\n';
