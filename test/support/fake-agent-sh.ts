// The fake agent CLIs as /bin/sh scripts, for the calls the suite makes: `--version` and a turn.
// The Node fake (fake-agent-cli.ts) costs a Node start-up per call, about 0.1 s of CPU, where a
// shell script costs a few milliseconds.
//
// Each script is test/support/fake-agent.sh with the tool's parts filled in: the argv checks the
// Node fake makes, where its prompt comes from, and what it prints in each mode it answers (ANSWERS
// below) — the strings the Node fake prints (fake-agent-output.ts), cut where the reply and a
// 429's delay go. It answers only when it is sure to answer as the Node fake: an argv the Node fake
// accepts; a mode of ANSWERS (FAKE_AGENT_MODE, or FAKE_AGENT_RATE_LIMITS / FAKE_AGENT_MODES with
// FAKE_AGENT_COUNTER, counted as the Node fake counts); no FAKE_AGENT_SLEEP_MS; a printable ASCII
// FAKE_AGENT_REPLY and FAKE_AGENT_RETRY_IN; a prompt whose work paths are plain relative names sure
// to be written (fake-agent.sh says which); for FAKE_AGENT_LOG, printable ASCII in what the line
// holds. Every other call goes to the Node fake unchanged, its prompt included (fed again where
// the shell has read it: the same bytes, but that a \001 arrives as a NUL, fake-agent.sh says
// why). test/run/fake-agent-sh compares the two call by call.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  aiderStdout,
  fakeVersion,
  rateLimited,
  recording,
  SUCCESS,
  versionLine,
  withReply,
  type FakeTool,
  type Recording,
} from "./fake-agent-output.js";

const TEMPLATE = fileURLToPath(new URL("../../../test/support/fake-agent.sh", import.meta.url));

/** `s` as one single-quoted shell word. */
export const quoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The characters from `first` to `last`. */
const span = (first: string, last: string) =>
  Array.from({ length: last.charCodeAt(0) - first.charCodeAt(0) + 1 }, (_, i) => String.fromCharCode(first.charCodeAt(0) + i)).join("");

/** The printable ASCII characters. */
export const PRINTABLE = span(" ", "~");

/** Stand where the reply and a 429's delay go, in the strings a script is cut from. */
const MARK = "\u0000reply\u0000";
const RETRY_MARK = "\u0000retry\u0000";
/** Each mark, and the shell words that hold its text as it is, inside a JSON string, and inside a JSON string inside a JSON string. */
const WORDS: ReadonlyArray<[string, string[]]> = [
  [MARK, ['"$fa_reply"', '"$fa_reply1"', '"$fa_reply2"']],
  [RETRY_MARK, ['"${FAKE_AGENT_RETRY_IN-2s}"', '"$fa_retry1"', '"$fa_retry2"']],
];

/** What the Node fake checks in its argv before it reads a prompt, and where the prompt comes from. */
interface Shape {
  /** Runs of arguments that must stand side by side in the argv (expectRun in fake-agent-cli.ts). */
  runs: string[][];
  /** Further checks, in sh: each hands the call over (fa_node "$@") when it fails. */
  checks?: string;
  /** stdin, stdin followed by the value of --prompt (Gemini CLI), or the file of --message-file (aider). */
  prompt: "stdin" | "stdin+prompt" | "message-file";
}

const SHAPES: Record<FakeTool, Shape> = {
  claude: {
    runs: [["-p"], ["--output-format", "json"], ["--permission-mode", "acceptEdits"]],
    checks: `fa_value --effort "$@" || fa_node "$@"
case $fa_v in low | medium | high | xhigh | max) ;; *) fa_node "$@" ;; esac`,
    prompt: "stdin",
  },
  codex: {
    runs: [["--json"], ["--sandbox", "workspace-write"], ["--skip-git-repo-check"]],
    checks: `[ "$1" = exec ] || fa_node "$@"
fa_has --full-auto "$@" && fa_node "$@"
fa_ok=
for fa_a; do
  case $fa_a in model_reasoning_effort=*) fa_ok=1 ;; esac
done
[ "$fa_ok" ] || fa_node "$@"
eval "fa_last=\\\${$#}"
[ "$fa_last" = - ] || fa_node "$@"`,
    prompt: "stdin",
  },
  gemini: {
    runs: [
      ["--output-format", "json"],
      ["--approval-mode", "auto_edit"],
    ],
    // Gemini CLI 0.61 refuses a folder it was not told to trust.
    checks: `[ "$GEMINI_CLI_TRUST_WORKSPACE" = true ] || fa_has --skip-trust "$@" || fa_node "$@"
fa_value --prompt "$@" || fa_node "$@"
fa_prompt_arg=$fa_v`,
    prompt: "stdin+prompt",
  },
  opencode: { runs: [["run", "--format", "json"]], prompt: "stdin" },
  qwen: {
    runs: [
      ["--output-format", "json"],
      ["--approval-mode", "auto-edit"],
    ],
    prompt: "stdin",
  },
  aider: {
    runs: [["--yes-always"], ["--no-auto-commits"]],
    checks: `fa_value --message-file "$@" || fa_node "$@"
fa_message_file=$fa_v`,
    prompt: "message-file",
  },
};

/** sh that hands the call over unless `run` stands side by side somewhere in "$@". */
function runCheck(run: string[]): string {
  const before = run.slice(0, -1).map((_, i) => `fa_p${run.length - 1 - i}`); // fa_pK … fa_p1: the K args before
  const test = [...before.map((v, i) => `[ "$${v}" = ${quoted(run[i]!)} ]`), `[ "$fa_a" = ${quoted(run[run.length - 1]!)} ]`].join(" && ");
  const shift = before.map((v, i) => `${v}=${i + 1 < before.length ? `$${before[i + 1]}` : "$fa_a"}`).join(" ");
  return [
    `fa_ok= ${before.map((v) => `${v}=`).join(" ")}`.trimEnd(),
    `for fa_a; do`,
    `  ${test} && fa_ok=1`,
    ...(shift ? [`  ${shift}`] : []),
    `done`,
    `[ "$fa_ok" ] || fa_node "$@"`,
  ].join("\n");
}

/** sh that sets fa_prompt to the prompt the Node fake reads. */
function readPrompt(shape: Shape): string {
  if (shape.prompt === "message-file")
    return `[ -f "$fa_message_file" ] && [ -r "$fa_message_file" ] || fa_node "$@"
fa_prompt=$(tr '\\000' '\\001' <"$fa_message_file"; echo .)
fa_prompt=\${fa_prompt%.}`;
  const stdin = `fa_read_stdin || fa_node "$@"`;
  return shape.prompt === "stdin+prompt" ? `${stdin}\nfa_prompt=$fa_prompt$fa_prompt_arg` : stdin;
}

/** What a fake prints in a mode: a recorded case with the reply in it, one replayed as it is, a 429. */
type Answer = { reply: string } | { replay: string } | "rate-limit" | { aider: "report" | "malformed" };

/** The modes each shell fake answers itself, as the Node fake answers them; any other is the Node fake's. */
const ANSWERS: Record<FakeTool, Record<string, Answer>> = {
  claude: {
    ok: { reply: SUCCESS.claude },
    refused: { reply: "claude-2.1.197-permission-denied" },
    error: { replay: "claude-2.1.197-error-max-turns" },
    "api-error": { replay: "claude-2.1.197-api-error-400" },
    "rate-limit": "rate-limit",
  },
  codex: {
    ok: { reply: SUCCESS.codex },
    error: { replay: "codex-0.171.0-api-error-400" },
    "api-error": { replay: "codex-0.171.0-api-error-400" },
    "api-error-500": { replay: "codex-0.171.0-api-error-500" },
    "rate-limit": "rate-limit",
  },
  gemini: {
    ok: { reply: SUCCESS.gemini },
    error: { replay: "gemini-0.61.0-turn-limit" },
    "api-error": { replay: "gemini-0.61.0-api-error-400" },
    "rate-limit": "rate-limit",
  },
  opencode: {
    ok: { reply: SUCCESS.opencode },
    refused: { reply: "opencode-1.18.33-permission-rejected" },
    "api-error": { replay: "opencode-1.18.33-api-error-400" },
  },
  qwen: {
    ok: { reply: SUCCESS.qwen },
    error: { replay: "qwen-code-0.24.4-turn-limit" },
    "api-error": { replay: "qwen-code-0.24.4-api-error-400" },
  },
  aider: { ok: { aider: "report" }, malformed: { aider: "malformed" } },
};

/** A printf of `text` with each mark in it (in any of its three forms) replaced by its shell word; "" for no text. */
function printWith(text: string, fd: string): string {
  if (!text) return "";
  const word = new Map<string, string>();
  for (const [mark, words] of WORDS) {
    const once = JSON.stringify(mark).slice(1, -1);
    [mark, once, JSON.stringify(once).slice(1, -1)].forEach((form, i) => word.set(form, words[i]!));
  }
  // The longest forms first, so that a mark escaped twice is not read as one escaped once.
  const forms = [...word.keys()].sort((x, y) => y.length - x.length);
  const cut = new RegExp(forms.map((f) => f.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")).join("|"), "g");
  const parts = text.split(cut);
  const between = [...text.matchAll(cut)].map((m) => word.get(m[0])!);
  if (parts.some((p) => p.includes("\u0000") || p.includes("\\u0000")))
    throw new Error(`a mark is left in ${JSON.stringify(text.slice(0, 80))}…`);
  return `printf '%s' ${parts.map((p, i) => (i ? `${between[i - 1]} ` : "") + quoted(p)).join(" ")}${fd}`;
}

/** sh that prints a recorded case (its marks filled in) and exits with its status. */
function printRecording(r: Recording): string {
  return [printWith(r.stdout, ""), printWith(r.stderr, " >&2"), `exit ${r.exit}`].filter(Boolean).join("\n");
}

/** sh that answers in each of the tool's modes ($fa_mode), as the Node fake does. */
function answer(tool: FakeTool): string {
  const branches = Object.entries(ANSWERS[tool]).map(([mode, a]) => {
    let r: Recording;
    if (a === "rate-limit") r = rateLimited(tool as "claude" | "codex" | "gemini", RETRY_MARK);
    else if ("aider" in a) r = { stdout: aiderStdout(MARK, a.aider === "malformed"), stderr: "", exit: 0 };
    else if ("replay" in a) r = recording(a.replay);
    else r = withReply(tool as Exclude<FakeTool, "aider">, MARK, a.reply);
    // Not indented: the printed text is inside quotes.
    return `${quoted(mode)})\n${printRecording(r)}\n;;`;
  });
  return `case $fa_mode in\n${branches.join("\n")}\nesac`;
}

/**
 * The shell fake of `tool`: answers as the Node fake started by `nodeFake` (its command line,
 * shell words, ending in the tool's name) would, and runs it for any call it does not answer.
 */
export function shellFake(tool: FakeTool, nodeFake: string): string {
  const shape = SHAPES[tool];
  const version = versionLine(tool, MARK).split(MARK);
  const fill: Record<string, string> = {
    TOOL: tool,
    NODE_FAKE: nodeFake,
    PRINTABLE: quoted(PRINTABLE),
    TEXT: quoted(`${PRINTABLE}\t\n`),
    PATH_CHARS: quoted(`${span("A", "Z")}${span("a", "z")}${span("0", "9")}._/-`),
    // What /\S/ does not match among the characters a line can hold (\n and \r end lines).
    SPACES: quoted(" \t\v\f"),
    CR: quoted("\r"),
    SOH: quoted("\u0001"),
    LS: quoted("\u2028"),
    PS: quoted("\u2029"),
    VERSION: quoted(fakeVersion(tool, undefined)),
    VERSION_BEFORE: quoted(version[0]!),
    VERSION_AFTER: quoted(version[1]!),
    ARGV_CHECKS: [...shape.runs.map(runCheck), ...(shape.checks ? [shape.checks] : [])].join("\n"),
    MODES: Object.keys(ANSWERS[tool]).map(quoted).join(" | "),
    READ_PROMPT: readPrompt(shape),
    ANSWER: answer(tool),
  };
  return fromTemplate(TEMPLATE, fill);
}

const LIB = fileURLToPath(new URL("../../../test/support/fake-lib.sh", import.meta.url));

/** The shell script `template` with each @NAME@ replaced by `fill[NAME]`, and @LIB@ by fake-lib.sh's functions. */
export function fromTemplate(template: string, fill: Record<string, string>): string {
  const all: Record<string, string> = { LIB: readFileSync(LIB, "utf8").replace(/^(#.*\n)+\n/, ""), ...fill };
  return readFileSync(template, "utf8").replace(/@([A-Z_]+)@/g, (m, name: string) => all[name] ?? m);
}
