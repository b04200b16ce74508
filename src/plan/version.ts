// The compiler version recorded in every plan (C-20): the package version.
import { readFileSync } from "node:fs";
import { isPlainObject, parseJson } from "../shared/primitives.js";

function packageVersion(): string {
  // dist/src/plan/version.js and src/plan/version.ts both sit three levels below the package root.
  try {
    const pkg = parseJson(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
    if (isPlainObject(pkg) && typeof pkg.version === "string") return pkg.version;
  } catch {
    // fall through
  }
  return "0.0.0";
}

/** The compiler's name and version, recorded in every plan. */
export const COMPILER_VERSION = `switchyard ${packageVersion()}`;
