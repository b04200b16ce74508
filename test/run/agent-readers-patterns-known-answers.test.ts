// The agent presets' readers' text patterns at their edges, on known answers worked out by hand
// from the patterns' rules (tool-report.ts, read-output.ts): a delay's separators present or
// absent, blanks around a colon or none, a fraction of one digit and of two, a whole number of one
// digit and of two; a line that holds JSON and more is not where the stderr error object starts;
// an aider report line whose figures are followed by other words is not a report.

import { test } from "node:test";
import assert from "node:assert/strict";
import { READERS } from "../../src/run/agents/presets/read-output.js";
import { stderrErrorObject, toolError } from "../../src/run/agents/presets/tool-report.js";

test("a rate limit's delay: Retry-After with or without a separator, two-digit fractions and whole numbers, compact and spaced JSON", () => {
  const delay = (message: string) => toolError(message).rateLimit?.delayMs;
  // "retryAfter" (no separator between the words) is Retry-After too; 3 s is 3000 ms.
  assert.equal(delay('429 {"retryAfter": 3}'), 3000);
  assert.equal(delay("rate limit: retry after 12"), 12000);
  // A fraction of two digits: 1.25 s is 1250 ms, not 1.2 s.
  assert.equal(delay("Rate limit reached. Please try again in 1.25s."), 1250);
  assert.equal(delay("overloaded; try again in 12s"), 12000);
  assert.equal(delay("overloaded; retry in 40ms"), 40);
  // Google's retryDelay in compact JSON (no blank around the colon) and with blanks on both sides.
  assert.equal(delay('RESOURCE_EXHAUSTED {"retryDelay":"12s"}'), 12000);
  assert.equal(delay('RESOURCE_EXHAUSTED {"retryDelay" : "0.25s"}'), 250);
  assert.equal(delay('RESOURCE_EXHAUSTED {"retryDelay":"30.5s"}'), 30500);
});

test("the stderr error object starts at a line holding only '{', not at a line of JSON with more after the brace", () => {
  // The first line is a whole JSON object on one line: not the start of the pretty-printed block.
  assert.deepEqual(stderrErrorObject('{"note": 1}\n{\n  "error": {"message": "m"}\n}\n'), { message: "m" });
  assert.equal(stderrErrorObject('{"error": {"message": "one line"}}\n'), undefined);
  assert.equal(stderrErrorObject('[ERROR]{\n"error": {"a": 1}\n}'), undefined);
});

test("aider: a report whose figures run into other words is not a report; two blanks after 'Tokens:' still are", () => {
  const aider = (stdout: string) => READERS["aider-report"]({ stdout, stderr: "", exit: 0 });
  assert.deepEqual(aider("Tokens:  5 sent, 1 received."), {
    ok: true,
    report: { reply: "", turns: 1, usage: { input_tokens: 5, output_tokens: 1 } },
  });
  assert.deepEqual(aider("Tokens: 5 sentinels, 1 received."), {
    ok: false,
    error: 'printed a token report that cannot be read: "Tokens: 5 sentinels, 1 received."',
  });
  assert.deepEqual(aider("Tokens: 5 sent, 2k cache hits, 1 received."), {
    ok: true,
    report: { reply: "", turns: 1, usage: { input_tokens: 5, output_tokens: 1 } },
  });
});

test("the stderr error object's lines are joined by line breaks: a message broken over two lines is not JSON", () => {
  assert.equal(stderrErrorObject('{\n"error": {"message": "line one\nline two"}\n}\n'), undefined);
});

test("aider's report line at its edges: blanks, a missing period, a count without a unit, a line cut at 200 characters", () => {
  const aider = (stdout: string) => READERS["aider-report"]({ stdout, stderr: "", exit: 0 });
  const read = (stdout: string, usage: Record<string, number>) =>
    assert.deepEqual(aider(stdout), { ok: true, report: { reply: "", turns: 1, usage } }, stdout);
  read("Tokens: 5 sent,  1 received", { input_tokens: 5, output_tokens: 1 });
  read("Tokens: 5 sent, 300 cache hit, 1 received.  Cost:  $0.01 message", {
    input_tokens: 5,
    output_tokens: 1,
    cached_input_tokens: 300,
    cost_usd: 0.01,
  });
  // A cache report that does not start the part (it follows other words) is not read.
  read("Tokens: 5 sent, 2k cache hit, about 3k cache hit, 1 received.", { input_tokens: 5, output_tokens: 1 });
  // A received count that does not start its part leaves the report unreadable.
  assert.deepEqual(aider("Tokens: 5 sent, 2 received, about 1 received."), {
    ok: false,
    error: 'printed a token report that cannot be read: "Tokens: 5 sent, 2 received, about 1 received."',
  });
  // A line holding a Unicode line separator is not a report line: it is reply text.
  assert.deepEqual(aider("Tokens: 5 sent, 1 received.\u2028more"), {
    ok: true,
    report: { reply: "Tokens: 5 sent, 1 received.\u2028more", turns: 0, usage: {} },
  });
  // The unreadable line is quoted up to 200 characters: 201 are cut to 200, 200 are whole.
  const long = `Tokens: ${"x".repeat(193)}`;
  assert.equal(long.length, 201);
  assert.deepEqual(aider(long), { ok: false, error: `printed a token report that cannot be read: ${JSON.stringify(long.slice(0, 200))}` });
  assert.deepEqual(aider(long.slice(0, 200)), {
    ok: false,
    error: `printed a token report that cannot be read: ${JSON.stringify(long.slice(0, 200))}`,
  });
});

test("Claude Code's usage: only fresh input, only cache read; a result without a subtype is a success", () => {
  const claude = (r: unknown) => READERS["claude-json"]({ stdout: JSON.stringify(r), stderr: "", exit: 0 });
  assert.deepEqual(claude({ type: "result", result: "ok", usage: { input_tokens: 7 } }), {
    ok: true,
    report: { reply: "ok", turns: undefined, usage: { input_tokens: 7 } },
  });
  assert.deepEqual(claude({ type: "result", result: "ok", usage: { cache_read_input_tokens: 5 } }), {
    ok: true,
    report: { reply: "ok", turns: undefined, usage: { input_tokens: 5, cached_input_tokens: 5 } },
  });
});

test("Codex: an error event without a message keeps the last one that had one; only a completed item is the reply", () => {
  const codex = (...events: unknown[]) =>
    READERS["codex-jsonl"]({ stdout: events.map((e) => JSON.stringify(e)).join("\n"), stderr: "", exit: 1 });
  assert.deepEqual(codex({ type: "error", message: "first" }, { type: "error" }), {
    ok: false,
    error: "reported an error: first",
    toolError: { message: "first" },
    usage: undefined,
  });
  assert.deepEqual(
    codex(
      { type: "item.completed", item: { type: "agent_message", text: "final" } },
      { type: "item.started", item: { type: "agent_message", text: "draft" } },
      { type: "turn.completed" },
    ),
    { ok: true, report: { reply: "final", turns: 1, usage: {} } },
  );
});

test("Gemini CLI: stdout of only a line break is empty, so the error object on stderr is read", () => {
  assert.deepEqual(READERS["gemini-json"]({ stdout: "\n", stderr: '{\n"error": {"message": "quota"}\n}', exit: 1 }), {
    ok: false,
    error: "reported an error: quota",
    toolError: { message: "quota" },
    usage: undefined,
  });
});

test("opencode: only text events are the reply (a reasoning event's text is not); Qwen Code: a rate limit named in the error message", () => {
  const opencode = (...events: unknown[]) =>
    READERS["opencode-jsonl"]({ stdout: events.map((e) => JSON.stringify(e)).join("\n"), stderr: "", exit: 0 });
  assert.deepEqual(
    opencode(
      { type: "step_start" },
      { type: "reasoning", part: { text: "thinking" } },
      { type: "text", part: { text: "answer" } },
      { type: "step_finish" },
    ),
    { ok: true, report: { reply: "answer", turns: 1, usage: {} } },
  );
  const qwen = READERS["qwen-json"]({
    stdout: JSON.stringify([{ type: "result", subtype: "error_during_execution", error: { message: "429 Too Many Requests" } }]),
    stderr: "",
    exit: 1,
  });
  assert.deepEqual(qwen, {
    ok: false,
    error: "reported an error: error_during_execution: 429 Too Many Requests",
    toolError: { message: "error_during_execution: 429 Too Many Requests", rateLimit: {} },
    usage: undefined,
  });
});
