// The `systemone` provider (D-21): `POST {base_url}/v1/systemone` through the official
// @typesafe-ai/sdk client. The SDK serves: base URL override, per-attempt timeout covering the
// whole body, retries with backoff + jitter on 408/429/5xx (529 included) and connection errors,
// retry-after / retry-after-ms honoured up to a cap, typed errors. We add the key read at call time,
// our own JSON parsing (for precise messages) and the wire validation.

import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, TypeSafeClient, type Questions, type SystemOneRequest as SdkRequest } from "@typesafe-ai/sdk";
import type { ProviderConfig } from "../config-types.js";
import {
  DEFAULT_BACKOFF_INITIAL_MS,
  DEFAULT_BACKOFF_MAX_MS,
  KEY_PLACEHOLDER,
  MAX_RETRY_AFTER_MS,
  apiRoot,
  attempts,
  describeConnectionCause,
  describeStatusBody,
  isRetryableStatus,
  parseJsonBody,
  providerFetch,
  readApiKey,
  redact,
  type HttpTuning,
} from "../http.js";
import { ProviderError, type Provider, type ProviderRequest, type ProviderResponse } from "../provider.js";
import { buildSystemOneRequest, parseSystemOneResponse } from "../systemone-wire.js";

export class SystemOneProvider implements Provider {
  readonly name: string;
  private readonly client: TypeSafeClient;

  constructor(
    private readonly config: ProviderConfig,
    tuning: HttpTuning = {},
  ) {
    if (!config.base_url) throw new ProviderError(`provider '${config.name}' (systemone) has no base_url`);
    this.name = config.name;
    this.client = new TypeSafeClient({
      apiKey: KEY_PLACEHOLDER,
      baseURL: apiRoot(config.base_url),
      logLevel: "off", // its debug level would log bodies (the state)
      timeout: config.timeout_ms,
      retry: {
        maxRetries: config.max_retries,
        backoffInitialMs: tuning.backoffInitialMs ?? DEFAULT_BACKOFF_INITIAL_MS,
        backoffMaxMs: tuning.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS,
        backoffJitter: 0.25,
        maxRetryAfterMs: MAX_RETRY_AFTER_MS,
        respectRetryAfter: true,
        apiConnectionError: true,
        apiTimeoutError: true,
      },
      // The SDK reads bodies whole (it drains a clone, then we call text()): no web streams needed.
      fetch: providerFetch(config, { buffered: true }),
    });
  }

  async ask(request: ProviderRequest): Promise<ProviderResponse> {
    const key = readApiKey(this.config);
    const who = `provider '${this.name}' (systemone, model ${request.model})`;
    const body = buildSystemOneRequest(request.model, request.state, request.state_text, request.questions);
    const started = performance.now();
    let text: string;
    try {
      const response = await this.client
        .systemOne(body as unknown as SdkRequest<Questions>, { signal: request.signal })
        .asResponse();
      text = await response.text();
    } catch (err) {
      throw this.failure(err, who, key);
    }
    const latency_ms = Math.round(performance.now() - started);
    try {
      const parsed = parseJsonBody(text, `${who}: the HTTP 200 body`);
      const { answers, usage } = parseSystemOneResponse(parsed, request.questions, `${who}: the response`);
      return { answers, usage, latency_ms };
    } catch (err) {
      if (err instanceof ProviderError) throw new ProviderError(redact(err.message, key), false);
      throw err;
    }
  }

  private failure(err: unknown, who: string, key: string | undefined): ProviderError {
    const tries = attempts(this.config);
    let message: string;
    let retryable = false;
    if (err instanceof APIUserAbortError) {
      message = `${who}: cancelled`;
    } else if (err instanceof APITimeoutError) {
      message = `${who}: no complete response within ${this.config.timeout_ms} ms (timeout) after ${tries}`;
      retryable = true;
    } else if (err instanceof APIConnectionError) {
      message = `${who}: ${describeConnectionCause(err)} (${this.config.base_url}) after ${tries}`;
      retryable = true;
    } else if (err instanceof APIError) {
      retryable = isRetryableStatus(err.status);
      message = `${who}: ${describeStatusBody(err.status, err.body)}${retryable ? ` after ${tries}` : " (not retried)"}`;
    } else if (err instanceof ProviderError) {
      return new ProviderError(redact(err.message, key), err.retryable);
    } else {
      message = `${who}: ${err instanceof Error ? err.message : String(err)}`;
    }
    return new ProviderError(redact(message, key), retryable);
  }
}
