// What the fake agent CLIs print for a turn that works and for `--version`, built in one place for
// both fakes: the Node fake (fake-agent-cli.ts) prints these strings, and the shell fakes
// (fake-agent-sh.ts) are written from the same strings with the reply cut out, so that the two
// cannot drift apart (test/run/fake-agent-sh checks they print the same bytes).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The tools the fakes stand in for, by the name of their executable. */
export const FAKE_TOOLS = ["claude", "codex", "gemini", "opencode", "qwen", "aider"] as const;
export type FakeTool = (typeof FAKE_TOOLS)[number];

/** The versions the recordings were made with. */
export const RECORDED_VERSIONS = { claude: "2.1.197", codex: "0.171.0", gemini: "0.61.0", opencode: "1.18.33", qwen: "0.24.4" } as const;

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/real-agents/", import.meta.url));

export interface Recording {
  stdout: string;
  stderr: string;
  exit: number;
}

/** One recorded case: `test/fixtures/real-agents/NAME.{stdout,stderr,exit}.txt`. */
export function recording(name: string): Recording {
  const read = (part: string) => readFileSync(`${FIXTURES}${name}.${part}.txt`, "utf8");
  return { stdout: read("stdout"), stderr: read("stderr"), exit: Number(read("exit").trim()) };
}

/** The version a fake reports: FAKE_AGENT_VERSION's (`setting`) when set, else its recordings'. */
export function fakeVersion(tool: string, setting: string | undefined): string {
  return setting ?? RECORDED_VERSIONS[tool as keyof typeof RECORDED_VERSIONS] ?? "0.86.1";
}

/** What `TOOL --version` prints, in the format each tool prints it. */
export function versionLine(tool: string, version: string): string {
  const line = {
    claude: `${version} (Claude Code)`,
    codex: `codex-cli ${version}`,
    gemini: version,
    aider: `aider ${version}`,
    opencode: version,
    qwen: version,
  }[tool];
  return `${line ?? version}\n`;
}

/** The recorded case of each tool's successful turn (aider has none: see aiderStdout). */
export const SUCCESS: Record<Exclude<FakeTool, "aider">, string> = {
  claude: "claude-2.1.197-success",
  codex: "codex-0.171.0-success-shell",
  gemini: "gemini-0.61.0-success",
  opencode: "opencode-1.18.33-success",
  qwen: "qwen-code-0.24.4-success",
};

/** JSON lines with `edit` applied to each event. */
function eachLine<E>(stdout: string, edit: (e: E) => void): string {
  const lines = stdout
    .trim()
    .split("\n")
    .map((l) => {
      const e = JSON.parse(l) as E;
      edit(e);
      return JSON.stringify(e);
    });
  return lines.join("\n") + "\n";
}

/** Each tool's stdout with its reply text replaced by `reply`: where the tool puts its answer. */
const SUBSTITUTE: Record<Exclude<FakeTool, "aider">, (stdout: string, reply: string) => string> = {
  // Claude Code's `result`.
  claude: (stdout, reply) => JSON.stringify(Object.assign(JSON.parse(stdout) as object, { result: reply })) + "\n",
  // Codex's agent_message items.
  codex: (stdout, reply) =>
    eachLine<{ type: string; item?: { type?: string; text?: string } }>(stdout, (e) => {
      if (e.type === "item.completed" && e.item?.type === "agent_message") e.item.text = reply;
    }),
  // Gemini CLI's `response`, printed indented.
  gemini: (stdout, reply) => JSON.stringify(Object.assign(JSON.parse(stdout) as object, { response: reply }), null, 2),
  // opencode's reply is the text of the last step: the recorded text events' text.
  opencode: (stdout, reply) =>
    eachLine<{ type: string; part?: { text?: string } }>(stdout, (e) => {
      if (e.type === "text" && e.part) e.part.text = reply;
    }),
  // Qwen Code's last message's `result`.
  qwen: (stdout, reply) => {
    const messages = JSON.parse(stdout) as Array<Record<string, unknown>>;
    messages[messages.length - 1]!.result = reply;
    return JSON.stringify(messages) + "\n";
  },
};

/** The recorded case `name` (the tool's success unless given) of `tool`, its reply replaced by `reply`. */
export function withReply(tool: Exclude<FakeTool, "aider">, reply: string, name = SUCCESS[tool]): Recording {
  const r = recording(name);
  return { ...r, stdout: SUBSTITUTE[tool](r.stdout, reply) };
}

/**
 * The 429 a tool reports when rate limited, asking to be tried again in `retryIn`: DERIVED from
 * the tool's recorded API error (no 429 was recorded), its status and message replaced by the
 * vendor's 429 body.
 */
export function rateLimited(tool: "claude" | "codex" | "gemini", retryIn: string): Recording {
  if (tool === "claude") {
    // Anthropic's 429 body.
    const r = recording("claude-2.1.197-api-error-400");
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    j.api_error_status = 429;
    j.result = `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit. Please try again in ${retryIn}."}}`;
    return { ...r, stdout: JSON.stringify(j) + "\n" };
  }
  if (tool === "codex") {
    // OpenAI's 429 body in its error and turn.failed events.
    const r = recording("codex-0.171.0-api-error-400");
    const body = JSON.stringify({
      error: {
        message: `Rate limit reached for gpt-5-codex on tokens per min (TPM). Please try again in ${retryIn}.`,
        type: "tokens",
        code: "rate_limit_exceeded",
      },
    });
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map((e) => (e.type === "error" ? { ...e, message: body } : e.type === "turn.failed" ? { ...e, error: { message: body } } : e));
    return { ...r, stdout: events.map((e) => JSON.stringify(e)).join("\n") + "\n" };
  }
  // Google's 429 body; the exit status is the code & 0xff.
  const r = recording("gemini-0.61.0-api-error-400");
  const inner = JSON.stringify({
    error: {
      code: 429,
      message: `Resource has been exhausted (e.g. check quota). Please retry in ${retryIn}.`,
      status: "RESOURCE_EXHAUSTED",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: retryIn }],
    },
  });
  const old = JSON.stringify({ error: { code: 400, message: "mock failure 400", status: "INTERNAL" } });
  const stderr = r.stderr
    .replace(old, inner)
    .replace(JSON.stringify(old).slice(1, -1), JSON.stringify(inner).slice(1, -1))
    .replace('"code": 400', '"code": 429')
    .replace("status: 400", "status: 429");
  return { stdout: "", stderr, exit: 429 & 0xff };
}

/**
 * What aider prints for a turn: NOT a recording (aider, a Python package, cannot be installed on
 * these machines) but its documented output (https://aider.chat/docs/scripting.html,
 * docs/agents/aider.md); `malformed`, a line in place of its token report that is not one.
 */
export function aiderStdout(reply: string, malformed = false): string {
  const report = malformed
    ? "Tokens: lots sent, some received."
    : "Tokens: 12k sent, 2.1k cache hit, 133 received. Cost: $0.04 message, $0.04 session.";
  return `Aider v0.86.1\nMain model: sonnet with diff edit format\n\n${reply}\n\n${report}\n`;
}

/** The reply a fake gives: FAKE_AGENT_REPLY's (`setting`) when set, else what it did. */
export function replyFor(done: string[], setting: string | undefined): string {
  return setting ?? (done.length ? `Edited ${done.join(", ")}.` : "Nothing to edit.");
}
