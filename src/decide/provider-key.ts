// A provider's key (D-21): read from the environment variable the machine config names, at call
// time, never stored in a client, and blanked out of any text that quotes a server.

import { ProviderError } from "./provider.js";
import type { ProviderConfig } from "./config-types.js";

/** Placeholder handed to the SDKs, which insist on a key; the transport's fetch (http.ts) replaces or drops it. */
export const KEY_PLACEHOLDER = "switchyard-key-read-at-call-time";

/**
 * The provider's key, read from the environment at call time (D-21). Undefined when the provider
 * names no `api_key_env` (a local server); a ProviderError when it names one that is unset.
 */
export function readApiKey(config: ProviderConfig): string | undefined {
  if (!config.api_key_env) return undefined;
  const key = process.env[config.api_key_env];
  if (key === undefined || key.trim() === "") {
    throw new ProviderError(
      "decision-failed",
      `provider '${config.name}': the environment variable ${config.api_key_env} (its api_key_env) is not set; ` +
        `export it, or remove api_key_env for a server that needs no key`,
    );
  }
  return key.trim();
}

/** Replaces every occurrence of the key in a text (belt and braces: messages quote servers). */
export function redact(text: string, key: string | undefined): string {
  // A "key" of a few characters would blank ordinary words; real keys are far longer.
  if (!key || key.length < 6) return text;
  return text.split(key).join("***");
}

/** The Authorization header for the provider's key, read from the environment at call time. */
export function authorize(config: ProviderConfig, headers: Record<string, string>): Record<string, string> {
  const key = config.api_key_env ? process.env[config.api_key_env]?.trim() : undefined;
  if (key) headers.authorization = `Bearer ${key}`;
  else delete headers.authorization;
  return headers;
}
