// A real node:http server on 127.0.0.1 for the decision-API test servers (systemone-server.ts,
// decisions-server.ts): it records every request, serves each route through a handler, and
// misbehaves on demand. Other tests and the benchmarks reuse it through those two files.
//
// API (see also the two servers built on it):
//   const s = await startScriptedServer({ routes: { "/v1/x": handler }, port?, latencyMs? });
//   s.url                    "http://127.0.0.1:PORT" (no trailing slash)
//   s.requests               every request received: { method, path, headers, body, text, time }
//   s.count(path?)           how many requests (to one path)
//   s.enqueue(...replies)    the next requests (any route) get these replies, in order, before the
//                            handlers answer again: status codes with headers (retry-after),
//                            raw text, or a misbehaviour (see `Misbehave` below: status,
//                            invalidJson, html, truncate, hang, stall, reset)
//   s.close()                stops it, cutting hung connections
// A handler gets the parsed JSON body (or undefined when it is not JSON) and returns a Reply.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON (content-type application/json). */
  json?: unknown;
  /** Sent as is (content-type from headers, else text/plain). */
  text?: string;
  /**
   * hang: never answer (until close); reset: destroy the socket with a TCP reset before any
   * response; truncate: promise a longer body (content-length) than is sent, then close;
   * stall: send the headers and part of the body, then nothing more (until close).
   */
  misbehave?: "hang" | "reset" | "truncate" | "stall";
}

/** Ready-made replies for enqueue(). */
export const Misbehave = {
  status(
    status: number,
    opts: { retryAfter?: string; retryAfterMs?: string; json?: unknown; text?: string; headers?: Record<string, string> } = {},
  ): Reply {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.retryAfter !== undefined) headers["retry-after"] = opts.retryAfter;
    if (opts.retryAfterMs !== undefined) headers["retry-after-ms"] = opts.retryAfterMs;
    const reply: Reply = { status, headers };
    if (opts.text !== undefined) reply.text = opts.text;
    else reply.json = opts.json ?? { detail: `scripted status ${status}` };
    return reply;
  },
  invalidJson(text = '{"answers": {"q": {"type": "noul", "noul": 0.9}'): Reply {
    return { status: 200, headers: { "content-type": "application/json" }, text };
  },
  html(status = 502): Reply {
    return {
      status,
      headers: { "content-type": "text/html" },
      text: "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>",
    };
  },
  truncate(): Reply {
    return { misbehave: "truncate" };
  },
  hang(): Reply {
    return { misbehave: "hang" };
  },
  stall(): Reply {
    return { misbehave: "stall" };
  },
  reset(): Reply {
    return { misbehave: "reset" };
  },
};

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body, or undefined when it was not JSON. */
  body: unknown;
  text: string;
  time: number;
}

export type Handler = (body: unknown, req: RecordedRequest) => Reply | Promise<Reply>;

export interface ScriptedServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  count(path?: string): number;
  enqueue(...replies: Reply[]): void;
  close(): Promise<void>;
}

export async function startScriptedServer(opts: {
  routes: Record<string, Handler>;
  port?: number;
  latencyMs?: number;
}): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const queue: Reply[] = [];
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, req: IncomingMessage, reply: Reply) => {
    if (reply.misbehave === "hang") return; // the socket stays open until close()
    if (reply.misbehave === "reset") {
      req.socket.resetAndDestroy();
      return;
    }
    if (reply.misbehave === "stall") {
      res.writeHead(200, { "content-type": "application/json", "content-length": "4096" });
      res.write('{"model": "scripted", "answers": {');
      return;
    }
    if (reply.misbehave === "truncate") {
      const partial = '{"model": "scripted", "answers": {"q": {"type": "choice", "probabil';
      res.writeHead(200, { "content-type": "application/json", "content-length": String(partial.length + 200) });
      res.write(partial);
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    let payload = "";
    if (reply.text !== undefined) {
      payload = reply.text;
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "text/plain";
    } else if (reply.json !== undefined) {
      payload = JSON.stringify(reply.json);
      headers["content-type"] = "application/json";
    }
    headers["content-length"] = String(Buffer.byteLength(payload));
    res.writeHead(reply.status ?? 200, headers);
    res.end(payload);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const path = (req.url ?? "/").split("?")[0]!;
      const recorded: RecordedRequest = { method: req.method ?? "GET", path, headers: { ...req.headers }, body, text, time: Date.now() };
      requests.push(recorded);
      if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
      const scripted = queue.shift();
      if (scripted) return send(res, req, scripted);
      const handler = opts.routes[path];
      if (!handler || req.method !== "POST") return send(res, req, { status: 404, json: { detail: `no route ${req.method} ${path}` } });
      try {
        send(res, req, await handler(body, recorded));
      } catch (e) {
        send(res, req, { status: 500, json: { detail: `test server handler failed: ${(e as Error).message}` } });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    count: (path?: string) => (path ? requests.filter((r) => r.path === path).length : requests.length),
    enqueue: (...replies: Reply[]) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Parses `--name value` flags of the standalone servers. */
export function cliFlags(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) continue;
    const eq = a.indexOf("=");
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else out[a.slice(2)] = argv[++i] ?? "";
  }
  return out;
}
