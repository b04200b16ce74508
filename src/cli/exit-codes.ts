// Which exit status an error means (§12), decided here and only here: by the error's class, and
// for diagnostics by whether their catalog entries are marked `usage` (codes.ts of each layer).

import { CommandFailed, UsageError } from "./cli-errors.js";
import { StateFolderError } from "./state-discovery.js";
import { DiagnosticError } from "../lang/diagnostic.js";
import { PairsFileError } from "../lab/pairs-reader.js";
import { LabError } from "../lab/store.js";
import { DecisionLayerRefused, RunNotFound, RunRefused } from "../run/store/index.js";
import { RerunError } from "../run/engine/index.js";
import { SnapshotError } from "../run/engine/index.js";
import { ApiOptionError } from "../api/api-error.js";
import { ReviewRefused } from "../decide/review-queue.js";
import { SqliteDriverMissing } from "../run/store/index.js";
import { StorageFault } from "../run/store/index.js";

import { EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE } from "./exit-status.js";
import { exitForDiagnostics } from "./usage-codes.js";

export { exitForDiagnostics } from "./usage-codes.js";

export { EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE };

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The exit status of each error class that may reach a person; the first class the error is an
 * instance of wins, so a subclass comes before its base. An error of no class here is a bug.
 */
const EXIT_BY_CLASS: ReadonlyArray<readonly [ErrorClass, number | ((err: never) => number)]> = [
  [DiagnosticError, (err: DiagnosticError) => exitForDiagnostics(err.diagnostics)],
  [UsageError, EXIT_USAGE],
  [StateFolderError, EXIT_USAGE], // the state folder cannot be made where it was pointed
  [RerunError, EXIT_USAGE], // a rerun asked for what the run does not have
  [LabError, EXIT_USAGE], // no lab, or an unknown lab id, where the person pointed
  [RunNotFound, EXIT_USAGE],
  [ReviewRefused, EXIT_USAGE], // an answer to a question that does not wait, or with a label it does not have
  [ApiOptionError, EXIT_USAGE], // a library option out of range (the CLI checks its flags first)
  [DecisionLayerRefused, EXIT_USAGE], // the machine config cannot serve the plan's routes
  [RunRefused, EXIT_FAILED], // busy, or a run that cannot continue
  [SnapshotError, EXIT_FAILED],
  [StorageFault, EXIT_FAILED],
  [SqliteDriverMissing, EXIT_FAILED], // no native build of the SQLite driver for this Node
  [PairsFileError, EXIT_FAILED],
  [CommandFailed, EXIT_FAILED],
];

/** The exit status for an error escaping a command, or undefined for one that is a bug. */
export function exitStatus(err: unknown): number | undefined {
  for (const [cls, exit] of EXIT_BY_CLASS) {
    if (err instanceof cls) return typeof exit === "number" ? exit : (exit as (e: unknown) => number)(err);
  }
  return undefined;
}
