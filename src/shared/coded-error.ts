// The one error base every layer subclasses. An error carries a catalogued
// `code` (each layer declares its codes in src/LAYER/codes.ts), a `message` that says what is
// wrong in words and never repeats the code, an optional `hint` (how to fix it), `pos` (where in a
// source file) and `cause` (the error underneath). Renderers add the code: the CLI prints
// `FILE:LINE:COL: error[CODE]: message`, a run's record keeps `CODE: message` (codedText).
// Every subclass keeps the one constructor shape (code, message, details); a subclass that needs
// more facts adds them to its details. Which exit status an error means is decided by its class,
// in one table (src/cli/exit-codes.ts).

/** A place in a source file: 1-based line and column (UTF-16 code units of the line). */
export interface Position {
  file: string;
  line: number;
  col: number;
}

/** What an error adds to its message: a hint on how to fix it, and where in a source file the mistake is. */
export interface ErrorDetails {
  /** How to fix it: printed as a `help:` line. */
  hint?: string;
  /** Where in a source file the mistake is. */
  pos?: Position;
  /** The error underneath, for whoever debugs it (never printed to a person as is). */
  cause?: unknown;
}

/** The one error base class: every error raised on purpose has a stable code, a message for people, and an optional hint and position. */
export class CodedError extends Error {
  readonly code: string;
  hint?: string;
  pos?: Position;
  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.hint !== undefined) this.hint = details.hint;
    if (details.pos !== undefined) this.pos = details.pos;
  }
}

/** An error as one line of a run's record: `CODE: message` (the code once, from the field). */
export function codedText(err: { code: string; message: string }): string {
  return `${err.code}: ${err.message}`;
}
