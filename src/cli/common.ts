// What every command shares: exit codes (§12), where state lives (R-2), and turning errors into
// messages for people. A user mistake never prints a stack trace; a bug in switchyard does.

import { readFileSync } from "node:fs";
import { CommandFailed, GENERIC_CODES } from "./cli-errors.js";
import { EXIT_INTERNAL, exitForDiagnostics, exitStatus } from "./exit-codes.js";
import { locateState } from "./state-discovery.js";
import { forPeople } from "./words.js";
import { DiagnosticError, formatDiagnostic, sortDiagnostics, type Diagnostic } from "../lang/diagnostic.js";
import { PairsFileError } from "../lab/pairs-reader.js";
import { storageFault } from "../run/store/index.js";
import { CodedError } from "../shared/coded-error.js";

export { CommandFailed, UsageError } from "./cli-errors.js";
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";

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

/** Maps any error escaping a command to output and an exit code (exit-codes.ts decides which). */
export function reportError(err: unknown): number {
  // A full disk, a read-only or corrupt state database: the person's to fix, never a stack.
  const fault = storageFault(err);
  if (fault && fault.code === "state-unwritable")
    fault.hint = `what was recorded is kept; free space or fix the file's permissions, then \`switchyard resume ${fault.run ?? "RUN"}\` continues the run`;
  const known = fault ?? err;
  const exit = exitStatus(known);
  if (exit !== undefined && known instanceof CodedError) {
    if (known instanceof DiagnosticError) printDiagnostics(known.diagnostics);
    else if (known.message || known.hint) process.stderr.write(renderError(known));
    return exit;
  }
  // Anything else is a bug in switchyard: show everything so it can be reported.
  process.stderr.write(`switchyard: internal error (please report): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT_INTERNAL;
}

/** The "Examples:" block that ends a command's --help: `[command, comment?]` pairs. */
export function examples(list: Array<[string, string?]>): string {
  const width = Math.max(...list.map(([c]) => c.length));
  return `\nExamples:\n${list.map(([c, note]) => `  ${note ? `${c.padEnd(width)}  # ${note}` : c}`).join("\n")}`;
}
