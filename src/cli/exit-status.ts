// The exit statuses (§12) and the one a command has set so far. Apart from exit-codes.ts (which
// maps every layer's errors to a status, and so loads every layer): the CLI's entry needs only
// these, and a bare `--version` loads nothing more.

/** Exit code: success. */
export const EXIT_OK = 0;
/** Exit code: the run or the check failed. */
export const EXIT_FAILED = 1; // the run or check failed
/** Exit code: a usage or configuration error (nothing was run). */
export const EXIT_USAGE = 2; // a usage or config error
/** Exit code: a bug in switchyard (EX_SOFTWARE), never a user mistake. */
export const EXIT_INTERNAL = 70; // a bug in switchyard (EX_SOFTWARE)

let exitCode = EXIT_OK;
/** A command that finishes normally but must exit non-zero (a failed check) sets this. */
export function setExitCode(code: number): void {
  exitCode = code;
}
/** The exit code the process will end with, as set so far. */
export function currentExitCode(): number {
  return exitCode;
}
/** Resets the exit code to success (between commands run in one process, as the tests do). */
export function resetExitCode(): void {
  exitCode = EXIT_OK;
}
