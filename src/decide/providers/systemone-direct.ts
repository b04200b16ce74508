// The `systemone` provider's direct first attempt. Against a fast server the official
// client's per-request work — resolving its retry policy (a copy of its status set), merging
// headers twice, redacting them for a debug log that is off, an AbortController and a promise
// subclass per call, serialising the whole request again — cost about as much as the rest of a
// decision. So every request but a provider's first is sent once directly, through the same
// transport the client uses (http.ts), with exactly the URL and headers the client sent on that
// first request (it is the template), and the body written from the state's serialisation that
// the run already holds. Only when that attempt fails does the official client take over:
//
// - a 2xx: the body is the answer, parsed as before;
// - a status the retry rule does not retry (400, 401, …): the client's own error for it
//   (APIError.fromResponse), reported as before;
// - a status it retries (408, 429, 5xx) or a connection error or a timeout: the wait the client
//   would make before its first retry (retry-after / retry-after-ms up to the cap, otherwise the
//   backoff with its jitter), then the client sends the remaining retries — configured with one
//   retry fewer and the backoff one step further on, and with X-TypeSafe-Retry-Count one more
//   than it counts, so attempts, waits and headers are what the client alone would have made.

import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from "@typesafe-ai/sdk";
import type { ProviderConfig } from "../config-types.js";
import { isRetryableStatus, MAX_RETRY_AFTER_MS } from "../retry-policy.js";
import { authorize } from "../provider-key.js";
import { type Exchange, type Send } from "../http.js";

/** What the official client sent on its first request: where, and which headers. */
export interface WireTemplate {
  url: string;
  headers: Record<string, string>;
}

/** Headers set per request, never part of the template. */
const PER_REQUEST = new Set(["authorization", "content-length", "x-typesafe-retry-count"]);

/** The header that tells a SystemOne server how many times a request has been retried. */
export const RETRY_COUNT = "x-typesafe-retry-count";

/** The template for a request the client is sending (its headers have lower-case names). */
export function templateOf(headers: Record<string, string>, url: string): WireTemplate {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!PER_REQUEST.has(name)) kept[name] = value;
  return { url, headers: kept };
}

/** The attempt's result: the body of a 2xx, or the error the official client would have had. */
export type DirectResult =
  | { ok: true; text: string }
  | { ok: false; error: APIError | APIConnectionError | APIUserAbortError; retryable: boolean; headers?: Record<string, string> };

/** The SDK's reading of an error body: JSON when it parses, the text otherwise, none when empty. */
function errorBody(x: Exchange): unknown {
  const text = x.payload.toString("utf8");
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sends one attempt of a System One request with the template's URL and headers. */
export async function directAttempt(
  send: Send,
  config: ProviderConfig,
  template: WireTemplate,
  body: string,
  signal: AbortSignal,
): Promise<DirectResult> {
  let x: Exchange;
  try {
    x = await send(template.url, "POST", authorize(config, { ...template.headers }), Buffer.from(body), signal, config.timeout_ms);
  } catch (err) {
    if (signal.aborted) return { ok: false, error: new APIUserAbortError(undefined, { cause: err }), retryable: false };
    if ((err as { code?: string }).code === "ETIMEDOUT")
      return { ok: false, error: new APITimeoutError(config.timeout_ms, { cause: err }), retryable: true };
    const message = err instanceof Error ? `Connection error: ${err.message}` : undefined;
    return { ok: false, error: new APIConnectionError(message, { cause: err }), retryable: true };
  }
  if (x.status >= 200 && x.status <= 299) return { ok: true, text: x.payload.toString("utf8") };
  const error = APIError.fromResponse(x.status, errorBody(x), new Headers(x.headers));
  return { ok: false, error, retryable: isRetryableStatus(x.status), headers: x.headers };
}

/** `retry-after-ms`, else `retry-after` (seconds or an HTTP date), in ms; undefined when neither is valid. */
export function retryAfterMs(headers: Record<string, string>, now = Date.now()): number | undefined {
  const ms = Number(headers["retry-after-ms"]);
  if (headers["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers["retry-after"];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The client's wait before its first retry: the server's delay up to the cap, else the backoff less up to 25 % jitter. */
export function firstRetryDelayMs(
  headers: Record<string, string> | undefined,
  backoffInitialMs: number,
  backoffMaxMs: number,
  random = Math.random,
): number {
  const asked = headers ? retryAfterMs(headers) : undefined;
  if (asked !== undefined && asked <= MAX_RETRY_AFTER_MS) return asked;
  return Math.round(Math.min(backoffInitialMs, backoffMaxMs) * (1 - random() * 0.25));
}

/** Waits `ms`; a cancel ends the wait with the client's abort error. */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new APIUserAbortError(undefined, { cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError(undefined, { cause: signal.reason }));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
