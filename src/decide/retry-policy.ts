// The retry rule both HTTP providers follow (D-22): which statuses are worth another try
// (408/429/5xx and connection errors; never another 4xx), the backoff, and how long a server's
// retry-after is honoured. The official clients do the retrying; this is what they are told.

import type { ProviderConfig } from "./config-types.js";

/** Knobs for tests and benchmarks; production uses the defaults (the official SDKs' own). */
export interface HttpTuning {
  /** First backoff delay; doubled per retry up to backoffMaxMs, minus up to 25 % jitter. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** systemone: send every request through the official client, none directly (comparison). */
  clientOnly?: boolean;
}

/** The first wait before a provider call is retried. */
export const DEFAULT_BACKOFF_INITIAL_MS = 500;
/** The longest wait between retries, however many there have been. */
export const DEFAULT_BACKOFF_MAX_MS = 8_000;
/** A retry-after longer than this is not waited for: the ordinary backoff applies instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** D-22: the statuses worth another try. Every other 4xx is the request's fault: never retried. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** How many attempts a provider makes, in words ("3 attempts"). */
export function attempts(config: ProviderConfig): string {
  const n = config.max_retries + 1;
  return `${n} attempt${n === 1 ? "" : "s"}`;
}
