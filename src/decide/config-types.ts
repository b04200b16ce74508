// The machine config's shape (D-50), as loaded and validated by src/decide/config.ts.
// It lives in the decision layer because most of it is about providers and judgement modes;
// the run engine receives only the agent runners it needs (src/run takes AgentRunnerConfig).

import type { AgentRunnerConfig } from "../run/agents/index.js";
import type { TypeCalibration } from "./calibration-map.js";

/** The wires a provider can speak: SystemOne, OpenAI (decisions or log-probabilities), or a local command. */
export type ProviderKind = "systemone" | "openai" | "command";

/**
 * How a `command` provider's program is run (D-21): started per request (`once`), or started once
 * and asked a line of JSON per request (`lines`).
 */
export type CommandProtocol = "once" | "lines";

/** One `[providers.NAME]` entry of the machine config, defaults applied. */
export interface ProviderConfig {
  name: string;
  kind: ProviderKind;
  /** Who makes the models; checked against [decisions] deny_vendors (D-30). */
  vendor: string;
  /** systemone/openai: where the API is; the path (/v1/systemone, /v1/decisions) is appended. */
  base_url?: string;
  /** The NAME of the environment variable holding the key; the key itself is never stored. */
  api_key_env?: string;
  /** The allowlist (D-30): only these models may be asked. */
  models: string[];
  /** openai: models asked through Chat Completions log-probabilities instead of /v1/decisions. */
  logprob_models: string[];
  /** Per model: the context window in tokens (D-32). */
  context_window: Record<string, number>;
  /** command: the executable and its arguments. */
  command?: string[];
  /** command: per request, or one process for the provider's life; unset means "once". */
  protocol?: CommandProtocol;
  /** Per-call timeout in milliseconds (default 30 s). */
  timeout_ms: number;
  /** Retries after the first try on retryable failures (default 3). */
  max_retries: number;
}

/** A model a mode routes to: the name of a `[providers.NAME]` block and one of its models. */
export interface ModelRef {
  provider: string;
  model: string;
}

/**
 * A judgement mode (D-10): `host`, `review` (people answer from the review queue, D-60),
 * `shadow:PROVIDER/MODEL[,PROVIDER/MODEL…]` (one or more distinct candidates beside the host, H-6),
 * or `PROVIDER/MODEL`.
 */
export type JudgementMode =
  { kind: "host" } | { kind: "review" } | { kind: "shadow"; models: ModelRef[] } | { kind: "model"; provider: string; model: string };

/** What a table-form `[decisions.types]` entry adds to its mode (D-33, D-34). */
export interface TypeSettings {
  /** The mode written beside them: they apply only while the type runs in it. */
  mode: JudgementMode;
  /** The map applied to the model's confidence before the min_confidence test, and its file. */
  calibration?: TypeCalibration & { file: string };
  /** Overrides the playbook's min_confidence for this type. */
  min_confidence?: number;
  /** The fraction of turned-on decisions the host is asked about as well. */
  audit?: number;
  /** Turned on: an answer whose (calibrated) confidence is below this goes to the review queue (D-61). */
  escalate_below?: number;
  /** How long a question of this type waits in the review queue before it is `uncertain` (D-64). */
  review_timeout_ms?: number;
}

/** The `[decisions]` section: how each judgement type is answered, and by which host. */
export interface DecisionsConfig {
  default: JudgementMode;
  /** Judgement type → mode. */
  types: Record<string, JudgementMode>;
  /** Judgement type → calibration, min_confidence and audit, for table-form entries. */
  settings?: Record<string, TypeSettings>;
  deny_vendors: string[];
  fallback_on_refusal: boolean;
  /** Who answers as the host (D-20): an agent runner's name, or "tty" for a person. */
  host: string;
  /** The default wait of a review question before it is `uncertain` (D-64); none: it waits until answered. */
  review_timeout_ms?: number;
  /** A command (no shell) told on stdin when questions start waiting and when the queue empties (D-66). */
  review_notify?: string[];
}

/** The machine config (D-50) as loaded and checked: agent runners, providers and decisions. */
export interface MachineConfig {
  /** Where it was read from, for messages; undefined when no file exists (all defaults). */
  path?: string;
  agents: Record<string, AgentRunnerConfig>;
  providers: Record<string, ProviderConfig>;
  decisions: DecisionsConfig;
}
