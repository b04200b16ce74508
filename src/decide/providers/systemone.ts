// The `systemone` provider (D-21): `POST {base_url}/v1/systemone`. The official @typesafe-ai/sdk
// client sends a provider's first request and every retry; the requests in between are sent
// once directly, with the client's URL and headers, and handed to the client only when that
// attempt fails (systemone-direct.ts says why and how). The SDK serves: base URL override,
// per-attempt timeout covering the whole body, retries with backoff + jitter on 408/429/5xx (529
// included) and connection errors, retry-after / retry-after-ms honoured up to a cap, typed
// errors. We add the key read at call time, our own JSON parsing (for precise messages) and the
// wire validation.

import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  TypeSafeClient,
  type Questions,
  type SystemOneRequest as SdkRequest,
} from "@typesafe-ai/sdk";
import type { ProviderConfig } from "../config-types.js";
import {
  DEFAULT_BACKOFF_INITIAL_MS,
  DEFAULT_BACKOFF_MAX_MS,
  MAX_RETRY_AFTER_MS,
  attempts,
  isRetryableStatus,
  type HttpTuning,
} from "../retry-policy.js";
import { KEY_PLACEHOLDER, readApiKey, redact } from "../provider-key.js";
import { apiRoot, providerTransport, type Send } from "../http.js";
import { describeConnectionCause, describeStatusBody, parseJsonBody } from "../http-wording.js";
import { ProviderError, type Provider, type ProviderRequest, type ProviderResponse } from "../provider.js";
import { buildSystemOneRequest, parseSystemOneResponse, systemOneRequestText, type SystemOneRequest } from "../systemone-wire.js";
import { directAttempt, firstRetryDelayMs, RETRY_COUNT, templateOf, wait, type WireTemplate } from "./systemone-direct.js";

/** A provider over the SystemOne API: requests sent directly once the vendor client has shown their URL and headers; retries through the vendor client. */
export class SystemOneProvider implements Provider {
  readonly name: string;
  private readonly client: TypeSafeClient;
  /** The client that sends the retries after a failed direct attempt (none without retries). */
  private readonly retryClient: TypeSafeClient | null;
  private readonly send: Send;
  private readonly backoffInitialMs: number;
  private readonly backoffMaxMs: number;
  /** The URL and headers of the client's first request; until then every request goes through it. */
  private template: WireTemplate | null = null;

  constructor(
    private readonly config: ProviderConfig,
    tuning: HttpTuning = {},
  ) {
    if (!config.base_url) throw new ProviderError("decision-failed", `provider '${config.name}' (systemone) has no base_url`);
    this.name = config.name;
    this.backoffInitialMs = tuning.backoffInitialMs ?? DEFAULT_BACKOFF_INITIAL_MS;
    this.backoffMaxMs = tuning.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS;
    // The SDK reads bodies whole (it drains a clone, then we call text()): no web streams needed.
    const transport = providerTransport(config, { buffered: true });
    this.send = transport.send;
    const client = (maxRetries: number, backoffInitialMs: number, fetch: typeof transport.fetch) =>
      new TypeSafeClient({
        apiKey: KEY_PLACEHOLDER,
        baseURL: apiRoot(config.base_url!),
        logLevel: "off", // its debug level would log bodies (the state)
        timeout: config.timeout_ms,
        retry: {
          maxRetries,
          backoffInitialMs,
          backoffMaxMs: this.backoffMaxMs,
          backoffJitter: 0.25,
          maxRetryAfterMs: MAX_RETRY_AFTER_MS,
          respectRetryAfter: true,
          apiConnectionError: true,
          apiTimeoutError: true,
        },
        fetch,
      });
    this.client = client(
      config.max_retries,
      this.backoffInitialMs,
      transport.fetchWith((headers, url) => {
        if (!this.template && !tuning.clientOnly && headers[RETRY_COUNT] === undefined) this.template = templateOf(headers, url);
      }),
    );
    // Its attempts are retries 1, 2, … of a request whose first try was direct.
    this.retryClient =
      config.max_retries > 0
        ? client(
            config.max_retries - 1,
            this.backoffInitialMs * 2,
            transport.fetchWith((headers) => {
              headers[RETRY_COUNT] = String(Number(headers[RETRY_COUNT] ?? 0) + 1);
            }),
          )
        : null;
  }

  async ask(request: ProviderRequest): Promise<ProviderResponse> {
    const key = readApiKey(this.config);
    const who = `provider '${this.name}' (systemone, model ${request.model})`;
    const body = buildSystemOneRequest(request.model, request.state, request.state_text, request.questions);
    const started = performance.now();
    let text: string;
    try {
      text = this.template ? await this.direct(this.template, body, request) : await this.viaClient(this.client, body, request.signal);
    } catch (err) {
      throw this.failure(err, who, key);
    }
    const latency_ms = Math.round(performance.now() - started);
    try {
      const parsed = parseJsonBody(text, `${who}: the HTTP 200 body`);
      const { answers, usage } = parseSystemOneResponse(parsed, request.questions, `${who}: the response`);
      return { answers, usage, latency_ms };
    } catch (err) {
      if (err instanceof ProviderError) throw new ProviderError("decision-failed", redact(err.message, key), { retryable: false });
      throw err;
    }
  }

  private async viaClient(client: TypeSafeClient, body: SystemOneRequest, signal: AbortSignal): Promise<string> {
    const response = await client.systemOne(body as unknown as SdkRequest<Questions>, { signal }).asResponse();
    return response.text();
  }

  /** One direct attempt; on a retryable failure, the client's first wait and then its retries. */
  private async direct(template: WireTemplate, body: SystemOneRequest, request: ProviderRequest): Promise<string> {
    const r = await directAttempt(
      this.send,
      this.config,
      template,
      systemOneRequestText(body, request.state, request.state_text),
      request.signal,
    );
    if (r.ok) return r.text;
    if (!r.retryable || !this.retryClient) throw r.error;
    await wait(firstRetryDelayMs(r.headers, this.backoffInitialMs, this.backoffMaxMs), request.signal);
    return this.viaClient(this.retryClient, body, request.signal);
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
      return new ProviderError("decision-failed", redact(err.message, key), { retryable: err.retryable });
    } else {
      message = `${who}: ${err instanceof Error ? err.message : String(err)}`;
    }
    return new ProviderError("decision-failed", redact(message, key), { retryable });
  }
}
