// The OpenAI Responses API on 127.0.0.1, for the real Codex CLI (test/agents-real/): `POST
// /v1/responses` answered as server-sent events (response.created, response.output_item.added /
// .done per item, response.completed with the usage: input_tokens with input_tokens_details
// .cached_tokens, output_tokens with output_tokens_details.reasoning_tokens). Tool calls are
// function_call items of the CLI's own shell tool (whichever of `shell` / `exec_command` /
// `shell_command` it declares). Errors as the API sends them: `{"error": {"message", "type",
// "code"}}` with 400, 429 or 500. Point Codex here with a custom provider in a private CODEX_HOME:
// `[model_providers.local] base_url = URL + "/v1", wire_api = "responses"` (agents-real/homes.ts).
// The scripted model is wire-model.ts.

import { PER_REQUEST, json, nextStep, sse, startWireServer, type ModelScript, type WireServer } from "./wire-model.js";

interface Tool {
  type?: string;
  name?: string;
}

const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);

function sawToolResult(input: unknown): boolean {
  return Array.isArray(input) && input.some((i: { type?: string }) => OUTPUT_TYPES.has(i?.type ?? ""));
}

const ERROR_TYPES: Record<number, string> = { 400: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error" };

/** printf-quoted for a POSIX shell. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A function_call item running `script` through the shell tool the CLI declared. */
function shellCall(tools: Tool[], script: string, id: string): Record<string, unknown> {
  const names = new Set(tools.map((t) => t.name));
  let name: string;
  let args: Record<string, unknown>;
  if (names.has("exec_command")) [name, args] = ["exec_command", { cmd: script }];
  else if (names.has("shell_command")) [name, args] = ["shell_command", { command: script }];
  else [name, args] = ["shell", { command: ["bash", "-lc", script] }];
  return { type: "function_call", id: `fc_${id}`, call_id: `call_${id}`, name, arguments: JSON.stringify(args), status: "completed" };
}

export function startOpenAIResponsesServer(script: ModelScript): Promise<WireServer> {
  return startWireServer(script, (req, res, server) => {
    const path = req.path.split("?")[0]!;
    if (path.endsWith("/models")) return json(res, 200, { object: "list", data: [], models: [] });
    if (!path.endsWith("/responses") || req.method !== "POST")
      return json(res, 404, { error: { message: `no route ${path}`, type: "not_found", code: null } });
    const body = req.body as { input?: unknown; tools?: Tool[]; model?: string };
    const nth = server.answered + server.refused;
    const step = nextStep(script, sawToolResult(body.input), nth);
    if (step.kind === "error") {
      server.refused++;
      return json(
        res,
        step.status,
        { error: { message: step.message, type: ERROR_TYPES[step.status] ?? "server_error", code: null } },
        step.status === 429 ? { "retry-after": "0" } : {},
      );
    }
    server.answered++;
    const id = String(server.answered);
    const item =
      step.kind === "text"
        ? {
            type: "message",
            id: `msg_${id}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: step.text, annotations: [] }],
          }
        : shellCall(
            body.tools ?? [],
            step.kind === "shell"
              ? step.command
              : `mkdir -p "$(dirname ${quote(step.file)})" && printf '%s' ${quote(step.content)} > ${quote(step.file)}`,
            id,
          );
    const response = { id: `resp_${id}`, object: "response", model: body.model ?? "gpt-5-codex", status: "completed" };
    sse(res, [
      { event: "response.created", data: { type: "response.created", response: { ...response, status: "in_progress", output: [] } } },
      { event: "response.output_item.added", data: { type: "response.output_item.added", output_index: 0, item } },
      { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: 0, item } },
      {
        event: "response.completed",
        data: {
          type: "response.completed",
          response: {
            ...response,
            output: [item],
            usage: {
              input_tokens: PER_REQUEST.input,
              input_tokens_details: { cached_tokens: PER_REQUEST.cached },
              // The Responses API counts reasoning inside output_tokens.
              output_tokens: PER_REQUEST.output + PER_REQUEST.reasoning,
              output_tokens_details: { reasoning_tokens: PER_REQUEST.reasoning },
              total_tokens: PER_REQUEST.input + PER_REQUEST.output + PER_REQUEST.reasoning,
            },
          },
        },
      },
    ]);
  });
}
