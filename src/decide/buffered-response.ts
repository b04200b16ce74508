// A response whose body is already in memory, handed to an official client in place of a web
// Response (http.ts's transport reads every body whole): cheaper than a stream per request.

import type { IncomingHttpHeaders } from "node:http";

/**
 * Response headers for a BufferedResponse: what the SDK reads of them (get, has, iteration) over
 * node's own header object, whose names are already lower-case, instead of a Headers built per
 * response.
 */
export class BufferedHeaders {
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
export function responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || name === "content-encoding" || name === "content-length") continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * A response whose body is already in memory, for an SDK that only reads it whole (`text()`,
 * `json()`, `arrayBuffer()`, status and headers): it answers `body` with null — there is nothing
 * left to stream — so a client that drains a clone before handing the response over (the
 * TypeSafe SDK does, to time the whole body) skips building a web stream, a tee and a copy per
 * request, which cost more than the rest of a decision against a fast local server.
 */
export class BufferedResponse {
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
