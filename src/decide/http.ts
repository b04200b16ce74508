// The transport the HTTP providers share (D-22). The official clients (@typesafe-ai/sdk, openai)
// do the requests, per-attempt timeouts and retries; this file gives both the same transport
// underneath: requests over node:http with keep-alive, the key read at call time
// (provider-key.ts), every body read whole (buffered-response.ts), and each failed status marked
// for the clients by the retry rule (retry-policy.ts). What is said of failures: http-wording.ts.

import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { BufferedHeaders, BufferedResponse, responseHeaders } from "./buffered-response.js";
import { authorize } from "./provider-key.js";
import { isRetryableStatus } from "./retry-policy.js";
import type { ProviderConfig } from "./config-types.js";
import { CodedError } from "../shared/coded-error.js";
import { messageOf } from "../shared/thrown.js";

/**
 * The API root without a trailing slash or `/v1`: the providers append `/v1/...` themselves, and
 * people often paste an OpenAI-style base URL that already ends in `/v1`.
 */
export function apiRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/**
 * The most bytes of a reply body read (before and after decompression), as the `command`
 * provider caps its stdout: a runaway or hostile server cannot grow the engine without bound.
 */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** A transport failure described for people (the SDKs wrap it as a connection error and retry). */
export class TransportError extends CodedError {}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** Request headers as a plain object with lower-case names (cheaper than a Headers round trip). */
function plainHeaders(init: RequestInit): Record<string, string> {
  const h = init.headers;
  const out: Record<string, string> = {};
  if (h === undefined || h === null) return out;
  if (h instanceof Headers) h.forEach((value, name) => (out[name] = value));
  else if (Array.isArray(h)) for (const [name, value] of h) out[name!.toLowerCase()] = value!;
  else for (const [name, value] of Object.entries(h)) if (value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

async function bodyBytes(body: RequestInit["body"]): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  const limit = { maxOutputLength: MAX_REPLY_BYTES };
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return gunzipSync(body, limit);
    case "deflate":
      return inflateSync(body, limit);
    case "br":
      return brotliDecompressSync(body, limit);
    default:
      return body;
  }
}

/** Where a URL string points, parsed once per URL (a provider sends every request to one). */
interface Target {
  href: string;
  secure: boolean;
  options: RequestOptions;
}

/** One HTTP exchange, its body read whole. */
export interface Exchange {
  status: number;
  statusText: string;
  /** Lower-case names, one string per name, minus those describing the raw body. */
  headers: Record<string, string>;
  /** The body, decoded (gzip, deflate, br). */
  payload: Buffer;
  /** The URL, normalised. */
  url: string;
}

/**
 * Sends one request and reads the whole response. Rejects with a TransportError (code
 * `ETIMEDOUT` when `timeoutMs` passed before the whole body arrived) or with the signal's reason.
 * `headers` gets the content-length.
 */
export type Send = (
  href: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal?: AbortSignal,
  timeoutMs?: number,
) => Promise<Exchange>;

/**
 * HTTP exchanges over node:http with keep-alive, the whole body read before they resolve. It is
 * several times cheaper per request than the global fetch (undici), which dominated the cost of a
 * decision against a fast local server.
 */
// eslint-disable-next-line max-lines-per-function -- one request's life on node:http (timeout, abort, redirect refusal, body cap) reads clearest whole; its listeners share the request's state
function nodeSend(agents: { http: HttpAgent; https: HttpsAgent }): Send {
  const targets = new Map<string, Target>();
  const targetOf = (href: string): Target => {
    let t = targets.get(href);
    if (!t) {
      const url = new URL(href);
      // Only the fields a request needs, in a plain object (cheap to copy per request).
      const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
      t = { href: url.href, secure: protocol === "https:", options: { protocol, hostname, port, path, ...(auth ? { auth } : {}) } };
      if (targets.size >= 64) targets.clear();
      targets.set(href, t);
    }
    return t;
  };
  // eslint-disable-next-line max-lines-per-function -- the request's listeners share its state (see nodeSend)
  return (href, method, headers, body, signal, timeoutMs) => {
    const target = targetOf(href);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (body !== undefined) headers["content-length"] = String(body.length);
    const secure = target.secure;
    const options: RequestOptions = { ...target.options, method, headers, agent: secure ? agents.https : agents.http };
    // eslint-disable-next-line max-lines-per-function -- the request's listeners share its state (see nodeSend)
    return new Promise<Exchange>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const done = (f: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        if (timer) clearTimeout(timer);
        f();
      };
      const req = (secure ? httpsRequest : httpRequest)(options, (res) => {
        const chunks: Buffer[] = [];
        let received = 0;
        res.on("data", (c: Buffer) => {
          chunks.push(c);
          received += c.length;
          if (received > MAX_REPLY_BYTES) {
            chunks.length = 0;
            req.destroy();
            done(() =>
              reject(
                new TransportError(
                  "ETOOLARGE",
                  `the reply body is larger than ${MAX_REPLY_BYTES / (1024 * 1024)} MB, the limit; stopped reading it`,
                ),
              ),
            );
          }
        });
        res.on("end", () => {
          const expected = Number(res.headers["content-length"]);
          if (!res.complete || (Number.isFinite(expected) && received < expected)) {
            return done(() =>
              reject(new TransportError("ECONNRESET", "the server closed the connection before the full response arrived")),
            );
          }
          let payload: Buffer;
          try {
            payload = decode(Buffer.concat(chunks), res.headers["content-encoding"]);
          } catch (e) {
            return done(() => reject(new TransportError("EDECODE", `the response body could not be decoded (${messageOf(e)})`)));
          }
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 599)
            return done(() => reject(new TransportError("EBADSTATUS", `the server answered with HTTP status ${status}`)));
          const exchange: Exchange = {
            status,
            statusText: res.statusMessage ?? "",
            headers: responseHeaders(res.headers),
            payload,
            url: target.href,
          };
          done(() => resolve(exchange));
        });
        res.on("error", () =>
          done(() => reject(new TransportError("ECONNRESET", "the server closed the connection before the full response arrived"))),
        );
        res.on("aborted", () =>
          done(() => reject(new TransportError("ECONNRESET", "the server closed the connection before the full response arrived"))),
        );
      });
      const onAbort = () => {
        done(() => reject(abortError(signal!)));
        req.destroy();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          done(() => reject(new TransportError("ETIMEDOUT", `no complete response within ${timeoutMs} ms`)));
          req.destroy();
        }, timeoutMs);
      }
      req.on("error", (err: NodeJS.ErrnoException) => {
        const code = err.code ?? "ECONNECTION";
        const text =
          code === "ECONNRESET" || code === "EPIPE"
            ? "the server closed the connection before the full response arrived"
            : code === "ECONNREFUSED"
              ? "connection refused"
              : err.message;
        done(() => reject(new TransportError(code, text)));
      });
      req.end(body);
    });
  };
}

/**
 * A fetch for an SDK over `send`: each failed status is marked with `x-should-retry` so that
 * both SDKs follow the retry rule above. `buffered`: hand over a BufferedResponse (for a client
 * that reads bodies whole only).
 */
function hrefOf(input: string | URL | Request): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

function sdkFetch(
  send: Send,
  buffered: boolean,
): (input: string | URL | Request, init: RequestInit, headers: Record<string, string>) => Promise<Response> {
  return async (input, init, headers) => {
    const x = await send(hrefOf(input), init.method ?? "GET", headers, await bodyBytes(init.body), init.signal ?? undefined);
    const out = x.headers;
    const status = x.status;
    if (status >= 400) out["x-should-retry"] = isRetryableStatus(status) ? "true" : "false";
    const empty = x.payload.length === 0 || status === 204 || status === 304;
    return buffered
      ? (new BufferedResponse(empty ? null : x.payload, status, x.statusText, new BufferedHeaders(out), x.url) as unknown as Response)
      : new Response(empty ? null : x.payload, { status, statusText: x.statusText, headers: out });
  };
}

/** A provider's transport: `send` for requests made directly, `fetch` for its official client. */
export interface ProviderTransport {
  send: Send;
  /**
   * The fetch the SDKs are given. It sets the Authorization header from the environment at call
   * time (never stored in a client) and reads the whole body under the attempt's signal — so a
   * body cut short or stalled is a connection error the SDK retries or times out.
   */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Like `fetch`, with `edit` applied to the request's headers (lower-case names) first. */
  fetchWith(
    edit: (headers: Record<string, string>, href: string) => void,
  ): (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/** The HTTP transport of one provider: kept-alive connections, its timeout and retries, and a fetch the vendor SDKs can use. */
export function providerTransport(config: ProviderConfig, opts: { buffered?: boolean } = {}): ProviderTransport {
  const send = nodeSend({ http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) });
  const transport = sdkFetch(send, opts.buffered ?? false);
  const fetchWith: ProviderTransport["fetchWith"] =
    (edit) =>
    async (input, init = {}) => {
      const headers = authorize(config, plainHeaders(init));
      edit(headers, hrefOf(input));
      return transport(input, init, headers);
    };
  return { send, fetch: async (input, init = {}) => transport(input, init, authorize(config, plainHeaders(init))), fetchWith };
}

/** The fetch both SDKs are given (ProviderTransport.fetch). */
export function providerFetch(
  config: ProviderConfig,
  opts: { buffered?: boolean } = {},
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return providerTransport(config, opts).fetch;
}
