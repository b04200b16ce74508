// Why an invocation will not execute a run at all (before anything is recorded): an unknown run,
// one another process is executing, a plan with no decision layer for its routes, a preflight.
// The subclasses say whose mistake it is, which decides the exit status (src/cli/exit-codes.ts).

import { CodedError } from "../../shared/coded-error.js";

/** A run that may not be started, resumed or changed now; the person's to fix. */
export class RunRefused extends CodedError {}

/** No such run in the state folder: the wrong run was named. */
export class RunNotFound extends RunRefused {}

/** The decision layer cannot serve the plan's routes (none was given, or its preflight refused): a machine-config matter. */
export class DecisionLayerRefused extends RunRefused {}
