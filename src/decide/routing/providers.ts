// The providers a judge asks, built on first use, and their modules loaded only then: a run whose
// types all stay with the host never loads the HTTP clients (the openai package alone is slow to
// import).

import type { MachineConfig } from "../config-types.js";
import { secretEnvNames } from "../config.js";
import type { Provider } from "../provider.js";

/** The providers of one judge: by name, the host, and closing every one built. */
export interface ProviderCache {
  providerFor(name: string): Promise<Provider>;
  host(): Promise<Provider>;
  close(): Promise<void>;
}

/**
 * A cache over the machine config. Injected providers and an injected host (tests, embedding) are
 * used as they are and never closed: whoever made them closes them.
 */
export function providerCache(
  config: MachineConfig,
  injected: Record<string, Provider> | undefined,
  injectedHost: Provider | undefined,
): ProviderCache {
  const built = new Map<string, Provider>();
  let host = injectedHost;
  const hostName = config.decisions.host;
  return {
    async providerFor(name) {
      const given = injected?.[name];
      if (given) return given;
      let p = built.get(name);
      if (!p) {
        const { createProvider } = await import("../providers/index.js");
        p = built.get(name) ?? createProvider(config.providers[name], {}, secretEnvNames(config));
        built.set(name, p);
      }
      return p;
    },
    async host() {
      if (!host) {
        const { createHostProvider } = await import("../providers/index.js");
        host ??=
          hostName === "tty"
            ? createHostProvider({ tty: true })
            : createHostProvider({ runner: config.agents[hostName], hideEnv: secretEnvNames(config) });
        built.set("\u0000host", host);
      }
      return host;
    },
    async close() {
      const all = [...built.values()];
      built.clear();
      await Promise.allSettled(all.map((p) => p.close?.()));
    },
  };
}
