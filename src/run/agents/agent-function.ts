// An agent runner written as a function instead of a command (the library API, docs/api.md): the
// engine hands it the rendered prompt and a fresh workspace folder, and records what it returns
// exactly as it records a command's $SWITCHYARD_OUTPUT and $SWITCHYARD_USAGE.

/** The usage an agent turn reports: tokens and dollars, each optional (charged to the run's budget). */
export interface AgentUsage {
  input_tokens?: number;
  cached_input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

/** One agent turn as a function runner receives it. */
export interface AgentTurn {
  run: string;
  task: string;
  /** The element key of a mapped task; null for an unmapped one. */
  key: string | null;
  /** The runner's name in the playbook (`runner = "…"`). */
  runner: string;
  /** The task's prompt template rendered with the instance's input. */
  prompt: string;
  /** The task's effort (low, medium, high …), as $SWITCHYARD_EFFORT gives a command. */
  effort: string;
  /** The instance's input: its inputs, and for a mapped task its key. */
  input: unknown;
  /** A fresh folder for this attempt; files the task declares (`files = [...]`) are read from it afterwards. */
  workspace: string;
}

/** What a function runner returns: the output object (checked against the task's `emits`) and its usage. */
export interface AgentResult {
  output: Record<string, unknown>;
  usage?: AgentUsage;
}

/** An agent runner as code: resolves with the turn's result; rejects (or throws) to fail the attempt. */
export type AgentFunction = (turn: AgentTurn, signal: AbortSignal) => Promise<AgentResult>;
