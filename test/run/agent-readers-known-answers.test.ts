// The agent presets' output readers on known answers: each tool's recorded output
// (test/fixtures/real-agents/, captured from the real CLIs) and outputs written by hand at the
// readers' edges — a JSON-lines output cut short, a turn that failed after a warning, an error code
// exactly at 100 and one below, a report line exactly 500 characters long and one longer, a rate
// limit's delay in seconds and in milliseconds. Every figure below is worked out by hand from the
// recorded text and the rules each reader's comment cites (input_tokens includes cached input;
// reasoning and thoughts are billed as output), never by running the readers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { READERS, type TurnReading } from "../../src/run/agents/presets/read-output.js";
import { jsonEventLines } from "../../src/run/agents/presets/json-lines.js";
import { clip, stderrErrorObject, toolError } from "../../src/run/agents/presets/tool-report.js";

const recorded = (name: string, stream: "stdout" | "stderr"): string =>
  readFileSync(`test/fixtures/real-agents/${name}.${stream}.txt`, "utf8");

function read(format: keyof typeof READERS, name: string): TurnReading {
  return READERS[format]({ stdout: recorded(name, "stdout"), stderr: recorded(name, "stderr"), exit: 0 });
}

const lines = (...events: unknown[]): string => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

test("Claude Code's recorded success: input 600 + cache read 3000 + cache written 0 = 3600, cached 3000, output 90, $0.00405, 3 turns", () => {
  assert.deepEqual(read("claude-json", "claude-2.1.197-success"), {
    ok: true,
    report: {
      reply: "DONE: RESULT.json, sub/dir/note.txt",
      turns: 3,
      usage: { input_tokens: 3600, cached_input_tokens: 3000, output_tokens: 90, cost_usd: 0.00405 },
    },
  });
});

test("Claude Code's recorded turn limit: errors[] is the message, the subtype its kind, usage 12000/10000/300 still charged", () => {
  const message = "error_max_turns: Reached maximum number of turns (10)";
  assert.deepEqual(read("claude-json", "claude-2.1.197-error-max-turns"), {
    ok: false,
    error: `reported an error: ${message}`,
    toolError: { message },
    usage: { input_tokens: 12000, cached_input_tokens: 10000, output_tokens: 300, cost_usd: 0.013500000000000003 },
  });
});

test("Claude Code's recorded API error 400: subtype success with is_error, the result text is the message, zero usage kept", () => {
  const message = "API error 400: API Error: 400 mock failure 400";
  assert.deepEqual(read("claude-json", "claude-2.1.197-api-error-400"), {
    ok: false,
    error: `reported an error: ${message}`,
    toolError: { message },
    usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, cost_usd: 0 },
  });
});

test("Claude Code's recorded permission denial: the refused tool and its input, 4 turns, input 800 + 4000", () => {
  assert.deepEqual(read("claude-json", "claude-2.1.197-permission-denied"), {
    ok: true,
    report: {
      reply: 'DONE: ran mkdir made-by-mkdir, ran echo hi > viabash.txt, ran python3 -c "print(1)"',
      turns: 4,
      usage: { input_tokens: 4800, cached_input_tokens: 4000, output_tokens: 120, cost_usd: 0.0054 },
      refused: [{ tool: "Bash", input: { command: 'python3 -c "print(1)"', description: "run a command" } }],
    },
  });
});

test("Claude Code's edges: an error subtype without errors or result, only cache written, a missing result, not a result object", () => {
  const claude = (r: unknown) => READERS["claude-json"]({ stdout: JSON.stringify(r), stderr: "", exit: 1 });
  // is_error false but a subtype other than success is still a failure; no text at all is "no message".
  assert.deepEqual(claude({ type: "result", subtype: "error_during_execution", is_error: false }), {
    ok: false,
    error: "reported an error: error_during_execution: no message",
    toolError: { message: "error_during_execution: no message" },
    usage: undefined,
  });
  // An empty errors[] and an empty result: still "no message"; is_error without a subtype is "error".
  assert.deepEqual(claude({ type: "result", is_error: true, errors: [], result: "" }), {
    ok: false,
    error: "reported an error: error: no message",
    toolError: { message: "error: no message" },
    usage: undefined,
  });
  // Two string errors joined, a non-string one dropped; a 429 status is a rate limit.
  assert.deepEqual(claude({ type: "result", is_error: true, errors: ["a", 7, "b"], api_error_status: 429 }), {
    ok: false,
    error: "reported an error: API error 429: a; b",
    toolError: { message: "API error 429: a; b", rateLimit: {} },
    usage: undefined,
  });
  // Only cache-written tokens: input is 0 + 0 + 50, nothing cached, no output.
  assert.deepEqual(claude({ type: "result", subtype: "success", result: "ok", usage: { cache_creation_input_tokens: 50 } }), {
    ok: true,
    report: { reply: "ok", turns: undefined, usage: { input_tokens: 50 } },
  });
  // A usage object with none of the counts (or negative ones) charges nothing.
  assert.deepEqual(claude({ type: "result", subtype: "success", result: "ok", usage: { input_tokens: -1 }, num_turns: 0 }), {
    ok: true,
    report: { reply: "ok", turns: 0, usage: {} },
  });
  assert.deepEqual(claude({ type: "result", subtype: "success", usage: { output_tokens: 5 } }), {
    ok: false,
    error: 'printed a result object without a "result" text',
    usage: { output_tokens: 5 },
  });
  assert.deepEqual(claude({ type: "result", subtype: "success" }), {
    ok: false,
    error: 'printed a result object without a "result" text',
    usage: undefined,
  });
  assert.deepEqual(claude({ type: "assistant" }), {
    ok: false,
    error: 'printed JSON that is not a result object ({"type": "result", …})',
  });
  assert.deepEqual(claude([]), { ok: false, error: 'printed JSON that is not a result object ({"type": "result", …})' });
  assert.deepEqual(READERS["claude-json"]({ stdout: "  \n", stderr: "", exit: 1 }), { ok: false, error: "printed nothing on stdout" });
  const cut = READERS["claude-json"]({ stdout: '{"type": "res', stderr: "", exit: 1 });
  assert.equal(cut.ok, false);
  assert.match(!cut.ok ? cut.error : "", /^printed output that is not valid JSON \(.+\); it may have been cut short$/);
  // A denial without a tool name is "?" with a null input; a denial that is not an object is dropped.
  const refused = claude({
    type: "result",
    subtype: "success",
    result: "r",
    permission_denials: [{}, "x", { tool_name: "Edit", tool_input: 1 }],
  });
  assert.deepEqual(refused.ok && refused.report.refused, [
    { tool: "?", input: null },
    { tool: "Edit", input: 1 },
  ]);
});

test("Codex's recorded success: the item error is a warning, 1 turn, input 2400 (cached 2000 included), output 74 (reasoning included)", () => {
  assert.deepEqual(read("codex-jsonl", "codex-0.171.0-success-shell"), {
    ok: true,
    report: { reply: "DONE: RESULT.json", turns: 1, usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 74 } },
  });
});

test("Codex's recorded API errors: turn.failed's message, read down to the JSON body's message", () => {
  assert.deepEqual(read("codex-jsonl", "codex-0.171.0-api-error-400"), {
    ok: false,
    error: "reported an error: mock failure 400",
    toolError: { message: "mock failure 400" },
    usage: undefined,
  });
  const busy = "We’re currently experiencing high demand, which may cause temporary errors.";
  assert.deepEqual(read("codex-jsonl", "codex-0.171.0-api-error-500"), {
    ok: false,
    error: `reported an error: ${busy}`,
    toolError: { message: busy },
    usage: undefined,
  });
});

test("Codex's edges: an error event before a completed turn, a failure without a message, two turns summed, a cut-short output", () => {
  const codex = (...events: unknown[]) => READERS["codex-jsonl"]({ stdout: lines(...events), stderr: "", exit: 0 });
  const done = (input: number, output: number) => ({ type: "turn.completed", usage: { input_tokens: input, output_tokens: output } });
  // An error event the turn went on after is not a failure once the turn completed.
  assert.deepEqual(
    codex({ type: "error", message: "reconnecting" }, { type: "item.completed", item: { type: "agent_message", text: "hi" } }, done(1, 2)),
    {
      ok: true,
      report: { reply: "hi", turns: 1, usage: { input_tokens: 1, output_tokens: 2 } },
    },
  );
  // Without a completed turn, the last error event is the failure.
  assert.deepEqual(codex({ type: "error", message: "first" }, { type: "error", message: "stream lost" }), {
    ok: false,
    error: "reported an error: stream lost",
    toolError: { message: "stream lost" },
    usage: undefined,
  });
  // turn.failed without a message takes the last error event's, or says there was none.
  assert.deepEqual(codex({ type: "error", message: "quota" }, { type: "turn.failed", error: {} }), {
    ok: false,
    error: "reported an error: quota",
    toolError: { message: "quota" },
    usage: undefined,
  });
  // Only an error event with a message is remembered: not another event, not a message that is not text.
  assert.deepEqual(
    codex(
      { type: "error", message: "quota" },
      { type: "turn.started", message: "not an error" },
      { type: "error", message: 42 },
      { type: "turn.failed", error: {} },
    ),
    { ok: false, error: "reported an error: quota", toolError: { message: "quota" }, usage: undefined },
  );
  assert.deepEqual(codex({ type: "turn.failed" }), {
    ok: false,
    error: "reported an error: turn.failed without a message",
    toolError: { message: "turn.failed without a message" },
    usage: undefined,
  });
  // A failed turn after a completed one keeps the completed turn's usage, and fails.
  assert.deepEqual(codex(done(10, 3), { type: "turn.failed", error: { message: "Rate limit reached; try again in 1.5s" } }), {
    ok: false,
    error: "reported an error: Rate limit reached; try again in 1.5s",
    toolError: { message: "Rate limit reached; try again in 1.5s", rateLimit: { delayMs: 1500 } },
    usage: { input_tokens: 10, output_tokens: 3 },
  });
  // Two completed turns: their usage summed; the older item_type assistant_message is a reply too,
  // and the last reply wins; an item whose text is not a string leaves the reply as it was.
  assert.deepEqual(
    codex(
      { type: "item.completed", item: { type: "agent_message", text: "first" } },
      { type: "turn.completed", usage: { input_tokens: 100, cached_input_tokens: 40, output_tokens: 7 } },
      { type: "item.completed", item: { item_type: "assistant_message", text: "second" } },
      { type: "item.completed", item: { type: "agent_message", text: 3 } },
      { type: "item.completed", item: { type: "reasoning", text: "thinking" } },
      { type: "turn.completed", usage: { input_tokens: 200, cached_input_tokens: 60, output_tokens: 8 } },
    ),
    { ok: true, report: { reply: "second", turns: 2, usage: { input_tokens: 300, cached_input_tokens: 100, output_tokens: 15 } } },
  );
  // A completed turn with no agent message is an empty reply.
  assert.deepEqual(codex({ type: "turn.completed" }), { ok: true, report: { reply: "", turns: 1, usage: {} } });
  assert.deepEqual(codex({ type: "turn.started" }, { type: "item.completed", item: { type: "agent_message", text: "x" } }), {
    ok: false,
    error: 'ended without a "turn.completed" event; its output may have been cut short',
    usage: undefined,
  });
});

test("JSON-lines events: nothing printed, blank lines skipped, the failing line named by its number, a line without a type", () => {
  assert.deepEqual(jsonEventLines(""), { ok: false, error: "printed no JSON events on stdout" });
  assert.deepEqual(jsonEventLines(" \n\n"), { ok: false, error: "printed no JSON events on stdout" });
  assert.deepEqual(jsonEventLines('\n{"type":"a"}\n  \n{"type":"b","n":1}\n'), {
    ok: true,
    events: [{ type: "a" }, { type: "b", n: 1 }],
  });
  const cut = jsonEventLines('{"type":"a"}\n{"type":"b"}\n{"type":"c"');
  assert.equal(cut.ok, false);
  assert.match(!cut.ok ? cut.error : "", /^printed line 3 that is not a JSON event \(.+\); it may have been cut short$/);
  assert.deepEqual(jsonEventLines('{"type":"a"}\n{"kind":"b"}'), { ok: false, error: 'printed line 2 that is not an event with a "type"' });
  assert.deepEqual(jsonEventLines('{"type":7}'), { ok: false, error: 'printed line 1 that is not an event with a "type"' });
  assert.deepEqual(jsonEventLines('["type"]'), { ok: false, error: 'printed line 1 that is not an event with a "type"' });
});

test("Gemini CLI's recorded success: prompt 2400 (cached 2000 included), output 60 candidates + 14 thoughts = 74, 2 requests", () => {
  assert.deepEqual(read("gemini-json", "gemini-0.61.0-success"), {
    ok: true,
    report: { reply: "DONE: RESULT.json", turns: 2, usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 74 } },
  });
});

test("Gemini CLI's recorded errors on stderr: the turn limit (code 53) and an API error 400 read down to its message", () => {
  const limit =
    "FatalTurnLimitedError: Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.";
  assert.deepEqual(read("gemini-json", "gemini-0.61.0-turn-limit"), {
    ok: false,
    error: `reported an error: ${limit}`,
    toolError: { message: limit },
    usage: undefined,
  });
  assert.deepEqual(read("gemini-json", "gemini-0.61.0-api-error-400"), {
    ok: false,
    error: "reported an error: Error: mock failure 400",
    toolError: { message: "Error: mock failure 400" },
    usage: undefined,
  });
  // The untrusted-folder refusal prints no error object and nothing on stdout.
  assert.deepEqual(read("gemini-json", "gemini-0.61.0-untrusted-folder"), { ok: false, error: "printed nothing on stdout" });
});

test("Gemini CLI's error code is an HTTP status from 100 up: 99 leaves the rate limit to the text, 100 and 429 decide it", () => {
  const onStderr = (code: number, message: string) =>
    READERS["gemini-json"]({ stdout: "", stderr: `noise\n{\n  "error": {"message": "${message}", "code": ${code}}\n}\n`, exit: 1 });
  const at99 = onStderr(99, "rate limit hit");
  assert.deepEqual(!at99.ok && at99.toolError, { message: "rate limit hit", rateLimit: {} });
  const at100 = onStderr(100, "rate limit hit");
  assert.deepEqual(!at100.ok && at100.toolError, { message: "rate limit hit" });
  const at429 = onStderr(429, "slow down");
  assert.deepEqual(!at429.ok && at429.toolError, { message: "slow down", rateLimit: {} });
  // The same boundary for an error object on stdout, whose usage is still charged.
  const onStdout = (code: number, message: string) =>
    READERS["gemini-json"]({
      stdout: JSON.stringify({ stats: { models: { m: { tokens: { prompt: 5 } } } }, error: { message, code } }),
      stderr: "",
      exit: 1,
    });
  assert.deepEqual(onStdout(99, "too many requests"), {
    ok: false,
    error: "reported an error: too many requests",
    toolError: { message: "too many requests", rateLimit: {} },
    usage: { input_tokens: 5 },
  });
  assert.deepEqual(onStdout(100, "too many requests"), {
    ok: false,
    error: "reported an error: too many requests",
    toolError: { message: "too many requests" },
    usage: { input_tokens: 5 },
  });
});

test("Gemini CLI's edges: two models summed, an error string, an error without a message, no response, not an object", () => {
  const gemini = (r: unknown, stderr = "") => READERS["gemini-json"]({ stdout: JSON.stringify(r), stderr, exit: 0 });
  const model = (prompt: number, cached: number, candidates: number, thoughts: number, requests: number) => ({
    tokens: { prompt, cached, candidates, thoughts },
    api: { totalRequests: requests },
  });
  assert.deepEqual(gemini({ response: "r", stats: { models: { a: model(100, 10, 5, 1, 1), b: model(50, 0, 2, 3, 2), c: "x" } } }), {
    ok: true,
    report: { reply: "r", turns: 3, usage: { input_tokens: 150, cached_input_tokens: 10, output_tokens: 11 } },
  });
  // A model without api counts reports no turns.
  assert.deepEqual(gemini({ response: "r", stats: { models: { a: { tokens: { candidates: 4 } } } } }), {
    ok: true,
    report: { reply: "r", turns: undefined, usage: { output_tokens: 4 } },
  });
  assert.deepEqual(gemini({ response: "r", error: null }), { ok: true, report: { reply: "r", turns: undefined, usage: {} } });
  assert.deepEqual(gemini({ error: "overloaded" }), {
    ok: false,
    error: "reported an error: overloaded",
    toolError: { message: "overloaded", rateLimit: {} },
    usage: undefined,
  });
  assert.deepEqual(gemini({ error: { code: 500 } }), {
    ok: false,
    error: "reported an error: no message",
    toolError: { message: "no message" },
    usage: undefined,
  });
  assert.deepEqual(gemini({ response: 1 }), { ok: false, error: 'printed JSON without a "response" text', usage: undefined });
  assert.deepEqual(gemini([1]), { ok: false, error: "printed JSON that is not an object" });
  // An error object on stderr without a message or type; and one whose stdout is not empty is not read.
  assert.deepEqual(READERS["gemini-json"]({ stdout: "", stderr: '{\n"error": {}\n}', exit: 1 }), {
    ok: false,
    error: "reported an error: no message",
    toolError: { message: "no message" },
    usage: undefined,
  });
  assert.deepEqual(gemini({ response: "fine" }, '{\n"error": {"message": "ignored"}\n}'), {
    ok: true,
    report: { reply: "fine", turns: undefined, usage: {} },
  });
});

test("aider's token report lines: 12k sent, 2.1k cache hit, 133 received, $0.04 — two calls summed, the reply without them", () => {
  const stdout = [
    "I changed a.txt.",
    "Tokens: 12k sent, 2.1k cache hit, 133 received. Cost: $0.04 message, $0.10 session.",
    "Then b.txt.",
    "  Tokens: 1,500 sent, 1.5M cache write, 2k received.",
    "",
  ].join("\n");
  assert.deepEqual(READERS["aider-report"]({ stdout, stderr: "", exit: 0 }), {
    ok: true,
    report: {
      reply: "I changed a.txt.\nThen b.txt.",
      turns: 2,
      usage: { input_tokens: 13500, output_tokens: 2133, cached_input_tokens: 2100, cost_usd: 0.04 },
    },
  });
  // 1.5M and a cost on the second line too: 0.04 + 0.06; "1.5m" is a million and a half.
  const two = "Tokens: 1.5m sent, 10 received. Cost: $0.04 message.\nTokens: 1K sent, 1 received. Cost: $0.06 message, $0.10 session.";
  assert.deepEqual(READERS["aider-report"]({ stdout: two, stderr: "", exit: 0 }), {
    ok: true,
    report: { reply: "", turns: 2, usage: { input_tokens: 1501000, output_tokens: 11, cost_usd: 0.1 } },
  });
  assert.deepEqual(READERS["aider-report"]({ stdout: "no report\n", stderr: "", exit: 0 }), {
    ok: true,
    report: { reply: "no report", turns: 0, usage: {} },
  });
  // A line that only mentions a report is reply text; a report whose figures are not bare counts cannot be read.
  assert.deepEqual(READERS["aider-report"]({ stdout: "Note Tokens: 5 sent, 1 received.", stderr: "", exit: 0 }), {
    ok: true,
    report: { reply: "Note Tokens: 5 sent, 1 received.", turns: 0, usage: {} },
  });
  assert.deepEqual(READERS["aider-report"]({ stdout: "Tokens: about 5 sent, 1 received.", stderr: "", exit: 0 }), {
    ok: false,
    error: 'printed a token report that cannot be read: "Tokens: about 5 sent, 1 received."',
  });
  assert.deepEqual(READERS["aider-report"]({ stdout: "Tokens: 5 sent, 1 received. Cost: $0.01 message. And more", stderr: "", exit: 0 }), {
    ok: false,
    error: 'printed a token report that cannot be read: "Tokens: 5 sent, 1 received. Cost: $0.01 message. And more"',
  });
  assert.deepEqual(READERS["aider-report"]({ stdout: "Tokens: 5 received.", stderr: "", exit: 0 }), {
    ok: false,
    error: 'printed a token report that cannot be read: "Tokens: 5 received."',
  });
  assert.deepEqual(READERS["aider-report"]({ stdout: "Tokens: 5 sent", stderr: "", exit: 0 }), {
    ok: false,
    error: 'printed a token report that cannot be read: "Tokens: 5 sent"',
  });
});

test("opencode's recorded success: two steps of input 200 + cache read 1000, output 30 + reasoning 7; cost 0 is not priced", () => {
  assert.deepEqual(read("opencode-jsonl", "opencode-1.18.33-success"), {
    ok: true,
    report: { reply: "DONE: RESULT.json", turns: 2, usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 74 } },
  });
  assert.deepEqual(read("opencode-jsonl", "opencode-1.18.33-permission-rejected"), {
    ok: true,
    report: { reply: "", turns: 1, usage: { input_tokens: 1200, cached_input_tokens: 1000, output_tokens: 37 } },
  });
});

test("opencode's recorded API error 400: error.data.message with its HTTP status", () => {
  assert.deepEqual(read("opencode-jsonl", "opencode-1.18.33-api-error-400"), {
    ok: false,
    error: "reported an error: scripted failure 400 (HTTP 400)",
    toolError: { message: "scripted failure 400 (HTTP 400)" },
    usage: undefined,
  });
});

test("opencode's edges: the last step's texts are the reply, cache written counts as input, a priced call, errors by name", () => {
  const opencode = (...events: unknown[]) => READERS["opencode-jsonl"]({ stdout: lines(...events), stderr: "", exit: 0 });
  const finish = (tokens: unknown, cost?: number) => ({ type: "step_finish", part: { tokens, ...(cost !== undefined ? { cost } : {}) } });
  assert.deepEqual(
    opencode(
      { type: "step_start" },
      { type: "text", part: { text: "old" } },
      finish({ input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } }, 0.25),
      { type: "step_start" },
      { type: "text", part: { text: "a" } },
      { type: "text", part: { text: 9 } },
      { type: "text", part: { text: "b" } },
      finish({ input: 10, output: -1, cache: "x" }, -3),
    ),
    {
      ok: true,
      report: { reply: "a\nb", turns: 2, usage: { input_tokens: 20, cached_input_tokens: 4, output_tokens: 5, cost_usd: 0.25 } },
    },
  );
  // A step without tokens counts a turn and charges nothing.
  assert.deepEqual(opencode({ type: "step_finish" }), { ok: true, report: { reply: "", turns: 1, usage: {} } });
  assert.deepEqual(opencode({ type: "step_start" }, { type: "text", part: { text: "x" } }), {
    ok: false,
    error: 'ended without a "step_finish" event; its output may have been cut short',
  });
  assert.deepEqual(opencode({ type: "error", error: { name: "ProviderAuthError" } }), {
    ok: false,
    error: "reported an error: ProviderAuthError",
    toolError: { message: "ProviderAuthError" },
    usage: undefined,
  });
  assert.deepEqual(opencode(finish({ input: 3 }), { type: "error", error: { data: { message: "slow down", statusCode: 429 } } }), {
    ok: false,
    error: "reported an error: slow down (HTTP 429)",
    toolError: { message: "slow down (HTTP 429)", rateLimit: {} },
    usage: { input_tokens: 3, cached_input_tokens: 0, output_tokens: 0 },
  });
  assert.deepEqual(opencode({ type: "error" }), {
    ok: false,
    error: "reported an error: an error",
    toolError: { message: "an error" },
    usage: undefined,
  });
});

test("Qwen Code's recorded success, turn limit and API error", () => {
  assert.deepEqual(read("qwen-json", "qwen-code-0.24.4-success"), {
    ok: true,
    report: { reply: "DONE: RESULT.json", turns: 2, usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 74 } },
  });
  const limit =
    "FatalTurnLimitedError: Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.";
  assert.deepEqual(read("qwen-json", "qwen-code-0.24.4-turn-limit"), {
    ok: false,
    error: `reported an error: ${limit}`,
    toolError: { message: limit },
    usage: undefined,
  });
  const failed = "error_during_execution: [API Error: 400 scripted failure 400]";
  assert.deepEqual(read("qwen-json", "qwen-code-0.24.4-api-error-400"), {
    ok: false,
    error: `reported an error: ${failed}`,
    toolError: { message: failed },
    usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 },
  });
});

test("Qwen Code's edges: nothing printed, not JSON, not an array, no result last, an error without a message, no result text", () => {
  const qwen = (stdout: string, stderr = "") => READERS["qwen-json"]({ stdout, stderr, exit: 1 });
  const last = (r: unknown) => qwen(JSON.stringify([{ type: "system" }, r]));
  assert.deepEqual(qwen(" \n"), { ok: false, error: "printed nothing on stdout" });
  assert.deepEqual(qwen("", '{\n"error": {"message": "rate limit"}\n}'), {
    ok: false,
    error: "reported an error: rate limit",
    toolError: { message: "rate limit", rateLimit: {} },
    usage: undefined,
  });
  assert.deepEqual(qwen("", '{\n"error": {"type": "T"}\n}'), {
    ok: false,
    error: "reported an error: T: no message",
    toolError: { message: "T: no message" },
    usage: undefined,
  });
  const cut = qwen('[{"type":"system"}');
  assert.match(!cut.ok ? cut.error : "", /^printed output that is not valid JSON \(.+\); it may have been cut short$/);
  assert.deepEqual(qwen('{"type":"result"}'), { ok: false, error: "printed JSON that is not an array of messages" });
  assert.deepEqual(qwen("[]"), { ok: false, error: 'printed messages that do not end with a result ({"type": "result", …})' });
  assert.deepEqual(qwen('[{"type":"result","subtype":"success","result":"x"},{"type":"assistant"}]'), {
    ok: false,
    error: 'printed messages that do not end with a result ({"type": "result", …})',
  });
  // is_error alone fails even with subtype success; the result text is the message when there is no error object.
  assert.deepEqual(last({ type: "result", subtype: "success", is_error: true, result: "boom" }), {
    ok: false,
    error: "reported an error: success: boom",
    toolError: { message: "success: boom" },
    usage: undefined,
  });
  // No subtype and no message at all: the kind "error" is the message.
  assert.deepEqual(last({ type: "result", usage: { output_tokens: 2 } }), {
    ok: false,
    error: "reported an error: error",
    toolError: { message: "error" },
    usage: { output_tokens: 2 },
  });
  // A result without its text: usage only when some count is above 0.
  assert.deepEqual(last({ type: "result", subtype: "success", usage: { input_tokens: 0, output_tokens: 0 } }), {
    ok: false,
    error: 'printed a result without a "result" text',
  });
  assert.deepEqual(last({ type: "result", subtype: "success", usage: { input_tokens: 0, output_tokens: 1 } }), {
    ok: false,
    error: 'printed a result without a "result" text',
    usage: { input_tokens: 0, output_tokens: 1 },
  });
  assert.deepEqual(last({ type: "result", subtype: "success", result: "ok", num_turns: 1, usage: { cache_read_input_tokens: 3 } }), {
    ok: true,
    report: { reply: "ok", turns: 1, usage: { cached_input_tokens: 3 } },
  });
});

test("a tool's message is clipped at 500 characters: exactly 500 kept whole, 501 cut to 500 and an ellipsis", () => {
  const at = "x".repeat(500);
  assert.equal(clip(at), at);
  assert.equal(clip(at + "y"), `${at}…`);
  const long = READERS["claude-json"]({
    stdout: JSON.stringify({ type: "result", is_error: true, errors: [`${at}y`] }),
    stderr: "",
    exit: 1,
  });
  // "error: " + 501 characters = 508; the first 500 of them are kept.
  const kept = `error: ${"x".repeat(493)}`;
  assert.deepEqual(long, { ok: false, error: `reported an error: ${kept}…`, toolError: { message: `${kept}…` }, usage: undefined });
});

test("a rate limit and the delay it asks for: Retry-After in seconds or ms, 'try again in', Google's retryDelay; 429/529 by status", () => {
  assert.deepEqual(toolError("HTTP 429 Too Many Requests; Retry-After: 20"), {
    message: "HTTP 429 Too Many Requests; Retry-After: 20",
    rateLimit: { delayMs: 20000 },
  });
  assert.deepEqual(toolError("rate_limit: retry_after: 1500ms"), {
    message: "rate_limit: retry_after: 1500ms",
    rateLimit: { delayMs: 1500 },
  });
  // "=" is not one of the separators Retry-After may be followed by: a limit without a known delay.
  assert.deepEqual(toolError("rate_limit: retry_after=1500ms"), { message: "rate_limit: retry_after=1500ms", rateLimit: {} });
  assert.deepEqual(toolError("overloaded, please try again in 2.5s"), {
    message: "overloaded, please try again in 2.5s",
    rateLimit: { delayMs: 2500 },
  });
  assert.deepEqual(toolError("Overloaded: retry in 250 ms"), { message: "Overloaded: retry in 250 ms", rateLimit: { delayMs: 250 } });
  const google = 'RESOURCE_EXHAUSTED {"retryDelay": "7s"}';
  assert.deepEqual(toolError(google), { message: google, rateLimit: { delayMs: 7000 } });
  assert.deepEqual(toolError("resource exhausted"), { message: "resource exhausted", rateLimit: {} });
  assert.deepEqual(toolError("Ratelimit exceeded"), { message: "Ratelimit exceeded", rateLimit: {} });
  assert.deepEqual(toolError("error 5290"), { message: "error 5290" });
  assert.deepEqual(toolError("error 1429"), { message: "error 1429" });
  assert.deepEqual(toolError('RESOURCE_EXHAUSTED {"retryDelay": "0.5s"}'), {
    message: 'RESOURCE_EXHAUSTED {"retryDelay": "0.5s"}',
    rateLimit: { delayMs: 500 },
  });
  assert.deepEqual(toolError("429: Retry-After: 1.25"), { message: "429: Retry-After: 1.25", rateLimit: { delayMs: 1250 } });
  assert.deepEqual(toolError("error 529"), { message: "error 529", rateLimit: {} });
  assert.deepEqual(toolError("bad request"), { message: "bad request" });
  // A status decides over the text: 529 is a limit whatever it says, 500 is not even if it says so.
  assert.deepEqual(toolError("boom", 529), { message: "boom", rateLimit: {} });
  assert.deepEqual(toolError("boom", 429), { message: "boom", rateLimit: {} });
  assert.deepEqual(toolError("rate limit", 500), { message: "rate limit" });
  assert.deepEqual(toolError("429", 428), { message: "429" });
  assert.deepEqual(toolError("529", 530), { message: "529" });
});

test("the error object on stderr: from a line holding only '{' (or '[ERROR] {') to one holding only '}', skipping what is not it", () => {
  assert.equal(stderrErrorObject("no object here\n"), undefined);
  assert.equal(stderrErrorObject('{\n"error": {"message": "never closed"}'), undefined);
  assert.deepEqual(stderrErrorObject('[ERROR] {\n  "error": {"message": "m"}\n}\n'), { message: "m" });
  // A first block that is not JSON, then one without an error object, then the error.
  const stderr = ["{", "  not json", "}", "{", '  "other": 1', "}", "{", '  "error": {"code": 2}', "}"].join("\n");
  assert.deepEqual(stderrErrorObject(stderr), { code: 2 });
  // "{ " with trailing space still opens; "x {" does not.
  assert.deepEqual(stderrErrorObject('{  \n"error": {"a": 1}\n}'), { a: 1 });
  assert.equal(stderrErrorObject('x {\n"error": {"a": 1}\n}'), undefined);
  assert.equal(stderrErrorObject('{\n"error": "text"\n}'), undefined);
});
