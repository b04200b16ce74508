// Turning any error that escapes a command into a message for people and an exit code (§12). A
// user mistake never prints a stack trace; a bug in switchyard does. It knows every layer's errors
// (exit-codes.ts), so main.ts loads it only once an error has escaped (common.ts).

import { EXIT_INTERNAL, exitStatus } from "./exit-codes.js";
import { printDiagnostics, renderError } from "./common.js";
import { DiagnosticError } from "../lang/diagnostic.js";
import { storageFault } from "../run/store/index.js";
import { CodedError } from "../shared/coded-error.js";

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
