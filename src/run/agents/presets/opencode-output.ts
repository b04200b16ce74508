// Reads `opencode run --format json`: one JSON event per line, recorded from opencode-ai
// 1.18.33 in test/fixtures/real-agents/. Each model call is a step: `step_start`, the step's `text`
// and `tool_use` events, then `step_finish` with `part.tokens {input, output, reasoning,
// cache: {read, write}}` and `part.cost`. A failed call is an `error` event (`error.name`,
// `error.data.message`, `error.data.statusCode`) and the exit status 1. `tokens.input` leaves out
// the cache; reasoning is billed as output, so it is added to output_tokens.

import { isPlainObject } from "../../values/index.js";
import type { Usage } from "../../store/index.js";
import { failedByTool, toolError, type ToolOutput, type TurnReading, type ToolError } from "./tool-report.js";
import { jsonEventLines } from "./json-lines.js";

const count = (x: unknown): number => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : 0);

/** Reads an opencode turn from its JSON-lines output: the reply, usage and cost, or the tool's error. */
export function readOpencode({ stdout }: ToolOutput): TurnReading {
  const parsed = jsonEventLines(stdout);
  if (!parsed.ok) return parsed;
  const usage: Usage = {};
  let cost = 0;
  let steps = 0;
  /** The text of the current step (the reply is the last step's). */
  let texts: string[] = [];
  let reply: string[] = [];
  let failure: ToolError | undefined;
  for (const e of parsed.events) {
    const part = isPlainObject(e.part) ? e.part : {};
    if (e.type === "step_start") texts = [];
    else if (e.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (e.type === "step_finish") {
      steps += 1;
      reply = texts;
      if (isPlainObject(part.tokens)) {
        const t = part.tokens;
        const cache = isPlainObject(t.cache) ? t.cache : {};
        usage.input_tokens = (usage.input_tokens ?? 0) + count(t.input) + count(cache.read) + count(cache.write);
        usage.cached_input_tokens = (usage.cached_input_tokens ?? 0) + count(cache.read);
        usage.output_tokens = (usage.output_tokens ?? 0) + count(t.output) + count(t.reasoning);
      }
      cost += count(part.cost);
    } else if (e.type === "error") {
      const err = isPlainObject(e.error) ? e.error : {};
      const data = isPlainObject(err.data) ? err.data : {};
      const message = typeof data.message === "string" ? data.message : typeof err.name === "string" ? err.name : "an error";
      const status = typeof data.statusCode === "number" ? data.statusCode : undefined;
      failure = { ...toolError(message, status), message: `${message}${status !== undefined ? ` (HTTP ${status})` : ""}` };
    }
  }
  // opencode prices a call only when it knows the model's prices; 0 is "not priced", not "free".
  if (cost > 0) usage.cost_usd = cost;
  if (failure !== undefined) return failedByTool(failure, usage);
  if (steps === 0) return { ok: false, error: 'ended without a "step_finish" event; its output may have been cut short' };
  return { ok: true, report: { reply: reply.join("\n"), turns: steps, usage } };
}
