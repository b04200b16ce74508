// An agent runner from the machine config (D-40): `[agents.NAME]` with a `preset` (the
// tool it drives, see agent-presets/presets.ts) or a `command` speaking switchyard's own protocol.
import type { PresetName } from "./presets/presets.js";
import type { AgentFunction, AgentTurn, AgentUsage } from "./agent-function.js";

/** Dollars per million tokens, turning reported tokens into cost_usd when the tool gives none. */
export interface PriceTable {
  input_per_mtok: number;
  output_per_mtok: number;
  /** For cached input tokens; the input price when absent. */
  cached_input_per_mtok?: number;
}

/** One `[agents.NAME]` runner of the machine config, as the engine uses it to launch agent turns. */
export interface AgentRunnerConfig {
  name: string;
  /**
   * generic: the argv, run in the instance workspace with the rendered prompt on stdin.
   * A preset: the executable (and any leading arguments) standing for the tool; the preset's
   * own arguments follow it.
   */
  command: string[];
  /** Extra environment for the runner (values, not secrets from the config). */
  env: Record<string, string>;
  /** The tool it drives; "generic" (the default) is switchyard's own protocol. */
  preset?: PresetName;
  /** Extra arguments after the preset's own (before the prompt). */
  args?: string[];
  /** Replaces the preset's own arguments (not its effort knobs, nor how the prompt is passed). */
  base_args?: string[];
  /** Arguments the preset passes that this runner leaves out (a flag with the value after it). */
  remove_args?: string[];
  price?: PriceTable;
  /** After a rate limit, how long without one before its concurrency is raised again (default 60). */
  rate_limit_quiet_seconds?: number;
  /** A runner given as code (the library API): called in-process instead of `command`. */
  turn?: AgentFunction;
  /**
   * Answers each turn in the engine's process before anything is started (`switchyard test`
   * replaying a cassette, run/cassette/agent-replay.ts); `live` hands the turn to `turn` or
   * `command` as if there were no replay. Not configurable: the CLI sets it.
   */
  replay?: TurnReplay;
}

/** A turn as the replay sees it: the function runner's view, and the input file as written for a command. */
export interface ReplayRequest extends AgentTurn {
  /** $SWITCHYARD_INPUT: the instance input as its JSON text, exactly as a command runner reads it. */
  inputFile: string;
}

/**
 * What a replay answers: the turn passed (its output; its declared files and a worktree's change
 * already left in the workspace), failed (code and message, as failedOutcome takes them), or
 * `live`: run by the runner itself.
 */
export type ReplayedTurn =
  | { status: "passed"; output: Record<string, unknown>; usage?: AgentUsage }
  | { status: "failed"; code: string; message: string; usage?: AgentUsage }
  | { status: "live" };

/** Answers an agent turn in-process (AgentRunnerConfig.replay). */
export type TurnReplay = (turn: ReplayRequest) => Promise<ReplayedTurn>;
