// Runner presets: what switchyard knows about each agent CLI, as data — one table per
// tool, no class per tool. A preset says how to run the tool non-interactively in a workspace it
// may write to, how `effort` maps onto the tool's own knobs, and which reader turns its
// machine-readable output into the reply text, turns, tokens and cost (see read-output.ts).
//
// Sources (looked up with the search tool, December 2026):
// - claude-code: https://docs.anthropic.com/en/docs/claude-code/cli-reference (-p/--print reads
//   the prompt from stdin, --output-format json, --permission-mode, --max-turns) and
//   https://code.claude.com/docs/en/permission-modes (acceptEdits: reads, file edits and common
//   file-system commands without asking); the JSON result (result, is_error, num_turns,
//   total_cost_usd, usage) as described at
//   https://dev.to/aobaworks/claude-code-output-format-json-fields-jq-python-parsing-3edj
// - codex: `codex exec --json` JSONL events (thread.started, turn.started, item.completed with an
//   agent_message item, turn.completed {usage: input_tokens, cached_input_tokens,
//   output_tokens}, turn.failed, error): https://github.com/openai/codex/pull/4309 (exec_events.rs)
//   and https://docs.rs/codex-codes/latest/codex_codes/io/events/; `-` reads the prompt from
//   stdin; --skip-git-repo-check (a scratch workspace is not a repository),
//   -c model_reasoning_effort=…: https://skills.sh/skills-directory/skill-codex/codex
//
// Verified against the real tools (recordings in test/fixtures/real-agents/, facts in
// docs/agents/*.md): Claude Code 2.1.197 (`--effort low|medium|high|xhigh|max`; error results
// exit 1), Codex 0.145.0–0.171.0 (`--sandbox workspace-write`; `--full-auto` is rejected from
// 0.147.0 on, exit 2), Gemini CLI 0.61.0 (refuses an untrusted folder unless
// GEMINI_CLI_TRUST_WORKSPACE=true; the prompt on stdin with `--prompt ""`; errors as JSON on
// stderr, exit = the error's code).
// - gemini: https://geminicli.com/docs/cli/headless/ (-p/--prompt, --output-format json with
//   response, stats, error; exit 53 = turn limit) and the stats.models.NAME.tokens
//   {prompt, candidates, cached} shape shown in
//   https://glama.ai/mcp/servers/@BeehiveInnovations/gemini-mcp-server (clink/parsers/gemini.py);
//   --approval-mode auto_edit lets it edit files without asking.
// - aider: https://aider.chat/docs/scripting.html (--message / --message-file, --yes-always,
//   --no-auto-commits, --no-stream); no JSON output: each reply ends with a report line
//   "Tokens: 12k sent, 133 received. Cost: $0.04 message, $0.10 session." (the line format as
//   parsed in https://gist.github.com/stephane-klein/3b3808c1b03b7e6ddfc4b22b69fdf776).

import type { Effort } from "../../../plan/plan.js";
import { MORE_PRESET_NAMES, MORE_PRESETS, type MoreOutputFormat } from "./more-presets.js";

/** Every agent preset a runner may name. */
export const PRESET_NAMES = ["claude-code", "codex", "gemini", "aider", "generic", ...MORE_PRESET_NAMES] as const;
/** One of PRESET_NAMES. */
export type PresetName = (typeof PRESET_NAMES)[number];

/**
 * What switchyard knows of a tool's versions (preflight, agent-versions.ts): the range the preset
 * was run against, and what is known not to work.
 */
export interface VersionFacts {
  /** The oldest and newest versions the preset was verified with (recorded runs of the real tool). */
  verified: { oldest: string; newest: string };
  /** Versions older than this are refused: they lack a flag the preset passes or print another format. */
  refuseBelow?: { version: string; why: string };
  /** Flags the tool rejects from a version on (refused when the final argv still has them). */
  removedFlags?: ReadonlyArray<{ flag: string; since: string; instead: string }>;
}

/** How a preset's tool reports a turn (the reader in read-output.ts). */
export type OutputFormat = "claude-json" | "codex-jsonl" | "gemini-json" | "aider-report" | "switchyard" | MoreOutputFormat;

/** How the rendered prompt reaches the tool. */
export type PromptPassing =
  /** on stdin, with `lastArgs` (if any) ending the argv */
  | { via: "stdin"; lastArgs?: readonly string[] }
  /** as the value of a flag: `FLAG PROMPT` at the end of the argv */
  | { via: "flag"; flag: string }
  /** as a file: `FLAG PATH` at the end of the argv */
  | { via: "file"; flag: string };

/** What switchyard knows of one agent CLI: how to launch a turn, set its effort and workspace, read its output, and which versions work. */
export interface Preset {
  name: PresetName;
  /** The tool's name, for messages ("Claude Code"). */
  tool: string;
  /** The executable looked up on PATH when the config gives no `command`. */
  executable?: string;
  /** Arguments after the executable: non-interactive mode, output format, permissions. */
  args: readonly string[];
  /** Environment the tool needs to run headless (under the runner's own `env`). */
  env?: Readonly<Record<string, string>>;
  /** Extra arguments per `effort` (the tool's own knobs), appended after `args`. */
  effort: Readonly<Record<Effort, readonly string[]>>;
  prompt: PromptPassing;
  output: OutputFormat;
  /** Whether the tool reports cost itself; else only a `price` table gives cost_usd. */
  reportsCost: boolean;
  /** Where its non-interactive flags and output format are documented. */
  docs: string;
  /** Unset: never run against the real tool (aider cannot be installed here: a Python package). */
  versions?: VersionFacts;
}

const NO_EFFORT = { low: [], medium: [], high: [] } as const;

// The presets of more-presets.ts are checked against Preset here rather than there: Preset names
// their output formats, so more-presets.ts importing it back would be an import cycle.
const MORE: Readonly<Record<(typeof MORE_PRESET_NAMES)[number], Preset>> = MORE_PRESETS;

/** Every preset, by name. */
export const PRESETS: Readonly<Record<PresetName, Preset>> = {
  "claude-code": {
    name: "claude-code",
    tool: "Claude Code",
    executable: "claude",
    args: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits"],
    // `--effort` sets the request's effort (the tool's default is "high"); the agentic turns it
    // may take are bounded as well.
    effort: {
      low: ["--effort", "low", "--max-turns", "10"],
      medium: ["--effort", "medium", "--max-turns", "30"],
      high: ["--effort", "high", "--max-turns", "100"],
    },
    prompt: { via: "stdin" },
    output: "claude-json",
    reportsCost: true,
    docs: "https://docs.anthropic.com/en/docs/claude-code/cli-reference",
    versions: { verified: { oldest: "2.1.197", newest: "2.1.332" } },
  },
  codex: {
    name: "codex",
    tool: "Codex CLI",
    executable: "codex",
    // `--sandbox workspace-write`, not `--full-auto`: 0.145 deprecated it, 0.147 on reject it.
    args: ["exec", "--json", "--sandbox", "workspace-write", "--skip-git-repo-check"],
    effort: {
      low: ["-c", "model_reasoning_effort=low"],
      medium: ["-c", "model_reasoning_effort=medium"],
      high: ["-c", "model_reasoning_effort=high"],
    },
    // `-` as the prompt: read it from stdin (no argv length limit).
    prompt: { via: "stdin", lastArgs: ["-"] },
    output: "codex-jsonl",
    reportsCost: false,
    docs: "https://github.com/openai/codex/pull/4309",
    versions: {
      verified: { oldest: "0.145.0", newest: "0.171.0" },
      refuseBelow: {
        version: "0.145.0",
        why: "the preset's `--sandbox workspace-write` and `exec --json` events were verified from 0.145.0 on only",
      },
      removedFlags: [{ flag: "--full-auto", since: "0.147.0", instead: "--sandbox workspace-write" }],
    },
  },
  gemini: {
    name: "gemini",
    tool: "Gemini CLI",
    executable: "gemini",
    args: ["--output-format", "json", "--approval-mode", "auto_edit"],
    // Every workspace is a new folder, which Gemini CLI 0.61 refuses to run in headless (exit 55).
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true" },
    // Gemini CLI has no effort flag: choose the model with args = ["-m", "…"].
    effort: NO_EFFORT,
    // `--prompt ""` with the prompt on stdin: one argv string may not exceed 128 KiB on Linux.
    prompt: { via: "stdin", lastArgs: ["--prompt", ""] },
    output: "gemini-json",
    reportsCost: false,
    docs: "https://geminicli.com/docs/cli/headless/",
    versions: { verified: { oldest: "0.61.0", newest: "0.61.0" } },
  },
  aider: {
    name: "aider",
    tool: "aider",
    executable: "aider",
    args: ["--yes-always", "--no-auto-commits", "--no-stream", "--no-pretty", "--no-check-update"],
    effort: NO_EFFORT,
    prompt: { via: "file", flag: "--message-file" },
    output: "aider-report",
    reportsCost: true,
    docs: "https://aider.chat/docs/scripting.html",
  },
  generic: {
    name: "generic",
    tool: "the agent runner",
    args: [],
    effort: NO_EFFORT,
    prompt: { via: "stdin" },
    output: "switchyard",
    reportsCost: true,
    docs: "docs/agents/generic.md",
  },
  ...MORE,
};
