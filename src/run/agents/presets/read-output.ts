// Reads what an agent CLI printed for one turn: the reply text, the number of turns,
// tokens and cost, per the preset's output format (presets.ts cites each tool's documentation).
// The output is untrusted: anything that is not the documented shape is a clear failure of that
// instance naming the tool, never a guess. Token counts follow one convention whatever the tool:
// input_tokens includes cached_input_tokens.

import { isPlainObject } from "../../values/index.js";
import type { Usage } from "../../store/index.js";
import type { OutputFormat } from "./presets.js";
import { jsonEventLines } from "./json-lines.js";
import {
  count,
  failedByTool,
  innerMessage,
  parseJson,
  reported,
  stderrErrorObject,
  sumInto,
  toolError,
  type ToolOutput,
  type TurnReading,
} from "./tool-report.js";
import { readOpencode } from "./opencode-output.js";
import { readQwenCode } from "./qwen-code-output.js";

/**
 * `claude -p --output-format json`: one result object. Claude Code 2.1 exits 1 on every error
 * result and prints nothing on stderr: the turn limit is `subtype: "error_max_turns"` with
 * `errors: [...]` and no `result`; an API error is `subtype: "success"`, `is_error: true`,
 * `api_error_status`, `result: "API Error: …"`.
 */
function readClaude({ stdout }: ToolOutput): TurnReading {
  const j = parseJson(stdout);
  if (!j.ok) return j;
  const r = j.value;
  if (!isPlainObject(r) || r.type !== "result")
    return { ok: false, error: 'printed JSON that is not a result object ({"type": "result", …})' };
  const usage: Usage = {};
  if (isPlainObject(r.usage)) {
    const fresh = count(r.usage.input_tokens);
    const read = count(r.usage.cache_read_input_tokens);
    const written = count(r.usage.cache_creation_input_tokens);
    if (fresh !== undefined || read !== undefined || written !== undefined)
      usage.input_tokens = (fresh ?? 0) + (read ?? 0) + (written ?? 0);
    if (read !== undefined) usage.cached_input_tokens = read;
    sumInto(usage, "output_tokens", count(r.usage.output_tokens));
  }
  sumInto(usage, "cost_usd", count(r.total_cost_usd));
  if (r.is_error === true || (typeof r.subtype === "string" && r.subtype !== "success")) {
    const errors = Array.isArray(r.errors) ? r.errors.filter((e): e is string => typeof e === "string") : [];
    const text = errors.length > 0 ? errors.join("; ") : typeof r.result === "string" && r.result !== "" ? r.result : "no message";
    const status = count(r.api_error_status);
    const kind = status !== undefined ? `API error ${status}` : String(r.subtype ?? "error");
    return failedByTool({ ...toolError(text, status), message: `${kind}: ${text}` }, usage);
  }
  if (typeof r.result !== "string") return { ok: false, error: 'printed a result object without a "result" text', usage: reported(usage) };
  const refused = Array.isArray(r.permission_denials)
    ? r.permission_denials.filter(isPlainObject).map((d) => ({ tool: String(d.tool_name ?? "?"), input: d.tool_input ?? null }))
    : [];
  return { ok: true, report: { reply: r.result, turns: count(r.num_turns), usage, ...(refused.length > 0 ? { refused } : {}) } };
}

/**
 * `codex exec --json`: one JSON event per line. `item.started`, `file_change` and other items
 * are progress; an item of type `error` is a warning the turn goes on after; an `error` event
 * then `turn.failed` is the failure (exit 1). `turn.completed.usage.output_tokens` already
 * includes `reasoning_output_tokens`, and `input_tokens` includes the cached (read and written)
 * input, so neither is added again.
 */
function readCodex({ stdout }: ToolOutput): TurnReading {
  const usage: Usage = {};
  let reply: string | undefined;
  let turns = 0;
  let completed = false;
  let lastError: string | undefined;
  let failed: string | undefined;
  // A line that is not an event fails the reading before any usage is summed: Codex reports its
  // usage only in the last event, so an output cut short has none to charge anyway.
  const parsed = jsonEventLines(stdout);
  if (!parsed.ok) return parsed;
  for (const e of parsed.events) {
    if (e.type === "error" && typeof e.message === "string") lastError = e.message;
    if (e.type === "turn.failed") {
      const m = isPlainObject(e.error) ? e.error.message : undefined;
      failed = typeof m === "string" ? m : (lastError ?? "turn.failed without a message");
    }
    if (
      e.type === "item.completed" &&
      isPlainObject(e.item) &&
      (e.item.type === "agent_message" || e.item.item_type === "assistant_message")
    ) {
      if (typeof e.item.text === "string") reply = e.item.text;
    }
    if (e.type === "turn.completed") {
      completed = true;
      turns += 1;
      if (isPlainObject(e.usage)) {
        sumInto(usage, "input_tokens", count(e.usage.input_tokens));
        sumInto(usage, "cached_input_tokens", count(e.usage.cached_input_tokens));
        sumInto(usage, "output_tokens", count(e.usage.output_tokens));
      }
    }
  }
  const reason = failed ?? (completed ? undefined : lastError);
  if (reason !== undefined) {
    const message = innerMessage(reason);
    return failedByTool({ ...toolError(reason), message }, usage);
  }
  if (!completed)
    return { ok: false, error: 'ended without a "turn.completed" event; its output may have been cut short', usage: reported(usage) };
  return { ok: true, report: { reply: reply ?? "", turns, usage } };
}

/**
 * `gemini --output-format json`: {response, stats} on stdout. On an error Gemini CLI 0.61 prints
 * nothing on stdout and the error object on stderr, with no stats (so no usage is known), and
 * exits with the error's code (53 turn limit, 55 untrusted folder, 41 auth, HTTP status & 0xff).
 * `tokens.thoughts` are billed as output: output_tokens = candidates + thoughts.
 */
function readGemini({ stdout, stderr }: ToolOutput): TurnReading {
  if (stdout.trim() === "") {
    const err = stderrErrorObject(stderr);
    if (err) {
      const raw = typeof err.message === "string" ? err.message : "no message";
      const code = count(err.code);
      const type = typeof err.type === "string" ? `${err.type}: ` : "";
      return failedByTool(
        { ...toolError(raw, code !== undefined && code >= 100 ? code : undefined), message: `${type}${innerMessage(raw)}` },
        {},
      );
    }
  }
  const j = parseJson(stdout);
  if (!j.ok) return j;
  const r = j.value;
  if (!isPlainObject(r)) return { ok: false, error: "printed JSON that is not an object" };
  const usage: Usage = {};
  let turns: number | undefined;
  if (isPlainObject(r.stats) && isPlainObject(r.stats.models)) {
    for (const m of Object.values(r.stats.models)) {
      if (!isPlainObject(m)) continue;
      if (isPlainObject(m.tokens)) {
        sumInto(usage, "input_tokens", count(m.tokens.prompt));
        sumInto(usage, "cached_input_tokens", count(m.tokens.cached));
        sumInto(usage, "output_tokens", count(m.tokens.candidates));
        sumInto(usage, "output_tokens", count(m.tokens.thoughts));
      }
      if (isPlainObject(m.api)) {
        const n = count(m.api.totalRequests);
        if (n !== undefined) turns = (turns ?? 0) + n;
      }
    }
  }
  if (r.error !== undefined && r.error !== null) {
    const msg = isPlainObject(r.error) ? r.error.message : r.error;
    const raw = typeof msg === "string" ? msg : "no message";
    const code = isPlainObject(r.error) ? count(r.error.code) : undefined;
    return failedByTool({ ...toolError(raw, code !== undefined && code >= 100 ? code : undefined), message: innerMessage(raw) }, usage);
  }
  if (typeof r.response !== "string") return { ok: false, error: 'printed JSON without a "response" text', usage: reported(usage) };
  return { ok: true, report: { reply: r.response, turns, usage } };
}

/** "12k" → 12000, "1.5M" → 1500000. */
function tokenNumber(text: string): number {
  const m = /^([\d.,]+)([kKmM]?)$/.exec(text)!;
  const n = Number(m[1]!.replace(/,/g, ""));
  return Math.round(n * (m[2] === "" ? 1 : m[2]!.toLowerCase() === "k" ? 1e3 : 1e6));
}

const AIDER_TOKENS = /^Tokens:\s+(.*)$/;
const AIDER_SENT = /^([\d.,]+[kKmM]?) sent$/;
const AIDER_CACHE = /^([\d.,]+[kKmM]?) cache (hit|write)$/;
const AIDER_RECEIVED = /^([\d.,]+[kKmM]?) received\.?(?:\s+Cost:\s+\$([\d.]+) message(?:, \$[\d.]+ session)?\.?)?$/;

/**
 * aider prints no JSON: every model reply is followed by a report line
 * `Tokens: 12k sent, 2.1k cache hit, 133 received. Cost: $0.04 message, $0.10 session.`
 * Each line is one model call; they are summed. The reply text is stdout without those lines.
 */
function readAider({ stdout }: ToolOutput): TurnReading {
  const usage: Usage = {};
  const kept: string[] = [];
  let turns = 0;
  for (const raw of stdout.split("\n")) {
    const line = raw.trim();
    const t = AIDER_TOKENS.exec(line);
    if (!t) {
      kept.push(raw);
      continue;
    }
    const parts = t[1]!.split(/,\s+(?=[\d.,]+[kKmM]? (?:sent|cache|received))/);
    let sent: number | undefined;
    let received: number | undefined;
    let cost: number | undefined;
    let cached = 0;
    for (const part of parts) {
      let m: RegExpExecArray | null;
      if ((m = AIDER_SENT.exec(part))) sent = tokenNumber(m[1]!);
      else if ((m = AIDER_CACHE.exec(part))) {
        if (m[2] === "hit") cached += tokenNumber(m[1]!);
      } else if ((m = AIDER_RECEIVED.exec(part))) {
        received = tokenNumber(m[1]!);
        if (m[2] !== undefined) cost = Number(m[2]);
      }
    }
    if (sent === undefined || received === undefined)
      return { ok: false, error: `printed a token report that cannot be read: ${JSON.stringify(line.slice(0, 200))}` };
    turns += 1;
    sumInto(usage, "input_tokens", sent);
    sumInto(usage, "output_tokens", received);
    if (cached > 0) sumInto(usage, "cached_input_tokens", cached);
    sumInto(usage, "cost_usd", cost);
  }
  return { ok: true, report: { reply: kept.join("\n").trim(), turns, usage } };
}

export type { ToolError, ToolOutput, TurnReading, TurnReport } from "./tool-report.js";

/** The reader of each tool output format, by format. */
export const READERS: Readonly<Record<Exclude<OutputFormat, "switchyard">, (out: ToolOutput) => TurnReading>> = {
  "claude-json": readClaude,
  "codex-jsonl": readCodex,
  "gemini-json": readGemini,
  "aider-report": readAider,
  "opencode-jsonl": readOpencode,
  "qwen-json": readQwenCode,
};
