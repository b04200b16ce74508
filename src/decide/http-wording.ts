// What the HTTP providers say when a server misbehaves, in words: a short excerpt of a body, an
// HTML page named by its title, JSON that does not parse, a failed status's own message, and
// connection failures people recognise.

import { ProviderError } from "./provider.js";
import { TransportError } from "./http.js";
import { isPlainObject } from "../shared/primitives.js";
import { errnoCode } from "../shared/thrown.js";

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
  return m?.[1] !== undefined ? `titled '${excerpt(m[1], 80)}'` : `beginning '${excerpt(text, 80)}'`;
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
  if (isPlainObject(body)) {
    const b = body;
    const detail = b.detail;
    const error = b.error;
    if (typeof detail === "string") return `HTTP ${status}: ${excerpt(detail)}`;
    if (isPlainObject(detail) && typeof detail.message === "string") return `HTTP ${status}: ${excerpt(detail.message)}`;
    if (Array.isArray(detail)) {
      const parts = detail.map((d) => {
        const e: Record<string, unknown> = isPlainObject(d) ? d : {};
        const loc = Array.isArray(e.loc) ? e.loc.filter((x) => x !== "body").join(".") : "";
        return `${loc ? `${loc}: ` : ""}${typeof e.msg === "string" ? e.msg : JSON.stringify(d)}`;
      });
      return `HTTP ${status}: ${excerpt(parts.join("; "))}`;
    }
    if (typeof error === "string") return `HTTP ${status}: ${excerpt(error)}`;
    if (isPlainObject(error) && typeof error.message === "string") return `HTTP ${status}: ${excerpt(error.message)}`;
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
    const code = errnoCode(e);
    const message = e instanceof Error ? e.message : undefined;
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || message === "terminated" || message === "other side closed") {
      return "the server closed the connection before the full response arrived";
    }
    if (code === "ECONNREFUSED") return "connection refused";
    if (typeof message === "string" && message && message !== "fetch failed" && !/^Connection error/.test(message)) parts.push(message);
    e = (e as { cause?: unknown }).cause;
  }
  const last = parts.at(-1);
  return last !== undefined ? excerpt(last, 120) : "connection failed";
}
