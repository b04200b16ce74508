// What every command shares: exit codes (§12), where state lives (R-2), and errors and diagnostics
// as people read them. Mapping any error that escapes a command to its exit status knows every
// layer's errors, so it lives apart (report-error.ts), loaded only when an error escapes: a command
// that succeeds, or `check` printing diagnostics, loads only the layers it uses.

import { readFileSync } from "node:fs";
import { CommandFailed, GENERIC_CODES } from "./cli-errors.js";
import { exitForDiagnostics } from "./usage-codes.js";
import { locateState } from "./state-discovery.js";
import { forPeople } from "./words.js";
import { formatDiagnostic, sortDiagnostics, type Diagnostic } from "../lang/diagnostic.js";
import { PairsFileError } from "../lab/pairs-reader.js";
import { CodedError } from "../shared/coded-error.js";

export { CommandFailed, UsageError } from "./cli-errors.js";
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit-status.js";

export { currentExitCode, resetExitCode, setExitCode } from "./exit-status.js";

/** The exit code for a failed compilation: 2 when the path or playbook name was wrong, else 1. */
export function compileFailureExit(diagnostics: readonly Diagnostic[]): number {
  return exitForDiagnostics(diagnostics);
}

/** The state folder to read (R-2): see locateState in state-discovery.ts. */
export function stateDir(flag: string | undefined): string {
  return locateState(flag).dir;
}

/** Reads files for diagnostics' source lines; unreadable files just lose their excerpt. */
export function fileSources(): (file: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      try {
        cache.set(file, readFileSync(file, "utf8"));
      } catch {
        cache.set(file, undefined);
      }
    }
    return cache.get(file);
  };
}

/** A diagnostic as a person reads it: its message and hint without rule-id citations (words.ts). */
export function formatForPeople(d: Diagnostic, sources?: (file: string) => string | undefined): string {
  return formatDiagnostic({ ...d, message: forPeople(d.message), ...(d.hint ? { hint: forPeople(d.hint) } : {}) }, sources);
}

/** Prints diagnostics to stderr, sorted, in the words people read (rule ids explained, source lines shown). */
export function printDiagnostics(list: Diagnostic[], sources = fileSources()): void {
  for (const d of sortDiagnostics(list)) process.stderr.write(formatForPeople(d, sources) + "\n");
}

/**
 * An error as a person reads it: `switchyard: error[CODE]: message` and a `help:` line. A class's
 * generic code ("usage", GENERIC_CODES) is not shown, and a command's own failure with one
 * (CommandFailed) is stated without the word "error".
 */
export function renderError(err: CodedError): string {
  const where = err instanceof PairsFileError ? `${err.file}:${err.line}: ` : "";
  const head = !GENERIC_CODES.has(err.code) ? `error[${err.code}]: ` : err instanceof CommandFailed ? "" : "error: ";
  return `switchyard: ${where}${head}${forPeople(err.message)}\n${err.hint ? `help: ${forPeople(err.hint)}\n` : ""}`;
}

/** The "Examples:" block that ends a command's --help: `[command, comment?]` pairs. */
export function examples(list: Array<[string, string?]>): string {
  const width = Math.max(...list.map(([c]) => c.length));
  return `\nExamples:\n${list.map(([c, note]) => `  ${note ? `${c.padEnd(width)}  # ${note}` : c}`).join("\n")}`;
}
