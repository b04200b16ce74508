// The scripted model behind the vendor wire servers (anthropic-wire-server.ts,
// openai-responses-server.ts, gemini-wire-server.ts, openai-chat-server.ts) that the real agent CLIs
// talk to in test/agents-real/. Whatever the wire format, the model does the same thing, decided
// from the conversation the CLI sends (so a CLI's own extra requests cannot derail it):
//   write      first a call of the CLI's own file-writing (or shell) tool creating `file`, then,
//              once the tool's result is in the conversation, the text `reply`;
//   loop       a tool call on every request, never a final answer (the CLI's turn limit ends it);
//   refused    first a shell command the CLI's permissions do not allow (`refusedCommand`), then
//              the reply;
//   api-400 / api-500
//              every request fails with that status and the vendor's error body;
//   rate-limit the first `rateLimited` requests get 429 (the vendor's rate-limit error), then it
//              behaves as `write`.
// Every answered request of the conversation reports the same usage (PER_REQUEST), so a test knows
// the exact total from the number of answered requests, which the server counts. A CLI's own side
// requests (a title, a routing check: requests that do not offer the CLI's tools) are answered with
// plain text and zero usage, so they never change a total.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ModelMode = "write" | "loop" | "refused" | "api-400" | "api-500" | "rate-limit";

export interface ModelScript {
  mode: ModelMode;
  /** The file the model creates, relative to the CLI's working folder. */
  file: string;
  content: string;
  reply: string;
  refusedCommand: string;
  /** rate-limit: how many requests are refused with 429 first. */
  rateLimited: number;
}

/** Tokens reported for every answered request, in the vendor-neutral sense. */
export const PER_REQUEST = {
  /** all input tokens, cached ones included */
  input: 1200,
  /** of which read from the cache */
  cached: 1000,
  /** visible output tokens (text and tool calls) */
  output: 30,
  /** reasoning / thinking tokens (vendors that report them apart) */
  reasoning: 7,
} as const;

export const ERROR_MESSAGE = (status: number) => `scripted failure ${status}`;

/** The usage one answer reports: PER_REQUEST, or nothing for a side request. */
export function usageOf(side: boolean): { input: number; cached: number; output: number; reasoning: number } {
  return side ? { input: 0, cached: 0, output: 0, reasoning: 0 } : { ...PER_REQUEST };
}

/** What the model does on one request. */
export type ModelStep =
  | { kind: "write"; file: string; content: string }
  | { kind: "shell"; command: string }
  | { kind: "text"; text: string }
  | { kind: "error"; status: number; message: string };

export interface WireRequest {
  method: string;
  path: string;
  body: unknown;
  text: string;
}

export interface WireServer {
  url: string;
  script: ModelScript;
  requests: WireRequest[];
  /** Requests of the conversation answered with a model response (each reported PER_REQUEST). */
  answered: number;
  /** The CLI's side requests (answered with zero usage). */
  side: number;
  /** Requests refused with an error status. */
  refused: number;
  close(): Promise<void>;
}

export function defaultScript(overrides: Partial<ModelScript> = {}): ModelScript {
  return {
    mode: "write",
    file: "RESULT.json",
    content: '{"ok": true}\n',
    reply: "DONE: RESULT.json",
    refusedCommand: "python3 -c \"open('refused.txt', 'w').write('no')\"",
    rateLimited: 0,
    ...overrides,
  };
}

/**
 * The next step for a request. `sawToolResult`: the conversation already holds a tool result;
 * `nth`: how many requests came before this one.
 */
export function nextStep(s: ModelScript, sawToolResult: boolean, nth: number): ModelStep {
  switch (s.mode) {
    case "api-400":
      return { kind: "error", status: 400, message: ERROR_MESSAGE(400) };
    case "api-500":
      return { kind: "error", status: 500, message: ERROR_MESSAGE(500) };
    case "rate-limit":
      if (nth < s.rateLimited) return { kind: "error", status: 429, message: ERROR_MESSAGE(429) };
      break;
    case "loop":
      return { kind: "write", file: s.file, content: `round ${nth}\n` };
    case "refused":
      return sawToolResult ? { kind: "text", text: s.reply } : { kind: "shell", command: s.refusedCommand };
    case "write":
      break;
  }
  return sawToolResult ? { kind: "text", text: s.reply } : { kind: "write", file: s.file, content: s.content };
}

/** The CLI's working folder, as its system prompt or context states it (else undefined). */
export function workingFolderIn(text: string): string | undefined {
  const patterns = [
    /Working directory: ([^\s"\\]+)/,
    /<cwd>([^<]+)<\/cwd>/,
    /working in the directory: ([^\s"\\]+)/,
    /Workspace Directories:\*\*(?:\\n|\s)+- ([^\s"\\]+)/,
  ];
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m[1]!.replace(/[.,]$/, "");
  }
  return undefined;
}

export type Handler = (req: WireRequest, res: ServerResponse, server: WireServer) => void;

/** A real HTTP server on 127.0.0.1 that records every request and passes it to `handle`. */
export async function startWireServer(script: ModelScript, handle: Handler): Promise<WireServer> {
  const server: WireServer = {
    url: "",
    script,
    requests: [],
    answered: 0,
    side: 0,
    refused: 0,
    close: async () => {},
  };
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const r: WireRequest = { method: req.method ?? "GET", path: req.url ?? "/", body, text };
      server.requests.push(r);
      try {
        handle(r, res, server);
      } catch (err) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `wire server: ${(err as Error).message}` } }));
      }
    });
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  server.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  server.close = () =>
    new Promise<void>((ok) => {
      http.closeAllConnections();
      http.close(() => ok());
    });
  return server;
}

/** Writes server-sent events: `event:` lines when `named`, then `data:` JSON. */
export function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const e of events) {
    if (e.event) res.write(`event: ${e.event}\n`);
    res.write(`data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
