// The error the library API throws for a wrong option (docs/api.md); the CLI reports it as a
// usage error (exit 2).

import { CodedError } from "../shared/coded-error.js";

/** An option given to the library API that cannot be used; nothing was admitted or run. */
export class ApiOptionError extends CodedError {
  constructor(message: string, hint?: string) {
    super("api-option-invalid", message, hint === undefined ? {} : { hint });
  }
}
