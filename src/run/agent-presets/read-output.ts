// Reads what an agent CLI printed for one turn (issue 12): the reply text, the number of turns,
// tokens and cost, per the preset's output format (presets.ts cites each tool's documentation).
// The output is untrusted: anything that is not the documented shape is a clear failure of that
// instance naming the tool, never a guess. Token counts follow one convention whatever the tool:
// input_tokens includes cached_input_tokens.

import { isPlainObject } from "../values.js";
import type { Usage } from "../judge.js";
import type { OutputFormat } from "./presets.js";
import { jsonEventLines } from "./json-lines.js";
import { readOpencode } from "./opencode-output.js";
import { readQwenCode } from "./qwen-code-output.js";

export interface TurnReport {
  reply: string;
  turns?: number;
  usage: Usage;
}

/** A failed reading keeps the usage the tool did report: a failed turn is paid for too. */
export type TurnReading = { ok: true; report: TurnReport } | { ok: false; error: string; usage?: Usage };

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

/** `claude -p --output-format json`: one result object. */
function readClaude(stdout: string): TurnReading {
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
    const what = typeof r.result === "string" && r.result !== "" ? `: ${r.result.slice(0, 300)}` : "";
    return { ok: false, error: `reported an error (subtype ${JSON.stringify(r.subtype ?? "error")})${what}`, usage: reported(usage) };
  }
  if (typeof r.result !== "string") return { ok: false, error: 'printed a result object without a "result" text', usage: reported(usage) };
  return { ok: true, report: { reply: r.result, turns: count(r.num_turns), usage } };
}

/** `codex exec --json`: one JSON event per line. */
function readCodex(stdout: string): TurnReading {
  const usage: Usage = {};
  let reply: string | undefined;
  let turns = 0;
  let completed = false;
  const parsed = jsonEventLines(stdout);
  if (!parsed.ok) return parsed;
  for (const e of parsed.events) {
    if (e.type === "turn.failed" || e.type === "error") {
      const err = isPlainObject(e.error) ? e.error.message : e.message;
      return { ok: false, error: `reported ${e.type}${typeof err === "string" ? `: ${err.slice(0, 300)}` : ""}`, usage: reported(usage) };
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
  if (!completed) return { ok: false, error: 'ended without a "turn.completed" event; its output may have been cut short' };
  return { ok: true, report: { reply: reply ?? "", turns, usage } };
}

/** `gemini --output-format json`: {response, stats, error?}. */
function readGemini(stdout: string): TurnReading {
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
      }
      if (isPlainObject(m.api)) {
        const n = count(m.api.totalRequests);
        if (n !== undefined) turns = (turns ?? 0) + n;
      }
    }
  }
  if (r.error !== undefined && r.error !== null) {
    const msg = isPlainObject(r.error) ? r.error.message : r.error;
    return { ok: false, error: `reported an error${typeof msg === "string" ? `: ${msg.slice(0, 300)}` : ""}`, usage: reported(usage) };
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
function readAider(stdout: string): TurnReading {
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

export const READERS: Readonly<Record<Exclude<OutputFormat, "switchyard">, (stdout: string) => TurnReading>> = {
  "claude-json": readClaude,
  "codex-jsonl": readCodex,
  "gemini-json": readGemini,
  "aider-report": readAider,
  "opencode-jsonl": readOpencode,
  "qwen-json": readQwenCode,
};
