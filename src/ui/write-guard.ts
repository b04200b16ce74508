// Who may write through the web view (docs/ui.md, "Writes"): its one write is answering review
// questions. `switchyard ui` makes a random token at each start and prints it in the address it
// gives (after `#`, so it never reaches a server log or a Referer); the page keeps it in
// sessionStorage and sends it in a header. A write needs that header (a header, never a cookie: a
// browser attaches cookies to requests other sites make, never a header) and an Origin equal to
// the server's own, so another site's page can neither make one nor read an answer; and, unless
// `--host` opened the server to others, it must come from this machine.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/** The header a write carries its token in. */
export const TOKEN_HEADER = "x-switchyard-token";

/** What a write needs: the server's token, and whether writes may come from other machines (`--host`). */
export interface WriteAccess {
  token: string;
  /** Accept writes from peers that are not this machine (only when `--host` was given). */
  remote: boolean;
}

/** A fresh token: 32 random bytes, URL-safe. */
export function newWriteToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Equal without leaking where they differ: both hashed to the same length, compared in constant time. */
function sameSecret(given: string, token: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(token));
}

const isLoopbackPeer = (addr: string): boolean => addr === "::1" || /^(::ffff:)?127\./.test(addr);

const refuse = (code: string, message: string) => new HttpError(code, message, { status: 403 });

/** Throws a 403 saying why unless the request may write: this machine (or --host), its own Origin, the token. */
export function checkWrite(req: IncomingMessage, access: WriteAccess | undefined): void {
  if (!access) throw new HttpError("ui-read-only", "this web view was started without writes: it only reads", { status: 405 });
  if (!access.remote && !isLoopbackPeer(req.socket.remoteAddress ?? ""))
    throw refuse(
      "ui-write-not-local",
      "this web view takes answers from this machine only (start it with --host to take them from others)",
    );
  const origin = req.headers.origin;
  const own = `http://${req.headers.host ?? ""}`;
  if (origin === undefined) throw refuse("ui-foreign-origin", `a write must carry an Origin header (${own}): send it from the page`);
  if (origin !== own)
    throw refuse("ui-foreign-origin", `a write from ${origin} is refused: only this server's own pages (${own}) may write`);
  const given = req.headers[TOKEN_HEADER];
  if (typeof given !== "string" || given === "")
    throw refuse(
      "ui-token-refused",
      "a write needs the token of the address `switchyard ui` printed: open that address (it ends in #token=…)",
    );
  if (!sameSecret(given, access.token))
    throw refuse(
      "ui-token-refused",
      "the write token is not this server's (was `switchyard ui` restarted?): open the address it printed last (it ends in #token=…)",
    );
}
