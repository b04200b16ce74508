// The CLI's own errors. Both keep the base's one constructor shape (code, message, details).

import { CodedError } from "../shared/coded-error.js";

/**
 * Codes that only say which kind of error it is (a usage mistake, a command's own failure, a
 * state folder that cannot be made): not in the catalog, and not shown (`switchyard: error: …`).
 */
export const GENERIC_CODES: ReadonlySet<string> = new Set(["usage", "failed", "state-folder"]);

/** A mistake in how a command was called: exit 2. */
export class UsageError extends CodedError {}

/** A command's own failure that is not a usage error (a failed run, a failed check): exit 1. */
export class CommandFailed extends CodedError {}
