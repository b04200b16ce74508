// The Gemini API on 127.0.0.1, for the real Gemini CLI (test/agents-real/):
// `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` answered as server-sent events (one
// GenerateContentResponse per `data:` line: candidates[0].content.parts with text or functionCall,
// finishReason, usageMetadata {promptTokenCount, cachedContentTokenCount, candidatesTokenCount,
// thoughtsTokenCount, totalTokenCount}); `:generateContent` (the CLI's own side requests) as one
// JSON response; `:countTokens`. Tool calls are functionCall parts of the CLI's own tools
// (write_file, run_shell_command). Errors as the API sends them: `{"error": {"code", "message",
// "status"}}`. Point Gemini CLI here with GOOGLE_GEMINI_BASE_URL and API-key auth in a private HOME
// (agents-real/homes.ts). The scripted model is wire-model.ts.

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

interface Content {
  role?: string;
  parts?: Array<{ functionResponse?: unknown }>;
}

function sawToolResult(contents: Content[]): boolean {
  const last = contents[contents.length - 1];
  return (last?.parts ?? []).some((p) => p.functionResponse !== undefined);
}

const STATUS: Record<number, string> = { 400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL" };

function usageMetadata(side: boolean) {
  const u = usageOf(side);
  return {
    promptTokenCount: u.input,
    cachedContentTokenCount: u.cached,
    candidatesTokenCount: u.output,
    thoughtsTokenCount: u.reasoning,
    totalTokenCount: u.input + u.output + u.reasoning,
  };
}

export function startGeminiServer(script: ModelScript): Promise<WireServer> {
  return startWireServer(script, (req, res, server) => {
    const path = req.path.split("?")[0]!;
    const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (!m || req.method !== "POST") return json(res, 404, { error: { code: 404, message: `no route ${path}`, status: "NOT_FOUND" } });
    if (m[2] === "countTokens") return json(res, 200, { totalTokens: PER_REQUEST.input });
    const body = req.body as { contents?: Content[]; tools?: Array<{ functionDeclarations?: Array<{ name: string }> }> };
    const declared = new Set((body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)));
    const nth = server.answered + server.refused;
    // Requests without the CLI's tools are its own side requests (routing, next-speaker checks).
    const side = !declared.has("write_file");
    const step = !side
      ? nextStep(script, sawToolResult(body.contents ?? []), nth)
      : { kind: "text" as const, text: '{"next_speaker": "user", "reasoning": "done"}' };
    if (step.kind === "error") {
      server.refused++;
      return json(res, step.status, { error: { code: step.status, message: step.message, status: STATUS[step.status] ?? "INTERNAL" } });
    }
    if (side) server.side++;
    else server.answered++;
    const cwd = workingFolderIn(req.text);
    const at = (f: string) => (isAbsolute(f) || !cwd ? f : join(cwd, f));
    const part =
      step.kind === "text"
        ? { text: step.text }
        : step.kind === "write"
          ? { functionCall: { name: "write_file", args: { file_path: at(step.file), content: step.content } } }
          : { functionCall: { name: "run_shell_command", args: { command: step.command, description: "run a command" } } };
    const chunk = {
      candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: usageMetadata(side),
      modelVersion: m[1],
    };
    if (m[2] === "generateContent") return json(res, 200, chunk);
    sse(res, [{ data: chunk }]);
  });
}
