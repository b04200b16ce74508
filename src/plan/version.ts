// The compiler version recorded in every plan (C-20): the package version.
import { readFileSync } from "node:fs";

function packageVersion(): string {
  // dist/src/plan/version.js and src/plan/version.ts both sit three levels below the package root.
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    if (typeof pkg.version === "string") return pkg.version;
  } catch {
    // fall through
  }
  return "0.0.0";
}

/** The compiler's name and version, recorded in every plan. */
export const COMPILER_VERSION = `switchyard ${packageVersion()}`;
