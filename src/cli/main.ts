// The switchyard command line (§12). Each command lives in its own file and registers itself;
// this file only assembles them and maps errors to exit codes.

import { Command, CommanderError } from "commander";
import { reportError, EXIT_USAGE, resetExitCode, currentExitCode } from "./common.js";
import { VERSION } from "./version.js";
import { dropOutputToClosedReaders } from "./closed-output.js";
import { register as registerCheck } from "./check.js";
import { register as registerCompile } from "./compile.js";
import { register as registerCompletion } from "./completion.js";
import { register as registerConfig } from "./config.js";
import { register as registerEval } from "./eval.js";
import { register as registerExplain } from "./explain.js";
import { register as registerInit } from "./init.js";
import { register as registerLab } from "./lab.js";
import { register as registerLogs } from "./logs.js";
import { register as registerRun } from "./run.js";
import { register as registerRerun } from "./rerun.js";
import { register as registerResume } from "./resume.js";
import { register as registerReview } from "./review.js";
import { register as registerStatus } from "./status.js";
import { register as registerTest } from "./test-command.js";
import { register as registerShow } from "./show.js";
import { register as registerRuns } from "./runs.js";
import { register as registerCancel } from "./cancel.js";
import { register as registerCassette } from "./cassette.js";
import { register as registerUi } from "./ui.js";
import { register as registerWorker } from "./worker.js";
import { register as registerWorkers } from "./workers.js";

// Command registrations, one file per command (keep this list sorted).
const registrations: Array<(program: Command) => void> = [
  registerCancel,
  registerCassette,
  registerCheck,
  registerCompile,
  registerCompletion,
  registerConfig,
  registerEval,
  registerExplain,
  registerInit,
  registerLab,
  registerLogs,
  registerRerun,
  registerResume,
  registerReview,
  registerRun,
  registerRuns,
  registerShow,
  registerStatus,
  registerTest,
  registerUi,
  registerWorker,
  registerWorkers,
];

/** The CLI: parses `argv`, runs the command, and returns the exit code; errors become messages for people, never stack traces. */
export async function main(argv: string[]): Promise<number> {
  dropOutputToClosedReaders();
  const program = new Command("switchyard")
    .description("Run playbooks of AI-agent work, with calibrated decisions gating each element")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  resetExitCode();
  for (const register of registrations) register(program);
  try {
    await program.parseAsync(argv, { from: "user" });
    return currentExitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0 through here; real usage mistakes exit 2.
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    return reportError(err);
  }
}
