// How each real agent CLI is pointed at the project's local model server (test/support/*-server.ts),
// in a private HOME of its own so that nothing of the machine's user is read or written, with its
// telemetry, error reporting and update checks off through the tool's documented variables and
// settings. What a user would put in the machine config: the runner's `env` and `args`.
//
// Sources (looked up with the search tool, December 2026):
// - Claude Code: ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY; CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
//   (no telemetry, error reporting, update checks), DISABLE_AUTOUPDATER, DISABLE_TELEMETRY,
//   DISABLE_ERROR_REPORTING (https://docs.anthropic.com/en/docs/claude-code/settings).
// - Codex: a custom provider in $CODEX_HOME/config.toml (`model_providers.NAME` with base_url,
//   env_key, wire_api = "responses", request_max_retries, stream_max_retries),
//   `check_for_update_on_startup = false`, `[analytics] enabled = false`
//   (https://github.com/openai/codex/blob/main/docs/config.md, openai/codex#8350).
// - Gemini CLI: GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and `security.auth.selectedType =
//   "gemini-api-key"` in ~/.gemini/settings.json (with the base URL alone it picks gateway auth,
//   which headless mode refuses); `privacy.usageStatisticsEnabled`, `telemetry.enabled`,
//   `general.disableAutoUpdate`, `general.maxAttempts` (https://geminicli.com/docs/reference/configuration).
// - Qwen Code: OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL with `security.auth.selectedType =
//   "openai"` in ~/.qwen/settings.json; the same privacy / telemetry settings as Gemini CLI, which it
//   is forked from (https://qwenlm.github.io/qwen-code-docs/en/users/configuration/settings).
// - opencode: a custom provider (`npm: "@ai-sdk/openai-compatible"`, options.baseURL, models) in
//   OPENCODE_CONFIG_CONTENT; OPENCODE_DISABLE_AUTOUPDATE, OPENCODE_DISABLE_MODELS_FETCH (no
//   models.dev download), `autoupdate: false`, `share: "disabled"`, `permission.bash = "ask"`
//   (https://opencode.ai/docs/providers/, https://opencode.ai/docs/config/).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentCli } from "./clis.js";

export interface ToolSetup {
  /** The runner's `env` in the machine config. */
  env: Record<string, string>;
  /** The runner's `args` in the machine config (the model to use). */
  args: string[];
}

export const API_KEY = "test-key-not-a-secret";

/** The folder the tools may write their own state to (HOME), under `dir`. */
export function toolSetup(cli: AgentCli, url: string, dir: string): ToolSetup {
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  const base = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    NO_COLOR: "1",
  };
  switch (cli) {
    case "claude-code":
      return {
        env: {
          ...base,
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: API_KEY,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_ERROR_REPORTING: "1",
          // The tool's own retries of a 429 / 500 (10 by default, with back-off) would only slow
          // the error cases down; switchyard's handling of the report is what is tested.
          CLAUDE_CODE_MAX_RETRIES: "0",
        },
        // A model with published prices, so the tool's own cost figure can be checked by hand.
        args: ["--model", "claude-sonnet-4-5"],
      };
    case "codex": {
      const codexHome = join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, "config.toml"),
        [
          'model = "gpt-5-codex"',
          'model_provider = "local"',
          "check_for_update_on_startup = false",
          "",
          "[analytics]",
          "enabled = false",
          "",
          "[model_providers.local]",
          'name = "local"',
          `base_url = "${url}/v1"`,
          'env_key = "LOCAL_MODEL_API_KEY"',
          'wire_api = "responses"',
          "request_max_retries = 0",
          "stream_max_retries = 0",
          "",
        ].join("\n"),
      );
      return { env: { ...base, CODEX_HOME: codexHome, LOCAL_MODEL_API_KEY: API_KEY }, args: [] };
    }
    case "gemini": {
      mkdirSync(join(home, ".gemini"), { recursive: true });
      writeFileSync(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          // One attempt per model request: its own 10, with back-off, make the API 500 case take
          // minutes; switchyard's handling of the report is what is tested.
          general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
        }),
      );
      return { env: { ...base, GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: API_KEY }, args: ["--model", "gemini-2.5-pro"] };
    }
    case "qwen-code": {
      mkdirSync(join(home, ".qwen"), { recursive: true });
      writeFileSync(
        join(home, ".qwen", "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "openai" } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
        }),
      );
      return { env: { ...base, OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: API_KEY, OPENAI_MODEL: "local-model" }, args: [] };
    }
    case "opencode":
      return {
        env: {
          ...base,
          LOCAL_MODEL_API_KEY: API_KEY,
          OPENCODE_DISABLE_AUTOUPDATE: "1",
          OPENCODE_DISABLE_MODELS_FETCH: "1",
          OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
          OPENCODE_CONFIG_CONTENT: JSON.stringify({
            $schema: "https://opencode.ai/config.json",
            autoupdate: false,
            share: "disabled",
            model: "local/local-model",
            // opencode's own default lets its bash tool run anything; the setting docs/agents/opencode.md
            // recommends: shell commands need approval, which `run` (no one to ask) refuses.
            permission: { bash: "ask" },
            provider: {
              local: {
                npm: "@ai-sdk/openai-compatible",
                name: "local",
                options: { baseURL: `${url}/v1`, apiKey: "{env:LOCAL_MODEL_API_KEY}" },
                models: { "local-model": { name: "local-model" } },
              },
            },
          }),
        },
        args: ["--model", "local/local-model"],
      };
  }
}
