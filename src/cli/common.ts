// What every command shares: exit codes (§12), where state lives (R-2), and turning errors into
// messages for people. A user mistake never prints a stack trace; a bug in switchyard does.

import { readFileSync } from "node:fs";
import { locateState, StateFolderError } from "./state-discovery.js";
import { forPeople } from "./words.js";
import { DiagnosticError, formatDiagnostic, sortDiagnostics, type Diagnostic } from "../lang/diagnostic.js";
import { storageFault } from "../run/storage-fault.js";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1; // the run or check failed
export const EXIT_USAGE = 2; // a usage or config error

let exitCode = EXIT_OK;
/** A command that finishes normally but must exit non-zero (a failed check) sets this. */
export function setExitCode(code: number): void {
  exitCode = code;
}
export function currentExitCode(): number {
  return exitCode;
}
export function resetExitCode(): void {
  exitCode = EXIT_OK;
}

/**
 * Codes that mean the command was pointed at the wrong thing (a path that is not a pack, a
 * playbook name the pack lacks) rather than at a broken playbook: exit 2, not 1 (§12).
 */
const USAGE_CODES = new Set(["pack-not-found", "no-playbook", "ambiguous-playbook", "unknown-playbook"]);

/** The exit code for a failed compilation: 2 when the path or playbook name was wrong, else 1. */
export function compileFailureExit(diagnostics: readonly Diagnostic[]): number {
  return diagnostics.some((d) => USAGE_CODES.has(d.code) || d.code.startsWith("config-")) ? EXIT_USAGE : EXIT_FAILED;
}

/** A mistake in how a command was called, or in the machine config: exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    /** A catalogued code (switchyard explain CODE), shown as error[CODE]. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A command's own failure that is not a usage error (a failed run, a failed check): exit 1. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
  }
}

/** The state folder to read (R-2, issue 13): see locateState in state-discovery.ts. */
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

export function printDiagnostics(list: Diagnostic[], sources = fileSources()): void {
  for (const d of sortDiagnostics(list)) process.stderr.write(formatForPeople(d, sources) + "\n");
}

/** Maps any error escaping a command to output and an exit code. */
export function reportError(err: unknown): number {
  if (err instanceof DiagnosticError) {
    printDiagnostics(err.diagnostics);
    return err.diagnostics.some((d) => d.code.startsWith("config") || d.code.startsWith("usage")) ? EXIT_USAGE : EXIT_FAILED;
  }
  if (err instanceof UsageError) {
    process.stderr.write(`switchyard: error${err.code ? `[${err.code}]` : ""}: ${forPeople(err.message)}\n`);
    if (err.hint) process.stderr.write(`help: ${forPeople(err.hint)}\n`);
    return EXIT_USAGE;
  }
  if (err instanceof StateFolderError) {
    process.stderr.write(
      `switchyard: error: ${forPeople(err.message)}\nhelp: point --state-dir (or $SWITCHYARD_HOME) at a folder that can be made\n`,
    );
    return EXIT_USAGE;
  }
  if (err instanceof CommandFailed) {
    if (err.message) process.stderr.write(`switchyard: ${forPeople(err.message)}\n`);
    return err.exitCode;
  }
  // A full disk, a read-only or corrupt state database: the person's to fix, never a stack.
  const fault = storageFault(err);
  if (fault) {
    const [code, ...rest] = fault.message.split(": ");
    process.stderr.write(`switchyard: error[${code}]: ${rest.join(": ")}\n`);
    if (fault.code === "state-unwritable")
      process.stderr.write(
        `help: what was recorded is kept; free space or fix the file's permissions, then \`switchyard resume ${fault.run ?? "RUN"}\` continues the run\n`,
      );
    return EXIT_FAILED;
  }
  // Anything else is a bug in switchyard: show everything so it can be reported.
  process.stderr.write(`switchyard: internal error (please report): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 70;
}

/** The "Examples:" block that ends a command's --help (issue 13): `[command, comment?]` pairs. */
export function examples(list: Array<[string, string?]>): string {
  const width = Math.max(...list.map(([c]) => c.length));
  return `\nExamples:\n${list.map(([c, note]) => `  ${note ? `${c.padEnd(width)}  # ${note}` : c}`).join("\n")}`;
}
