// The door of src/run/agents: the agent CLIs — their presets (argv, output readers, versions),
// runner configuration, rate limits, and the git worktrees an agent works in.
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { limiterFor, MAX_RATE_LIMITED_TRIES, rateLimitDelay, rateLimitState, type RunnerLimiter } from "./agent-rate-limits.js";
export { type AgentRunnerConfig, type PriceTable, type ReplayedTurn, type ReplayRequest, type TurnReplay } from "./agent-runner-config.js";
export type { AgentFunction, AgentResult, AgentTurn, AgentUsage } from "./agent-function.js";
export { canReportCost, invocation, presetArgsAnyEffort, presetOf, runnerEnv, withCost } from "./presets/invocation.js";
export { PRESET_NAMES, type PresetName, PRESETS } from "./presets/presets.js";
export { readPresetOutput, readPresetTurn, type PresetTurn } from "./presets/turn.js";
export { checkVersion, readToolVersion } from "./presets/versions.js";
export { git, gitLocked, type GitOptions, type GitScope, probeRepository, recordedRepositoryProblem, refComponent } from "./worktree.js";
