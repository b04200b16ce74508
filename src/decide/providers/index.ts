// Where the router gets its providers: one per `[providers.NAME]` block, plus the host (D-20).

import type { ProviderConfig } from "../config-types.js";
import type { HttpTuning } from "../retry-policy.js";
import type { Provider } from "../provider.js";
import { CommandProvider } from "./command.js";
import { HostProvider, type HostOptions } from "./host.js";
import { OpenAIProvider } from "./openai.js";
import { SystemOneProvider } from "./systemone.js";

export type { HostOptions } from "./host.js";
export type { HttpTuning } from "../retry-policy.js";
export { CommandProvider } from "./command.js";
export { HostProvider, parseHostReply, renderHostPrompt } from "./host.js";
export { OpenAIProvider, labelProbabilitiesFromLogprobs, logprobPrompt } from "./openai.js";
export { SystemOneProvider } from "./systemone.js";

/**
 * A provider for a configured block. `tuning` is for tests and benchmarks (systemone backoff);
 * `hideEnv` names the providers' key variables, which a `command` provider's process must not see.
 */
export function createProvider(config: ProviderConfig, tuning: HttpTuning = {}, hideEnv: readonly string[] = []): Provider {
  switch (config.kind) {
    case "systemone":
      return new SystemOneProvider(config, tuning);
    case "openai":
      return new OpenAIProvider(config);
    case "command":
      return new CommandProvider(config, hideEnv);
  }
}

/** The host (D-20): an agent runner, or a person at the terminal (`tty: true`). */
export function createHostProvider(opts: HostOptions): Provider {
  return new HostProvider(opts);
}
