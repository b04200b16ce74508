// `switchyard estimate PATH`, also printed by `run --dry-run`: what a run would ask for
// before anything is paid for. The producers of the mapped lists run when they are commands or
// evaluates (in a scratch state, thrown away); nothing else runs: no agent turn, no decision.

import type { Command } from "commander";
import { compilePath } from "../plan/index.js";
import { loadMachineConfig } from "../decide/config.js";
import { parseModeOverrides } from "../decide/mode.js";
import { compileFailureExit, examples, printDiagnostics, setExitCode, UsageError } from "./common.js";
import { locateConfig } from "./state-discovery.js";
import { countFlag, shareFlag } from "./estimate-flags.js";

/** The flags of `estimate` (and the ones `run --dry-run` passes on). */
export interface EstimateFlags {
  playbook?: string;
  config?: string;
  decide?: string[];
  elements?: string;
  skipShare?: string;
  turnTokens?: string;
  json?: boolean;
}

/** `--turn-tokens INPUT,OUTPUT`: the tokens an agent turn is assumed to take, for its cost. */
function turnTokens(v: string | undefined): { input: number; output: number } | undefined {
  if (v === undefined) return undefined;
  const [i, o, ...rest] = v.split(",");
  const input = countFlag("--turn-tokens", i, 0);
  const output = countFlag("--turn-tokens", o ?? "", 0);
  if (input === undefined || output === undefined || rest.length)
    throw new UsageError("usage", `--turn-tokens takes INPUT,OUTPUT token counts, got ${JSON.stringify(v)}`, {
      hint: "e.g. --turn-tokens 80000,6000",
    });
  return { input, output };
}

/** Compiles `path`, runs its cheap producers and prints the estimate; nothing is admitted in the user's state. */
export async function printEstimate(path: string, flags: EstimateFlags): Promise<void> {
  const elements = countFlag("--elements", flags.elements, 0);
  const share = shareFlag("--skip-share", flags.skipShare);
  const tokens = turnTokens(flags.turnTokens);
  const decide = parseModeOverrides(flags.decide ?? []);
  const compiled = compilePath(path, { playbook: flags.playbook });
  if (!compiled.plan || compiled.diagnostics.some((d) => d.severity === "error")) {
    printDiagnostics(compiled.diagnostics, (f) => compiled.sources.get(f));
    setExitCode(compileFailureExit(compiled.diagnostics));
    return;
  }
  const configPath = locateConfig(flags.config);
  const config = loadMachineConfig(configPath);
  // Loaded only here: `run` registers the estimate's options, and a run that is not --dry-run needs no more.
  const [{ runProducers }, { estimatePlan }, { estimateText }] = await Promise.all([
    import("./estimate-producers.js"),
    import("./estimate-model.js"),
    import("./estimate-print.js"),
  ]);
  const producers = await runProducers(compiled.plan, compiled.packRoot, configPath);
  const estimate = estimatePlan(compiled.plan, {
    config,
    decide,
    ...producers,
    ...(elements !== undefined ? { elements } : {}),
    shares: share === undefined ? [0.5, 0.9] : [share],
    ...(tokens ? { turnTokens: tokens } : {}),
  });
  process.stdout.write(flags.json ? JSON.stringify(estimate, null, 2) + "\n" : estimateText(estimate));
}

/** Adds the options only an estimate takes (`estimate`, and `run` for --dry-run), each help text prefixed with `lead`. */
export function addEstimateOptions(cmd: Command, lead = ""): Command {
  return cmd
    .option("--elements <n>", `${lead}the elements of each list whose producer cannot be run for free (an agent, a route, a gated task)`)
    .option(
      "--skip-share <share>",
      `${lead}the share of gated elements assumed not taken, 0 … 1 or 0% … 100% (default: show 50 % and 90 %)`,
    )
    .option(
      "--turn-tokens <input,output>",
      `${lead}tokens an agent turn is assumed to take, to price turns with the runners' price tables`,
    );
}

/** Refuses the estimate's options on a run that is not a dry run. */
export function estimateOptionsOnlyDry(flags: EstimateFlags & { dryRun?: boolean }): void {
  if (flags.dryRun) return;
  const given = (["elements", "skipShare", "turnTokens"] as const).filter((k) => flags[k] !== undefined);
  const first = given[0];
  if (first === undefined) return;
  const flag = { elements: "--elements", skipShare: "--skip-share", turnTokens: "--turn-tokens" }[first];
  throw new UsageError("usage", `${flag} is for an estimate: it goes with --dry-run`, {
    hint: `switchyard run PATH --dry-run ${flag} …, or switchyard estimate PATH ${flag} …`,
  });
}

/** Adds `switchyard estimate`: elements, decisions, tokens, agent turns and cost of a run, before paying for any. */
export function register(program: Command): void {
  const cmd = program
    .command("estimate")
    .description("estimate a run before paying: elements, decisions and who answers them, tokens, agent turns, cost")
    .argument("<path>", "pack folder, .star playbook or compiled plan .toml")
    .option("--playbook <name>", "which playbook of a pack with several")
    .option(
      "--config <file>",
      "the machine config (default: $SWITCHYARD_CONFIG, else .switchyard/config.toml, else $XDG_CONFIG_HOME/switchyard/config.toml)",
    )
    .option(
      "--decide <type=mode>",
      "answer a judgement type another way, as run --decide does (repeatable)",
      (v, acc: string[]) => [...acc, v],
      [],
    )
    .option("--json", "print the estimate as JSON");
  addEstimateOptions(cmd)
    .addHelpText(
      "after",
      examples([
        ["switchyard estimate ."],
        ["switchyard estimate . --elements 300 --skip-share 0.8", "when an agent makes the list"],
        ["switchyard estimate . --turn-tokens 80000,6000 --json"],
      ]),
    )
    .action((path: string, flags: EstimateFlags) => printEstimate(path, flags));
}
