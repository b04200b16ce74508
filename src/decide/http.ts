// What the HTTP providers share (D-22). The official clients (@typesafe-ai/sdk, openai) do the
// requests, per-attempt timeouts and retries; this file gives both the same transport underneath
// (a fetch that reads the key at call time and buffers the whole body), the same retry rule
// (408/429/5xx/529 and connection errors; never another 4xx) and the same error messages.

import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { ProviderError } from "./provider.js";
import type { ProviderConfig } from "./config-types.js";
import { CodedError } from "../shared/coded-error.js";

/** Knobs for tests and benchmarks; production uses the defaults (the official SDKs' own). */
export interface HttpTuning {
  /** First backoff delay; doubled per retry up to backoffMaxMs, minus up to 25 % jitter. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** systemone: send every request through the official client, none directly (comparison). */
  clientOnly?: boolean;
}

export const DEFAULT_BACKOFF_INITIAL_MS = 500;
export const DEFAULT_BACKOFF_MAX_MS = 8_000;
/**
 * The most bytes of a reply body read (before and after decompression), as the `command`
 * provider caps its stdout: a runaway or hostile server cannot grow the engine without bound.
 */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
/** A retry-after longer than this is not waited for: the ordinary backoff applies instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** D-22: the statuses worth another try. Every other 4xx is the request's fault: never retried. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * The API root without a trailing slash or `/v1`: the providers append `/v1/...` themselves, and
 * people often paste an OpenAI-style base URL that already ends in `/v1`.
 */
export function apiRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** Placeholder handed to the SDKs, which insist on a key; the fetch below replaces or drops it. */
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

/**
 * Response headers for a BufferedResponse: what the SDK reads of them (get, has, iteration) over
 * node's own header object, whose names are already lower-case, instead of a Headers built per
 * response.
 */
class BufferedHeaders {
  constructor(private readonly map: Record<string, string>) {}
  get(name: string): string | null {
    return this.map[name.toLowerCase()] ?? null;
  }
  has(name: string): boolean {
    return Object.hasOwn(this.map, name.toLowerCase());
  }
  forEach(fn: (value: string, name: string, headers: this) => void): void {
    for (const name of Object.keys(this.map).sort()) fn(this.map[name]!, name, this);
  }
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.map).sort()) yield [name, this.map[name]!];
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** node's response headers as one string per name, minus those describing the raw body. */
function responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || name === "content-encoding" || name === "content-length") continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
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
 * A response whose body is already in memory, for an SDK that only reads it whole (`text()`,
 * `json()`, `arrayBuffer()`, status and headers): it answers `body` with null — there is nothing
 * left to stream — so a client that drains a clone before handing the response over (the
 * TypeSafe SDK does, to time the whole body) skips building a web stream, a tee and a copy per
 * request, which cost more than the rest of a decision against a fast local server.
 */
class BufferedResponse {
  readonly body = null;
  readonly bodyUsed = false;
  readonly redirected = false;
  readonly type = "basic";
  constructor(
    private readonly payload: Buffer | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers | BufferedHeaders,
    readonly url: string,
  ) {}
  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }
  clone(): BufferedResponse {
    return new BufferedResponse(this.payload, this.status, this.statusText, this.headers, this.url);
  }
  async text(): Promise<string> {
    return this.payload ? this.payload.toString("utf8") : "";
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const p = this.payload ?? Buffer.alloc(0);
    return p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength) as ArrayBuffer;
  }
}

/**
 * HTTP exchanges over node:http with keep-alive, the whole body read before they resolve. It is
 * several times cheaper per request than the global fetch (undici), which dominated the cost of a
 * decision against a fast local server.
 */
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
  return (href, method, headers, body, signal, timeoutMs) => {
    const target = targetOf(href);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (body !== undefined) headers["content-length"] = String(body.length);
    const secure = target.secure;
    const options: RequestOptions = { ...target.options, method, headers, agent: secure ? agents.https : agents.http };
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
            payload = decode(Buffer.concat(chunks), res.headers["content-encoding"] as string | undefined);
          } catch (e) {
            return done(() => reject(new TransportError("EDECODE", `the response body could not be decoded (${(e as Error).message})`)));
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

/** The Authorization header for the provider's key, read from the environment at call time. */
export function authorize(config: ProviderConfig, headers: Record<string, string>): Record<string, string> {
  const key = config.api_key_env ? process.env[config.api_key_env]?.trim() : undefined;
  if (key) headers.authorization = `Bearer ${key}`;
  else delete headers.authorization;
  return headers;
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

/** A short, single-line excerpt of a body or stderr for messages. */
export function excerpt(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function looksLikeHtml(text: string): boolean {
  return /^\s*(<!doctype html|<html|<head|<body|<\?xml)/i.test(text);
}

function htmlTitle(text: string): string {
  const m = /<title[^>]*>([^<]*)<\/title>/i.exec(text);
  return m ? `titled '${excerpt(m[1]!, 80)}'` : `beginning '${excerpt(text, 80)}'`;
}

/**
 * Parses a success body as JSON, naming what was wrong otherwise: empty, an HTML page, or not
 * valid JSON (with the parser's reason and the body's first characters).
 */
export function parseJsonBody(text: string, what: string): unknown {
  // The common case, an object: parsed at once (on an error, the checks below say what is wrong).
  if (text.charCodeAt(0) === 0x7b) {
    try {
      return JSON.parse(text);
    } catch {
      // described below
    }
  }
  if (text.trim() === "") throw new ProviderError("decision-failed", `${what} is empty`);
  if (looksLikeHtml(text)) throw new ProviderError("decision-failed", `${what} is an HTML page, not JSON (${htmlTitle(text)})`);
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    const nan = /(^|[^A-Za-z"])(-?Infinity|NaN)([^A-Za-z"]|$)/.test(text)
      ? "; it contains NaN or Infinity, which JSON cannot carry (a probability that is not a number?)"
      : "";
    throw new ProviderError(
      "decision-failed",
      `${what} is not valid JSON (${excerpt(reason, 120)})${nan}; it begins '${excerpt(text, 80)}'`,
    );
  }
}

/** What a failed HTTP status said, in one line: the server's own message, or what the body is. */
export function describeStatusBody(status: number, body: unknown): string {
  if (body === undefined || body === null || body === "") return `HTTP ${status} with no body`;
  if (typeof body === "string") {
    if (looksLikeHtml(body)) return `HTTP ${status} with an HTML page (${htmlTitle(body)})`;
    return `HTTP ${status}: ${excerpt(body)}`;
  }
  if (typeof body === "object") {
    const b = body as Record<string, unknown>;
    const detail = b.detail;
    const error = b.error;
    if (typeof detail === "string") return `HTTP ${status}: ${excerpt(detail)}`;
    if (detail && typeof detail === "object" && !Array.isArray(detail) && typeof (detail as Record<string, unknown>).message === "string") {
      return `HTTP ${status}: ${excerpt((detail as Record<string, unknown>).message as string)}`;
    }
    if (Array.isArray(detail)) {
      const parts = detail.map((d) => {
        const e = d as { loc?: unknown; msg?: unknown };
        const loc = Array.isArray(e.loc) ? e.loc.filter((x) => x !== "body").join(".") : "";
        return `${loc ? `${loc}: ` : ""}${typeof e.msg === "string" ? e.msg : JSON.stringify(d)}`;
      });
      return `HTTP ${status}: ${excerpt(parts.join("; "))}`;
    }
    if (typeof error === "string") return `HTTP ${status}: ${excerpt(error)}`;
    if (error && typeof error === "object" && typeof (error as Record<string, unknown>).message === "string") {
      return `HTTP ${status}: ${excerpt((error as Record<string, unknown>).message as string)}`;
    }
    if (typeof b.message === "string") return `HTTP ${status}: ${excerpt(b.message)}`;
  }
  return `HTTP ${status}: ${excerpt(JSON.stringify(body))}`;
}

/** Connection-level causes in words people recognise. */
export function describeConnectionCause(err: unknown): string {
  const seen = new Set<unknown>();
  let e: unknown = err;
  const parts: string[] = [];
  while (e && typeof e === "object" && !seen.has(e)) {
    seen.add(e);
    if (e instanceof TransportError) return e.message;
    const code = (e as { code?: unknown }).code;
    const message = (e as { message?: unknown }).message;
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || message === "terminated" || message === "other side closed") {
      return "the server closed the connection before the full response arrived";
    }
    if (code === "ECONNREFUSED") return "connection refused";
    if (typeof message === "string" && message && message !== "fetch failed" && !/^Connection error/.test(message)) parts.push(message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.length > 0 ? excerpt(parts[parts.length - 1]!, 120) : "connection failed";
}

export function attempts(config: ProviderConfig): string {
  const n = config.max_retries + 1;
  return `${n} attempt${n === 1 ? "" : "s"}`;
}
