// The OpenAI Chat Completions API on 127.0.0.1, for the real Qwen Code and opencode
// (test/agents-real/): `POST /v1/chat/completions` answered as server-sent events when `stream` is
// set (chat.completion.chunk deltas: the text or tool_calls, then finish_reason, then a chunk with
// the usage {prompt_tokens with prompt_tokens_details.cached_tokens, completion_tokens with
// completion_tokens_details.reasoning_tokens}, then `data: [DONE]`), else as one chat.completion.
// Tool calls are of the CLI's own tools: its file-writing tool (write_file or write) and its shell
// tool (run_shell_command or bash), chosen from the tools the request declares. Errors as the API
// sends them: `{"error": {"message", "type", "code"}}`. The scripted model is wire-model.ts.

import { isAbsolute, join } from "node:path";
import { json, usageOf, nextStep, sse, startWireServer, workingFolderIn, type ModelScript, type WireServer } from "./wire-model.js";

interface Tool {
  function?: { name?: string };
}

const ERROR_TYPES: Record<number, string> = { 400: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error" };

function toolCall(
  tools: Tool[],
  step: { kind: "write"; file: string; content: string } | { kind: "shell"; command: string },
  cwd: string | undefined,
) {
  const names = new Set(tools.map((t) => t.function?.name));
  const at = (f: string) => (isAbsolute(f) || !cwd ? f : join(cwd, f));
  if (step.kind === "write") {
    if (names.has("write_file")) return { name: "write_file", args: { file_path: at(step.file), content: step.content } };
    return { name: "write", args: { filePath: at(step.file), content: step.content } };
  }
  if (names.has("run_shell_command")) return { name: "run_shell_command", args: { command: step.command, description: "run a command" } };
  return { name: "bash", args: { command: step.command, description: "run a command" } };
}

export function startOpenAIChatServer(script: ModelScript): Promise<WireServer> {
  return startWireServer(script, (req, res, server) => {
    const path = req.path.split("?")[0]!;
    if (path.endsWith("/models")) return json(res, 200, { object: "list", data: [{ id: "local-model", object: "model" }] });
    if (!path.endsWith("/chat/completions") || req.method !== "POST")
      return json(res, 404, { error: { message: `no route ${path}`, type: "not_found", code: null } });
    const body = req.body as { messages?: Array<{ role: string }>; tools?: Tool[]; stream?: boolean; model?: string };
    const messages = body.messages ?? [];
    const hasTools = (body.tools ?? []).length > 0;
    const nth = server.answered + server.refused;
    // Requests without tools are the CLI's own side requests (titles, summaries): plain text.
    const step = hasTools ? nextStep(script, messages[messages.length - 1]?.role === "tool", nth) : { kind: "text" as const, text: "ok" };
    if (step.kind === "error") {
      server.refused++;
      return json(
        res,
        step.status,
        { error: { message: step.message, type: ERROR_TYPES[step.status] ?? "server_error", code: null } },
        step.status === 429 ? { "retry-after": "0" } : {},
      );
    }
    if (hasTools) server.answered++;
    else server.side++;
    const id = `chatcmpl_${server.answered}_${server.side}`;
    const u = usageOf(!hasTools);
    const model = body.model ?? "local-model";
    // Chat Completions counts reasoning inside completion_tokens.
    const usage = {
      prompt_tokens: u.input,
      prompt_tokens_details: { cached_tokens: u.cached },
      completion_tokens: u.output + u.reasoning,
      completion_tokens_details: { reasoning_tokens: u.reasoning },
      total_tokens: u.input + u.output + u.reasoning,
    };
    const call = step.kind === "text" ? undefined : toolCall(body.tools ?? [], step, workingFolderIn(req.text));
    const finish = call ? "tool_calls" : "stop";
    const toolCalls = call
      ? [{ index: 0, id: `call_${server.answered}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }]
      : undefined;
    const message = call
      ? { role: "assistant", content: null, tool_calls: toolCalls }
      : { role: "assistant", content: (step as { text: string }).text };
    if (body.stream !== true)
      return json(res, 200, {
        id,
        object: "chat.completion",
        created: 0,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
      id,
      object: "chat.completion.chunk",
      created: 0,
      model,
      choices,
      ...extra,
    });
    sse(res, [
      {
        data: chunk([
          {
            index: 0,
            delta: { role: "assistant", ...(call ? { tool_calls: toolCalls } : { content: message.content }) },
            finish_reason: null,
          },
        ]),
      },
      { data: chunk([{ index: 0, delta: {}, finish_reason: finish }]) },
      { data: chunk([], { usage }) },
      { data: "[DONE]" },
    ]);
  });
}
