// Reads what an agent CLI printed for one turn (issue 12): the reply text, the number of turns,
// tokens and cost, per the preset's output format (presets.ts cites each tool's documentation).
// The output is untrusted: anything that is not the documented shape is a clear failure of that
// instance naming the tool, never a guess. Token counts follow one convention whatever the tool:
// input_tokens includes cached_input_tokens.

import { isPlainObject } from "../values.js";
import type { Usage } from "../judge.js";
import type { OutputFormat } from "./presets.js";

export interface TurnReport {
  reply: string;
  turns?: number;
  usage: Usage;
  /** Tools the agent asked for and was refused (Claude Code's `permission_denials`). */
  refused?: Array<{ tool: string; input: unknown }>;
}

/** What the tool left for one turn: stdout, stderr (the tail of the instance log) and exit status. */
export interface ToolOutput {
  stdout: string;
  stderr: string;
  /** null when it was killed by a signal. */
  exit: number | null;
}

/** The tool's own report that the turn failed (its message, in its words). */
export interface ToolError {
  message: string;
  /** Set when the error is a rate limit or an overload (HTTP 429/529): worth retrying later. */
  rateLimit?: { delayMs?: number };
}

/**
 * A failed reading keeps the usage the tool did report: a failed turn is paid for too. With
 * `toolError`, the tool ran and reported the failure itself; without, its output is not a report.
 */
export type TurnReading = { ok: true; report: TurnReport } | { ok: false; error: string; usage?: Usage; toolError?: ToolError };

const reported = (u: Usage): Usage | undefined => (Object.keys(u).length > 0 ? u : undefined);

const count = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined);

function sumInto(u: Usage, field: keyof Usage, v: number | undefined): void {
  if (v !== undefined) u[field] = (u[field] ?? 0) + v;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const t = text.trim();
  if (t === "") return { ok: false, error: "printed nothing on stdout" };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch (err) {
    return { ok: false, error: `printed output that is not valid JSON (${(err as Error).message}); it may have been cut short` };
  }
}

const RATE_LIMITED = /\b(429|529)\b|rate[ _-]?limit|too many requests|overloaded|resource[ _]exhausted/i;
const DELAYS: ReadonlyArray<[RegExp, number]> = [
  [/retry[ _-]?after["':\s]*(\d+(?:\.\d+)?)\s*(ms\b)?/i, 1000],
  [/(?:try again|retry) in (\d+(?:\.\d+)?)\s*(ms\b)?/i, 1000],
  [/"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/, 1000],
];

/**
 * The tool's error, flagged as a rate limit when its HTTP status (or, lacking one, its text) says
 * 429, 529, "rate limit", "too many requests", "overloaded" or RESOURCE_EXHAUSTED; the delay it
 * asks for (Retry-After, "try again in 20s", Google's retryDelay) when it names one.
 */
export function toolError(message: string, status?: number): ToolError {
  const limited = status !== undefined ? status === 429 || status === 529 : RATE_LIMITED.test(message);
  if (!limited) return { message };
  for (const [re, unit] of DELAYS) {
    const m = re.exec(message);
    if (m) return { message, rateLimit: { delayMs: Math.round(Number(m[1]) * (m[2] ? 1 : unit)) } };
  }
  return { message, rateLimit: {} };
}

const clip = (text: string): string => (text.length > 500 ? `${text.slice(0, 500)}…` : text);

/** A JSON error body inside a message (`{"error": {"message": …}}`) read down to its message. */
function innerMessage(text: string): string {
  try {
    const j: unknown = JSON.parse(text);
    if (isPlainObject(j) && isPlainObject(j.error) && typeof j.error.message === "string") return j.error.message;
  } catch {
    // not JSON: the text is the message
  }
  return text;
}

function failedByTool(err: ToolError, usage: Usage): TurnReading {
  return {
    ok: false,
    error: `reported an error: ${clip(err.message)}`,
    toolError: { ...err, message: clip(err.message) },
    usage: reported(usage),
  };
}

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
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) return { ok: false, error: "printed no JSON events on stdout" };
  for (const [i, line] of lines.entries()) {
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch (err) {
      return {
        ok: false,
        error: `printed line ${i + 1} that is not a JSON event (${(err as Error).message}); it may have been cut short`,
        usage: reported(usage),
      };
    }
    if (!isPlainObject(e) || typeof e.type !== "string")
      return { ok: false, error: `printed line ${i + 1} that is not an event with a "type"`, usage: reported(usage) };
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
 * Gemini CLI's error object on stderr: `{"session_id", "error": {"type", "message", "code"}}`,
 * pretty-printed from a line holding only "{" (possibly "[ERROR] {") to one holding only "}".
 */
function geminiStderrError(stderr: string): Record<string, unknown> | undefined {
  const lines = stderr.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^(\[ERROR\] )?\{\s*$/.test(lines[i]!)) continue;
    const end = lines.indexOf("}", i + 1);
    if (end < 0) break;
    try {
      const j: unknown = JSON.parse(["{", ...lines.slice(i + 1, end + 1)].join("\n"));
      if (isPlainObject(j) && isPlainObject(j.error)) return j.error;
    } catch {
      // not the error object: look further
    }
    i = end;
  }
  return undefined;
}

/**
 * `gemini --output-format json`: {response, stats} on stdout. On an error Gemini CLI 0.61 prints
 * nothing on stdout and the error object on stderr, with no stats (so no usage is known), and
 * exits with the error's code (53 turn limit, 55 untrusted folder, 41 auth, HTTP status & 0xff).
 * `tokens.thoughts` are billed as output: output_tokens = candidates + thoughts.
 */
function readGemini({ stdout, stderr }: ToolOutput): TurnReading {
  if (stdout.trim() === "") {
    const err = geminiStderrError(stderr);
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

export const READERS: Readonly<Record<Exclude<OutputFormat, "switchyard">, (out: ToolOutput) => TurnReading>> = {
  "claude-json": readClaude,
  "codex-jsonl": readCodex,
  "gemini-json": readGemini,
  "aider-report": readAider,
};
