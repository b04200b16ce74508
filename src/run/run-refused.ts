// Why an invocation will not execute a run at all (before anything is recorded): an unknown run,
// one another process is executing, a plan with no decision layer for its routes, a preflight.

import { CodedError } from "./coded-error.js";

export class RunRefused extends CodedError {}
