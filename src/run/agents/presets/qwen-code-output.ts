// Reads `qwen --output-format json`: one JSON array of messages printed when the turn
// ends, recorded from @qwen-code/qwen-code 0.24.4 in test/fixtures/real-agents/. Its last element
// is the result: `{"type": "result", "subtype": "success" | "error_during_execution", "is_error",
// "result", "num_turns", "usage": {input_tokens, output_tokens, cache_read_input_tokens},
// "error": {"message"}}`. Unlike Claude Code's, its `usage.input_tokens` already includes the cached
// tokens, and `output_tokens` the reasoning ones. A turn limit prints nothing on stdout (exit 53,
// the error JSON on stderr, as Gemini CLI, which Qwen Code is forked from).

import { isPlainObject } from "../../values/index.js";
import type { Usage } from "../../store/index.js";
import { count, failedByTool, stderrErrorObject, toolError, type ToolOutput, type TurnReading } from "./tool-report.js";

/** Reads a Qwen Code turn from its JSON output (and stderr, where it reports errors before a result). */
export function readQwenCode({ stdout, stderr }: ToolOutput): TurnReading {
  const t = stdout.trim();
  if (t === "") {
    // A turn limit (and any error before the result) is reported on stderr only, as Gemini CLI does.
    const err = stderrErrorObject(stderr);
    if (err) {
      const raw = typeof err.message === "string" ? err.message : "no message";
      const type = typeof err.type === "string" ? `${err.type}: ` : "";
      return failedByTool({ ...toolError(raw), message: `${type}${raw}` }, {});
    }
    return { ok: false, error: "printed nothing on stdout" };
  }
  let messages: unknown;
  try {
    messages = JSON.parse(t);
  } catch (err) {
    return { ok: false, error: `printed output that is not valid JSON (${(err as Error).message}); it may have been cut short` };
  }
  if (!Array.isArray(messages)) return { ok: false, error: "printed JSON that is not an array of messages" };
  const r: unknown = messages[messages.length - 1];
  if (!isPlainObject(r) || r.type !== "result")
    return { ok: false, error: 'printed messages that do not end with a result ({"type": "result", …})' };
  const usage: Usage = {};
  if (isPlainObject(r.usage)) {
    const input = count(r.usage.input_tokens);
    const cached = count(r.usage.cache_read_input_tokens);
    const output = count(r.usage.output_tokens);
    if (input !== undefined) usage.input_tokens = input;
    if (cached !== undefined) usage.cached_input_tokens = cached;
    if (output !== undefined) usage.output_tokens = output;
  }
  const charged = Object.values(usage).some((v) => v > 0) ? usage : undefined;
  if (r.is_error === true || r.subtype !== "success") {
    const message =
      isPlainObject(r.error) && typeof r.error.message === "string" ? r.error.message : typeof r.result === "string" ? r.result : "";
    const kind = String(r.subtype ?? "error");
    return failedByTool({ ...toolError(message || kind), message: message ? `${kind}: ${message}` : kind }, usage);
  }
  if (typeof r.result !== "string")
    return { ok: false, error: 'printed a result without a "result" text', ...(charged ? { usage: charged } : {}) };
  return { ok: true, report: { reply: r.result, turns: count(r.num_turns), usage } };
}
