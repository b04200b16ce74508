// The presets for opencode and Qwen Code, verified against the real tools by the
// conformance suite (test/agents-real/, docs/agents/opencode.md and qwen-code.md). Kept apart from
// presets.ts, which spreads them into its table. Their readers are opencode-output.ts and
// qwen-code-output.ts.
//
// Sources: `opencode run --help` of opencode-ai 1.18.33 (the message from stdin when none is given,
// --format json: raw JSON events) and https://opencode.ai/docs/cli/; `qwen --help` of
// @qwen-code/qwen-code 0.24.4 (--output-format json, --approval-mode auto-edit, the prompt from
// stdin) and https://qwenlm.github.io/qwen-code-docs/en/users/features/headless.

/** The presets defined in this file, beyond the first five. */
export const MORE_PRESET_NAMES = ["opencode", "qwen-code"] as const;
/** How the tools of these presets print a turn's result. */
export type MoreOutputFormat = "opencode-jsonl" | "qwen-json";

const NO_EFFORT = { low: [], medium: [], high: [] } as const;

/** The presets for opencode and Qwen Code (checked against Preset in presets.ts). */
export const MORE_PRESETS = {
  opencode: {
    name: "opencode",
    tool: "opencode",
    executable: "opencode",
    // No message argument: `run` reads it from stdin (no argv length limit). opencode has no
    // permission flag; what it may do is its own config's `permission` (see docs/agents/opencode.md).
    args: ["run", "--format", "json"],
    // Its reasoning knob (`--variant`) is per provider and model: give it in `args`.
    effort: NO_EFFORT,
    prompt: { via: "stdin" },
    output: "opencode-jsonl",
    // opencode prices a call only for models whose prices it knows: a price table makes it certain.
    reportsCost: false,
    docs: "https://opencode.ai/docs/cli/",
  },
  "qwen-code": {
    name: "qwen-code",
    tool: "Qwen Code",
    executable: "qwen",
    // auto-edit: file edits without asking; shell commands are not offered to the model.
    // The prompt on stdin alone is headless mode (no argv length limit).
    args: ["--output-format", "json", "--approval-mode", "auto-edit"],
    effort: NO_EFFORT,
    prompt: { via: "stdin" },
    output: "qwen-json",
    reportsCost: false,
    docs: "https://qwenlm.github.io/qwen-code-docs/en/users/features/headless",
  },
} as const;
