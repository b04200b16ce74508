// The Anthropic Messages API on 127.0.0.1, for the real Claude Code (test/agents-real/): `POST
// /v1/messages` answered as server-sent events (message_start, content_block_start /
// content_block_delta / content_block_stop per block, message_delta with the usage, message_stop),
// tool calls as tool_use blocks of the CLI's own tools (Write, Bash). Errors as the API sends them:
// `{"type": "error", "error": {"type", "message"}}` with 400, 429 (with retry-after) or 500.
// The scripted model is wire-model.ts. Point Claude Code here with ANTHROPIC_BASE_URL.

import type { ServerResponse } from "node:http";
import { isAbsolute, join } from "node:path";
import {
  PER_REQUEST,
  json,
  usageOf,
  nextStep,
  sse,
  startWireServer,
  workingFolderIn,
  type ModelScript,
  type WireServer,
} from "./wire-model.js";

interface Message {
  role: string;
  content: unknown;
}

function sawToolResult(messages: Message[]): boolean {
  const last = messages[messages.length - 1];
  return Array.isArray(last?.content) && last.content.some((b: { type?: string }) => b?.type === "tool_result");
}

const ERROR_TYPES: Record<number, string> = { 400: "invalid_request_error", 429: "rate_limit_error", 500: "api_error" };

/** Anthropic usage: input_tokens are the fresh ones; cache reads apart. */
function usage(side: boolean) {
  const u = usageOf(side);
  return { input_tokens: u.input - u.cached, cache_creation_input_tokens: 0, cache_read_input_tokens: u.cached, output_tokens: u.output };
}

export function startAnthropicServer(script: ModelScript): Promise<WireServer> {
  return startWireServer(script, (req, res, server) => {
    const path = req.path.split("?")[0]!;
    if (path.endsWith("/count_tokens")) return json(res, 200, { input_tokens: PER_REQUEST.input });
    if (!path.endsWith("/v1/messages") || req.method !== "POST")
      return json(res, 404, { type: "error", error: { type: "not_found_error", message: path } });
    const body = req.body as { messages?: Message[]; tools?: Array<{ name: string }>; stream?: boolean; model?: string };
    const messages = body.messages ?? [];
    const hasTools = (body.tools ?? []).some((t) => t.name === "Write");
    // Requests without the CLI's tools are its own side requests (titles, checks): plain text.
    const nth = server.answered + server.refused;
    const step = hasTools ? nextStep(script, sawToolResult(messages), nth) : { kind: "text" as const, text: "ok" };
    if (step.kind === "error") {
      server.refused++;
      return json(
        res,
        step.status,
        { type: "error", error: { type: ERROR_TYPES[step.status] ?? "api_error", message: step.message } },
        step.status === 429 ? { "retry-after": "0" } : {},
      );
    }
    if (hasTools) server.answered++;
    else server.side++;
    const cwd = workingFolderIn(req.text);
    const at = (f: string) => (isAbsolute(f) || !cwd ? f : join(cwd, f));
    const id = `toolu_${server.answered}`;
    const block =
      step.kind === "text"
        ? { type: "text", text: step.text }
        : step.kind === "write"
          ? { type: "tool_use", id, name: "Write", input: { file_path: at(step.file), content: step.content } }
          : { type: "tool_use", id, name: "Bash", input: { command: step.command, description: "run a command" } };
    reply(res, body.model ?? "claude-sonnet-5", block, body.stream === true, usage(!hasTools));
  });
}

function reply(
  res: ServerResponse,
  model: string,
  block: { type: string; [k: string]: unknown },
  stream: boolean,
  u: ReturnType<typeof usage>,
): void {
  const stop = block.type === "tool_use" ? "tool_use" : "end_turn";
  const message = { id: `msg_${Date.now()}`, type: "message", role: "assistant", model, stop_sequence: null };
  if (!stream) return json(res, 200, { ...message, content: [block], stop_reason: stop, usage: u });
  const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
  const delta =
    block.type === "text"
      ? { type: "text_delta", text: block.text }
      : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
  sse(res, [
    {
      event: "message_start",
      data: { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...u, output_tokens: 1 } } },
    },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: start } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output_tokens } },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}
