// The switchyard command line (§12). Each command lives in its own file and registers itself;
// this file only assembles them and maps errors to exit codes.

import type { Command } from "commander";
import { EXIT_USAGE, resetExitCode, currentExitCode } from "./exit-status.js";
import { VERSION } from "./version.js";
import { dropOutputToClosedReaders } from "./closed-output.js";
// The commands by name, each file loaded only when needed: loading every command's file (and the
// layers below it) cost more CPU than the rest of a short command, so `switchyard check` loads what
// `check` uses, a bare --version loads no command, and only help, completion or an unknown name
// (which needs the whole list to suggest the nearest) loads them all. Keep this list sorted: help
// lists the commands in this order.
const commands: ReadonlyArray<readonly [string, () => Promise<{ register: (program: Command) => void }>]> = [
  ["cancel", () => import("./cancel.js")],
  ["cassette", () => import("./cassette.js")],
  ["check", () => import("./check.js")],
  ["compile", () => import("./compile.js")],
  ["completion", () => import("./completion.js")],
  ["config", () => import("./config.js")],
  ["estimate", () => import("./estimate.js")],
  ["eval", () => import("./eval.js")],
  ["explain", () => import("./explain.js")],
  ["init", () => import("./init.js")],
  ["lab", () => import("./lab.js")],
  ["logs", () => import("./logs.js")],
  ["rerun", () => import("./rerun.js")],
  ["resume", () => import("./resume.js")],
  ["review", () => import("./review.js")],
  ["run", () => import("./run.js")],
  ["runs", () => import("./runs.js")],
  ["show", () => import("./show.js")],
  ["status", () => import("./status.js")],
  ["test", () => import("./test-command.js")],
  ["ui", () => import("./ui.js")],
  ["worker", () => import("./worker.js")],
  ["workers", () => import("./workers.js")],
];

/** The registrations `argv` needs: the command it names, else all of them. */
async function registrationsFor(argv: readonly string[]): Promise<Array<(program: Command) => void>> {
  // The program has no options of its own that take a value, so its first operand names the command.
  const first = argv.find((a) => !a.startsWith("-"));
  const named = commands.filter(([name]) => name === first && name !== "completion");
  const loading = named.length === 1 ? named : commands;
  return (await Promise.all(loading.map(([, load]) => load()))).map((m) => m.register);
}

/** The CLI: parses `argv`, runs the command, and returns the exit code; errors become messages for people, never stack traces. */
export async function main(argv: string[]): Promise<number> {
  dropOutputToClosedReaders();
  // A bare --version needs nothing else, not even the argument parser (loading it is a quarter of
  // what the command costs over Node's own start).
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { Command, CommanderError } = await import("commander");
  const program = new Command("switchyard")
    .description("Run playbooks of AI-agent work, with calibrated decisions gating each element")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  resetExitCode();
  try {
    for (const register of await registrationsFor(argv)) register(program);
    await program.parseAsync(argv, { from: "user" });
    return currentExitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0 through here; real usage mistakes exit 2.
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    // Loaded only here: error reports know every layer's errors, which a bare --version never loads.
    const { reportError } = await import("./report-error.js");
    return reportError(err);
  }
}
