// The web view's refusals: a coded error with the HTTP status the server answers it with, as
// {"error": {"code", "message"}} (the codes are in codes.ts).

import { CodedError, type ErrorDetails } from "../shared/coded-error.js";

/** A request the web view refuses; `status` is the HTTP status it answers with. */
export class HttpError extends CodedError {
  readonly status: number;
  constructor(code: string, message: string, details: ErrorDetails & { status: number }) {
    super(code, message, details);
    this.status = details.status;
  }
}
