// A write's body: JSON, at most 64 KiB (an answer is a few hundred bytes), read whole before it
// is looked at; anything else is refused in words.

import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/** The largest body a write may have. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The request's JSON body; 415 when it is not JSON, 413 when too large, 400 when it does not parse. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").replace(/;.*$/s, "").trim().toLowerCase();
  if (type !== "application/json")
    throw new HttpError("ui-bad-body", "a write's body must be JSON (Content-Type: application/json)", { status: 415 });
  // A body over the limit is drained, not kept, so that the refusal can still be answered.
  const text = await new Promise<string | null>((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (b: Buffer) => {
      size += b.length;
      if (size <= MAX_BODY_BYTES) chunks.push(b);
    });
    req.on("end", () => done(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", fail);
  });
  if (text === null) throw new HttpError("ui-bad-body", `a write's body may be at most ${MAX_BODY_BYTES} bytes`, { status: 413 });
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    throw new HttpError("ui-bad-body", "a write's body is not valid JSON", { status: 400 });
  }
}
