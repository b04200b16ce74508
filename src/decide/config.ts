// Loads and validates the machine config (D-50): the person's own TOML file naming agent runners,
// decision providers and the judgement mode of each type. Only this file (and --decide flags) can
// route a judgement to a model, so a repository can never change how a model is asked (D-10).
//
// Every problem is collected, then thrown together as one DiagnosticError, each with the key's
// FILE:LINE:COL (found by scanning the text, see toml-positions.ts), what was wrong, and what is
// accepted ("did you mean …" where a near name exists).

import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import { DiagnosticError, errorAt, nearestName, type Diagnostic, type Position } from "../lang/diagnostic.js";
import { isPlainObject, parseDurationMs } from "../shared/primitives.js";
import type { AgentRunnerConfig, PriceTable } from "../run/agents/index.js";
import { PRESET_NAMES, PRESETS, type PresetName } from "../run/agents/index.js";
import { presetArgsAnyEffort } from "../run/agents/index.js";
import type {
  CommandProtocol,
  DecisionsConfig,
  JudgementMode,
  MachineConfig,
  ProviderConfig,
  ProviderKind,
  TypeSettings,
} from "./config-types.js";
import { formatMode, MODE_FORMS, modelsOf, parseMode } from "./mode.js";
import { locateKeys, type KeyPositions } from "./toml-positions.js";
import { typeEntry, TYPE_ENTRY_KEYS } from "./type-entry.js";
import { reviewNotify, reviewTimeout } from "./review-config.js";
import { findRedefinition, redefinitionWords, unquotedTypes } from "./toml-mistakes.js";
import { readRegularFileSync } from "../run/process/index.js";
import { itemAt } from "../shared/checked-index.js";
import { messageOf, errnoCode } from "../shared/thrown.js";
import { isOneOf } from "../shared/primitives.js";

/** A machine config is a small text file; anything larger is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;

// `--decide TYPE=MODE` flags are parsed beside the modes themselves; re-exported for callers that
// load the config and its command-line overrides together.
export { parseModeOverride, parseModeOverrides, type ModeOverride } from "./mode.js";

/** A provider call's timeout when its config sets none. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Retries after a provider's first try when its config sets none. */
export const DEFAULT_MAX_RETRIES = 3;
/** The most retries a provider may be configured with: more would hide an outage behind minutes of waiting. */
export const MAX_RETRIES_LIMIT = 10;
/** The host when `[decisions] host` is unset: a person at the terminal. */
export const DEFAULT_HOST = "tty";

const PROVIDER_KINDS: readonly ProviderKind[] = ["systemone", "openai", "command"];
const COMMAND_PROTOCOLS: readonly CommandProtocol[] = ["once", "lines"];
const TOP_KEYS = ["agents", "providers", "decisions"];
const AGENT_KEYS = ["preset", "command", "args", "base_args", "remove_args", "env", "price", "rate_limit_quiet_seconds"];
const PRICE_KEYS = ["input_per_mtok", "output_per_mtok", "cached_input_per_mtok"];
const PROVIDER_KEYS = [
  "kind",
  "vendor",
  "base_url",
  "api_key_env",
  "models",
  "logprob_models",
  "context_window",
  "command",
  "protocol",
  "timeout",
  "max_retries",
];
const DECISIONS_KEYS = ["default", "deny_vendors", "fallback_on_refusal", "host", "types", "review_timeout", "review_notify"];
const NAME = /^[A-Za-z0-9_-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `$XDG_CONFIG_HOME/switchyard/config.toml`, else `~/.config/switchyard/config.toml`. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && xdg.length > 0 ? xdg : join(env.HOME && env.HOME.length > 0 ? env.HOME : homedir(), ".config");
  return join(base, "switchyard", "config.toml");
}

/** Every default: no agents, no providers, every judgement type answered by the host (`tty`). */
export function defaultMachineConfig(): MachineConfig {
  return {
    agents: {},
    providers: {},
    decisions: { default: { kind: "host" }, types: {}, deny_vendors: [], fallback_on_refusal: false, host: DEFAULT_HOST },
  };
}

/**
 * Reads the machine config from `path` (--config; must exist), else from the default location
 * (a missing default file means every default). Throws DiagnosticError with `config-*` codes.
 */
export function loadMachineConfig(path?: string, env: NodeJS.ProcessEnv = process.env): MachineConfig {
  const file = path ?? defaultConfigPath(env);
  let text: string;
  try {
    // Only a regular file, opened non-blocking: a FIFO or a device must not hang `config check`.
    text = readRegularFileSync(file, MAX_CONFIG_BYTES);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") {
      if (path === undefined) return defaultMachineConfig();
      throw new DiagnosticError(
        errorAt(
          "config-not-found",
          `machine config ${file} does not exist`,
          undefined,
          `check the --config path, or omit --config to use ${defaultConfigPath(env)}`,
        ),
      );
    }
    throw new DiagnosticError(
      errorAt(
        "config-unreadable",
        `machine config ${file} cannot be read (${code === "ENOTREG" || code === "EFBIG" || code === "EILSEQ" ? `it ${messageOf(err)}` : (code ?? messageOf(err))})`,
        undefined,
        "make it a readable TOML file",
      ),
    );
  }
  return parseMachineConfig(text, file);
}

/** Validates the text of a machine config; `file` is used in positions and messages. */
export function parseMachineConfig(text: string, file: string): MachineConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split("\n")[0];
      const twice = /redefine/.test(first ?? "") ? findRedefinition(text, err.line) : undefined;
      if (twice) {
        const { message, hint } = redefinitionWords(twice);
        throw new DiagnosticError(errorAt("config-syntax", message, { file, line: err.line, col: 1 }, hint));
      }
      throw new DiagnosticError(errorAt("config-syntax", `invalid TOML: ${first}`, { file, line: err.line, col: err.column }));
    }
    throw err;
  }
  const v = new Validator(file, locateKeys(text, file));
  const config = v.machine(doc);
  if (v.diagnostics.length > 0) throw new DiagnosticError(v.diagnostics);
  config.path = file;
  return config;
}

type Table = Record<string, unknown>;

function isTable(x: unknown): x is Table {
  return isPlainObject(x) && !(x instanceof Date); // TOML dates are objects too
}

function describe(x: unknown): string {
  if (typeof x === "string") return "a string";
  if (typeof x === "boolean") return "a boolean";
  if (typeof x === "number" || typeof x === "bigint") return Number.isInteger(Number(x)) ? "an integer" : "a float";
  if (x instanceof Date) return "a date";
  if (Array.isArray(x)) return "an array";
  return "a table";
}

function dotted(path: readonly string[]): string {
  return path.map((p) => (NAME.test(p) ? p : JSON.stringify(p))).join(".");
}

/** The config path of a key of the table being read. */
type At = (key: string) => string[];

class Validator {
  readonly diagnostics: Diagnostic[] = [];
  /** Providers written in the file but invalid: modes naming them are not reported again. */
  private readonly brokenProviders = new Set<string>();
  constructor(
    readonly file: string,
    readonly where: KeyPositions,
  ) {}

  private keyPos(path: readonly string[]): Position | undefined {
    return this.where.key(path) ?? (path.length > 0 ? this.keyPos(path.slice(0, -1)) : undefined);
  }
  /**
   * Arguments of a `command` array written `./x` or `../x` are paths relative to the config
   * file, so a config can sit beside its scripts and work from any working directory.
   */
  private relativeToConfig(argv: string[]): string[] {
    const base = dirname(resolve(this.file));
    return argv.map((a) => (a.startsWith("./") || a.startsWith("../") ? resolve(base, a) : a));
  }

  private valuePos(path: readonly string[]): Position | undefined {
    return this.where.value(path) ?? this.keyPos(path);
  }
  private error(code: string, path: readonly string[], message: string, hint?: string, atValue = false): void {
    const pos = atValue ? this.valuePos(path) : this.keyPos(path);
    this.diagnostics.push(errorAt(code, message, pos ?? { file: this.file, line: 1, col: 1 }, hint));
  }

  /** Reports keys outside `allowed`; returns the table's own entries. */
  private known(table: Table, path: readonly string[], allowed: readonly string[]): void {
    for (const key of Object.keys(table)) {
      if (allowed.includes(key)) continue;
      const near = nearestName(key, allowed);
      const where = path.length === 0 ? "at the top level" : `in [${dotted(path)}]`;
      this.error(
        "config-unknown-key",
        [...path, key],
        `unknown key "${key}" ${where}${near ? ` (did you mean "${near}"?)` : ""}`,
        `accepted keys ${where}: ${allowed.join(", ")}`,
      );
    }
  }

  private wrongType(path: readonly string[], value: unknown, expected: string): void {
    this.error("config-bad-type", path, `${dotted(path)} must be ${expected}, not ${describe(value)}`, undefined, true);
  }

  private table(parent: Table, path: readonly string[]): Table | undefined {
    const value = parent[itemAt(path, path.length - 1)];
    if (value === undefined) return undefined;
    if (!isTable(value)) {
      this.wrongType(path, value, "a table");
      return undefined;
    }
    return value;
  }

  private string(parent: Table, path: readonly string[]): string | undefined {
    const value = parent[itemAt(path, path.length - 1)];
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      this.wrongType(path, value, "a string");
      return undefined;
    }
    return value;
  }

  private strings(parent: Table, path: readonly string[]): string[] | undefined {
    const value = parent[itemAt(path, path.length - 1)];
    if (value === undefined) return undefined;
    const strings = Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
    if (!Array.isArray(value) || strings.length !== value.length) {
      this.wrongType(path, value, "an array of strings");
      return undefined;
    }
    return strings;
  }

  private required(table: Table, path: readonly string[], key: string, why: string): boolean {
    if (table[key] !== undefined) return true;
    this.error("config-missing-key", path, `[${dotted(path)}] has no "${key}" (${why})`, `add ${key} = … to [${dotted(path)}]`);
    return false;
  }

  machine(doc: Table): MachineConfig {
    const config = defaultMachineConfig();
    this.known(doc, [], TOP_KEYS);
    const agents = this.table(doc, ["agents"]);
    if (agents) {
      for (const [name, body] of Object.entries(agents)) {
        const agent = this.agent(name, body);
        if (agent) config.agents[name] = agent;
      }
    }
    const providers = this.table(doc, ["providers"]);
    if (providers) {
      for (const [name, body] of Object.entries(providers)) {
        const provider = this.provider(name, body);
        if (provider) config.providers[name] = provider;
        else this.brokenProviders.add(name);
      }
    }
    const decisions = this.table(doc, ["decisions"]);
    if (decisions) config.decisions = this.decisions(decisions, config);
    return config;
  }

  // eslint-disable-next-line max-lines-per-function -- a table: one [agents.NAME] entry read key by key, in the order docs/config.md lists them
  private agent(name: string, body: unknown): AgentRunnerConfig | undefined {
    const path = ["agents", name];
    if (!isTable(body)) {
      this.wrongType(path, body, 'a table ([agents.NAME] with preset = "…" or command = [...])');
      return undefined;
    }
    this.known(body, path, AGENT_KEYS);
    const start = this.diagnostics.length;
    let preset: PresetName = "generic";
    const p = this.string(body, [...path, "preset"]);
    if (p !== undefined) {
      if (isOneOf(PRESET_NAMES, p)) preset = p;
      else {
        const near = nearestName(p, PRESET_NAMES);
        this.error(
          "config-bad-value",
          [...path, "preset"],
          `agents.${name}.preset "${p}" is not a preset${near ? ` (did you mean "${near}"?)` : ""}`,
          `accepted presets: ${PRESET_NAMES.join(", ")}`,
          true,
        );
      }
    }
    // A preset knows its executable; `command` then only replaces it (another path, npx, …).
    if (preset === "generic")
      this.required(
        body,
        path,
        "command",
        'the argv of the agent runner, e.g. command = ["my-agent", "--print"], or a preset = "claude-code" | "codex" | "gemini" | "aider"',
      );
    const command = this.strings(body, [...path, "command"]);
    if (command !== undefined && !command[0]) {
      this.error(
        "config-bad-value",
        [...path, "command"],
        `agents.${name}.command is empty`,
        'name the executable first: command = ["my-agent", "--flag"]',
        true,
      );
    }
    const args = this.strings(body, [...path, "args"]);
    const baseArgs = this.strings(body, [...path, "base_args"]);
    const removeArgs = this.strings(body, [...path, "remove_args"]);
    if ((baseArgs !== undefined || removeArgs !== undefined) && preset === "generic")
      this.error(
        "config-bad-value",
        [...path, baseArgs !== undefined ? "base_args" : "remove_args"],
        `agents.${name}.${baseArgs !== undefined ? "base_args" : "remove_args"} changes a preset's arguments, but this runner has no preset`,
        "write the whole argv in command = [...] instead",
        true,
      );
    else if (removeArgs !== undefined) {
      // A flag the preset does not pass is a typo or an outdated line: say so rather than ignore it.
      const passed = presetArgsAnyEffort({ name, command: [], env: {}, preset, ...(baseArgs ? { base_args: baseArgs } : {}) });
      for (const a of removeArgs)
        if (!passed.includes(a))
          this.error(
            "config-bad-value",
            [...path, "remove_args"],
            `agents.${name}.remove_args has ${JSON.stringify(a)}, which the ${preset} preset does not pass`,
            `it passes: ${[...new Set(passed)].join(" ")}`,
            true,
          );
    }
    const env: Record<string, string> = {};
    const envTable = this.table(body, [...path, "env"]);
    if (envTable) {
      for (const [k, val] of Object.entries(envTable)) {
        if (typeof val !== "string") this.wrongType([...path, "env", k], val, "a string");
        else if (!ENV_NAME.test(k)) {
          // A name with "=" or a space cannot be set in a process's environment as written.
          this.error(
            "config-bad-value",
            [...path, "env", k],
            `agents.${name}.env has ${JSON.stringify(k)}, which is not an environment variable name`,
            "use letters, digits and _, not starting with a digit",
            true,
          );
        } else env[k] = val;
      }
    }
    const price = this.price(body, [...path, "price"]);
    const quiet = body.rate_limit_quiet_seconds;
    if (quiet !== undefined && (typeof quiet !== "number" || !Number.isFinite(quiet) || quiet < 0))
      this.wrongType([...path, "rate_limit_quiet_seconds"], quiet, "a number of seconds, 0 or more");
    if (this.diagnostics.length > start) return undefined;
    const argv = command ?? [PRESETS[preset].executable!];
    const runner: AgentRunnerConfig = { name, command: this.relativeToConfig(argv), env };
    if (preset !== "generic") runner.preset = preset;
    if (args !== undefined) runner.args = args;
    if (baseArgs !== undefined) runner.base_args = baseArgs;
    if (removeArgs !== undefined) runner.remove_args = removeArgs;
    if (typeof quiet === "number") runner.rate_limit_quiet_seconds = quiet;
    if (price !== undefined) runner.price = price;
    return runner;
  }

  /** `price = { input_per_mtok = …, output_per_mtok = …, cached_input_per_mtok = … }` in dollars. */
  private price(body: Table, path: readonly string[]): PriceTable | undefined {
    const t = this.table(body, path);
    if (!t) return undefined;
    this.known(t, path, PRICE_KEYS);
    const out: Record<string, number> = {};
    for (const key of PRICE_KEYS) {
      const v = t[key];
      if (v === undefined) continue;
      if (typeof v !== "number" && typeof v !== "bigint") this.wrongType([...path, key], v, "a number (dollars per million tokens)");
      else if (!Number.isFinite(Number(v)) || Number(v) < 0)
        this.error(
          "config-bad-value",
          [...path, key],
          `${dotted(path)}.${key} = ${v} is not a price`,
          "write dollars per million tokens, e.g. 3.0",
          true,
        );
      else out[key] = Number(v);
    }
    for (const key of ["input_per_mtok", "output_per_mtok"]) {
      if (t[key] === undefined)
        this.error("config-missing-key", path, `${dotted(path)} has no "${key}"`, `add ${key} = … (dollars per million tokens)`);
    }
    const { input_per_mtok, output_per_mtok, cached_input_per_mtok } = out;
    if (input_per_mtok === undefined || output_per_mtok === undefined) return undefined;
    return { input_per_mtok, output_per_mtok, ...(cached_input_per_mtok !== undefined ? { cached_input_per_mtok } : {}) };
  }

  /**
   * One [providers.NAME] table, in steps: what it is (kind, vendor, models), where it is
   * (base_url, api_key_env), what it knows of its models (logprob_models, context_window), how
   * it is called (command, timeout, max_retries), and the keys its kind does not read.
   */
  private provider(name: string, body: unknown): ProviderConfig | undefined {
    const path = ["providers", name];
    if (!isTable(body)) {
      this.wrongType(path, body, "a table ([providers.NAME] with kind, vendor, models, …)");
      return undefined;
    }
    if (!NAME.test(name)) {
      this.error(
        "config-bad-value",
        path,
        `provider name "${name}" cannot be used in a mode`,
        'use letters, digits, "_" and "-" only, so that PROVIDER/MODEL reads unambiguously',
      );
    }
    this.known(body, path, PROVIDER_KEYS);
    const at = (key: string): string[] => [...path, key];
    const start = this.diagnostics.length;
    const kind = this.providerKind(name, body, path, at);
    const vendor = this.providerVendor(name, body, path, at);
    const models = this.providerModels(name, body, path, at);
    const { baseUrl, apiKeyEnv } = this.providerEndpoint(name, body, at);
    const logprobModels = this.strings(body, at("logprob_models")) ?? [];
    for (const m of logprobModels) this.listed(name, models, m, at("logprob_models"), "logprob_models");
    const contextWindow = this.providerContextWindow(name, body, models, at);
    const command = this.providerCommand(name, body, at);
    const protocol = this.providerProtocol(name, body, at);
    const { timeoutMs, maxRetries } = this.providerTiming(name, body, at);
    if (kind !== undefined) this.keysOfOtherKinds(name, body, kind, path, at);

    if (this.diagnostics.length > start || kind === undefined || vendor === undefined) return undefined;
    const provider: ProviderConfig = {
      name,
      kind,
      vendor,
      models,
      logprob_models: logprobModels,
      context_window: contextWindow,
      timeout_ms: timeoutMs,
      max_retries: maxRetries,
    };
    if (baseUrl !== undefined) provider.base_url = baseUrl;
    if (apiKeyEnv !== undefined) provider.api_key_env = apiKeyEnv;
    if (command !== undefined) provider.command = this.relativeToConfig(command);
    if (protocol !== undefined) provider.protocol = protocol;
    return provider;
  }

  private providerKind(name: string, body: Table, path: string[], at: At): ProviderKind | undefined {
    let kind: ProviderKind | undefined;
    if (this.required(body, path, "kind", `one of ${PROVIDER_KINDS.join(", ")}`)) {
      const k = this.string(body, at("kind"));
      if (k !== undefined) {
        if (isOneOf(PROVIDER_KINDS, k)) kind = k;
        else {
          const near = nearestName(k, PROVIDER_KINDS);
          this.error(
            "config-bad-value",
            at("kind"),
            `providers.${name}.kind "${k}" is not a provider kind${near ? ` (did you mean "${near}"?)` : ""}`,
            `accepted kinds: ${PROVIDER_KINDS.join(", ")}`,
            true,
          );
        }
      }
    }
    return kind;
  }

  private providerVendor(name: string, body: Table, path: string[], at: At): string | undefined {
    let vendor: string | undefined;
    if (this.required(body, path, "vendor", "who makes its models, checked against [decisions] deny_vendors")) {
      vendor = this.string(body, at("vendor"));
      if (vendor !== undefined && vendor.trim().length === 0) {
        this.error(
          "config-bad-value",
          at("vendor"),
          `providers.${name}.vendor is empty`,
          'name the vendor, e.g. vendor = "typesafe"',
          true,
        );
      }
    }
    return vendor;
  }

  private providerModels(name: string, body: Table, path: string[], at: At): string[] {
    let models: string[] = [];
    if (this.required(body, path, "models", "the allowlist of models that may be asked (D-30)")) {
      models = this.strings(body, at("models")) ?? [];
      if (Array.isArray(body.models) && body.models.length === 0) {
        this.error(
          "config-bad-value",
          at("models"),
          `providers.${name}.models is empty: no model of it could ever be asked`,
          'list the models, e.g. models = ["jev-1"]',
          true,
        );
      }
      if (models.some((m) => m.trim().length === 0)) {
        this.error("config-bad-value", at("models"), `providers.${name}.models has an empty model name`, undefined, true);
      }
    }

    return models;
  }

  private providerEndpoint(name: string, body: Table, at: At): { baseUrl?: string; apiKeyEnv?: string } {
    const baseUrl = this.string(body, at("base_url"));
    if (baseUrl !== undefined) {
      let okUrl = false;
      try {
        const u = new URL(baseUrl);
        okUrl = u.protocol === "http:" || u.protocol === "https:";
      } catch {
        okUrl = false;
      }
      if (!okUrl)
        this.error(
          "config-bad-value",
          at("base_url"),
          `providers.${name}.base_url "${baseUrl}" is not an http(s) URL`,
          'write e.g. base_url = "http://127.0.0.1:8000"',
          true,
        );
    }
    const apiKeyEnv = this.string(body, at("api_key_env"));
    if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv)) {
      // Never echo the value: a person may have pasted the key itself here.
      this.error(
        "config-bad-value",
        at("api_key_env"),
        `providers.${name}.api_key_env must be the NAME of an environment variable, not the key itself`,
        'write e.g. api_key_env = "TYPESAFE_API_KEY" and export the key in that variable',
        true,
      );
    }
    return { ...(baseUrl !== undefined ? { baseUrl } : {}), ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}) };
  }

  private providerContextWindow(name: string, body: Table, models: string[], at: At): Record<string, number> {
    const contextWindow: Record<string, number> = {};
    const cw = this.table(body, at("context_window"));
    if (cw) {
      for (const [m, tokens] of Object.entries(cw)) {
        const p = [...at("context_window"), m];
        if (typeof tokens !== "number" && typeof tokens !== "bigint") this.wrongType(p, tokens, "an integer (tokens)");
        else if (!Number.isSafeInteger(Number(tokens)) || Number(tokens) <= 0) {
          this.error(
            "config-bad-value",
            p,
            `providers.${name}.context_window.${m} = ${tokens} is not a positive number of tokens`,
            undefined,
            true,
          );
        } else {
          this.listed(name, models, m, p, "context_window", false);
          contextWindow[m] = Number(tokens);
        }
      }
    }
    return contextWindow;
  }

  private providerCommand(name: string, body: Table, at: At): string[] | undefined {
    const command = this.strings(body, at("command"));
    if (command !== undefined && !command[0]) {
      this.error(
        "config-bad-value",
        at("command"),
        `providers.${name}.command is empty`,
        'name the executable first: command = ["./my-decider", "--flag"]',
        true,
      );
    }

    return command;
  }

  private providerProtocol(name: string, body: Table, at: At): CommandProtocol | undefined {
    const p = this.string(body, at("protocol"));
    if (p === undefined || isOneOf(COMMAND_PROTOCOLS, p)) return p;
    const near = nearestName(p, COMMAND_PROTOCOLS);
    this.error(
      "config-bad-value",
      at("protocol"),
      `providers.${name}.protocol "${p}" is not a protocol${near ? ` (did you mean "${near}"?)` : ""}`,
      'accepted: "once" (the program is started per request, the default) or "lines" (started once, a line of JSON per request and per answer)',
      true,
    );
    return undefined;
  }

  private providerTiming(name: string, body: Table, at: At): { timeoutMs: number; maxRetries: number } {
    let timeoutMs = DEFAULT_TIMEOUT_MS;
    const timeout = this.string(body, at("timeout"));
    if (timeout !== undefined) {
      const ms = parseDurationMs(timeout);
      if (ms === undefined)
        this.error(
          "config-bad-value",
          at("timeout"),
          `providers.${name}.timeout "${timeout}" is not a duration`,
          'write e.g. timeout = "30s", "500ms", "2m" or "1m30s"',
          true,
        );
      else timeoutMs = ms;
    }
    let maxRetries = DEFAULT_MAX_RETRIES;
    const retries = body.max_retries;
    if (retries !== undefined) {
      if (typeof retries !== "number" && typeof retries !== "bigint") this.wrongType(at("max_retries"), retries, "an integer");
      else if (!Number.isInteger(Number(retries)) || Number(retries) < 0 || Number(retries) > MAX_RETRIES_LIMIT) {
        this.error(
          "config-bad-value",
          at("max_retries"),
          `providers.${name}.max_retries = ${retries} is out of range`,
          `use an integer from 0 to ${MAX_RETRIES_LIMIT}`,
          true,
        );
      } else maxRetries = Number(retries);
    }

    return { timeoutMs, maxRetries };
  }

  /** Keys that only some kinds read: a key the provider would silently ignore is a mistake. */
  private keysOfOtherKinds(name: string, body: Table, kind: ProviderKind, path: string[], at: At): void {
    const notFor = (key: string, kinds: ProviderKind[]): void => {
      if (body[key] !== undefined && !kinds.includes(kind)) {
        this.error(
          "config-key-not-for-kind",
          at(key),
          `providers.${name}.${key} does not apply to kind "${kind}"`,
          `${key} is read only by kind ${kinds.map((k) => `"${k}"`).join(" and ")}; remove it or change the kind`,
        );
      }
    };
    notFor("command", ["command"]);
    notFor("protocol", ["command"]);
    notFor("base_url", ["systemone", "openai"]);
    notFor("api_key_env", ["systemone", "openai"]);
    notFor("logprob_models", ["openai"]);
    if (kind === "systemone")
      this.required(body, path, "base_url", 'where the System One API is, e.g. base_url = "https://api.typesafe.ai"');
    if (kind === "command") this.required(body, path, "command", 'the executable that answers, e.g. command = ["./my-decider"]');
  }

  private listed(provider: string, models: string[], model: string, path: readonly string[], what: string, atValue = true): void {
    if (models.includes(model)) return;
    const near = nearestName(model, models);
    this.error(
      "config-unlisted-model",
      path,
      `providers.${provider}.${what} names model "${model}", which is not in providers.${provider}.models${near ? ` (did you mean "${near}"?)` : ""}`,
      `listed models: ${models.join(", ") || "(none)"}`,
      atValue,
    );
  }

  private decisions(body: Table, config: MachineConfig): DecisionsConfig {
    const path = ["decisions"];
    const out = defaultMachineConfig().decisions;
    this.known(body, path, DECISIONS_KEYS);
    const def = this.string(body, ["decisions", "default"]);
    if (def !== undefined) out.default = this.mode(def, ["decisions", "default"], "decisions.default", config) ?? out.default;

    const deny = this.strings(body, ["decisions", "deny_vendors"]);
    if (deny) out.deny_vendors = deny;
    const review = { error: this.error.bind(this), wrongType: this.wrongType.bind(this) };
    const timeout = reviewTimeout(review, body.review_timeout, ["decisions", "review_timeout"], "decisions.review_timeout");
    if (timeout !== undefined) out.review_timeout_ms = timeout;
    const notify = reviewNotify(review, body.review_notify, ["decisions", "review_notify"]);
    if (notify) out.review_notify = notify;
    const fallback = body.fallback_on_refusal;
    if (fallback !== undefined) {
      if (typeof fallback !== "boolean") this.wrongType(["decisions", "fallback_on_refusal"], fallback, "a boolean (true or false)");
      else out.fallback_on_refusal = fallback;
    }
    const host = this.string(body, ["decisions", "host"]);
    if (host !== undefined) {
      if (host === "tty" || Object.hasOwn(config.agents, host)) out.host = host;
      else {
        const choices = ["tty", ...Object.keys(config.agents)];
        const near = nearestName(host, choices);
        this.error(
          "config-unknown-agent",
          ["decisions", "host"],
          `decisions.host "${host}" is neither "tty" nor an [agents.NAME] runner${near ? ` (did you mean "${near}"?)` : ""}`,
          `accepted: ${choices.map((c) => `"${c}"`).join(", ")}`,
          true,
        );
      }
    }
    const types = this.table(body, ["decisions", "types"]);
    if (types) {
      for (const [type, value] of Object.entries(types)) {
        const p = ["decisions", "types", type];
        const unquoted = unquotedTypes(type, value, TYPE_ENTRY_KEYS);
        for (const u of unquoted) {
          const written = typeof u.value === "string" ? JSON.stringify(u.value) : "{ mode = … }";
          this.error(
            "config-unquoted-type",
            p,
            `${u.type} = ${written} in [decisions.types] has dots outside quotes, so TOML reads it as nested tables (${u.type.split(".").join(" → ")}), not as one judgement type`,
            `quote the whole type: "${u.type}" = ${written}`,
          );
        }
        if (unquoted.length > 0) continue;
        if (isTable(value)) {
          const settings = this.typeEntry(type, value, p, config);
          if (settings) {
            out.types[type] = settings.mode;
            (out.settings ??= {})[type] = settings;
          }
          continue;
        }
        if (typeof value !== "string") {
          this.wrongType(p, value, `a mode string (${MODE_FORMS}) or a table { mode = …, calibration = …, min_confidence = …, audit = … }`);
          continue;
        }
        const mode = this.mode(value, p, `decisions.types.${dotted([type])}`, config);
        if (mode) out.types[type] = mode;
      }
    }
    return out;
  }

  /** A table-form entry (type-entry.ts), reporting through this validator. */
  private typeEntry(type: string, body: Table, path: readonly string[], config: MachineConfig): TypeSettings | undefined {
    return typeEntry(type, body, path, `decisions.types.${dotted([type])}`, {
      error: (code, p, message, hint, atValue) => this.error(code, p, message, hint, atValue),
      wrongType: (p, value, expected) => this.wrongType(p, value, expected),
      known: (table, p, allowed) => this.known(table, p, allowed),
      mode: (text, p, name) => this.mode(text, p, name, config),
      baseDir: dirname(resolve(this.file)),
    });
  }

  private mode(text: string, path: readonly string[], name: string, config: MachineConfig): JudgementMode | undefined {
    const mode = parseMode(text);
    if ("error" in mode) {
      this.error("config-bad-mode", path, `${name}: ${mode.error}`, `a mode is ${MODE_FORMS}`, true);
      return undefined;
    }
    // Each model a mode routes to (every shadow candidate, H-6) must pass; each problem is reported.
    let ok = true;
    for (const ref of modelsOf(mode)) {
      if (this.brokenProviders.has(ref.provider)) {
        ok = false;
        continue;
      }
      const problem = routeProblem(config, ref, false, [...this.brokenProviders]);
      if (problem) {
        this.error(problem.code, path, `${name} = "${formatMode(mode)}": ${problem.message}`, problem.hint, true);
        ok = false;
      }
    }
    return ok ? mode : undefined;
  }
}

/** Why a mode's model may not be asked (D-30): its provider is unknown, the model is not allowlisted, or its vendor is denied. */
export interface RouteProblem {
  code: "config-unknown-provider" | "config-unlisted-model" | "config-denied-vendor";
  message: string;
  hint?: string;
}

/**
 * Why a model mode cannot be used (D-30), or undefined: the provider must exist, list the model,
 * and not be of a denied vendor. Shared by the loader, the router's preflight and `config check`.
 * With `checkVendor = false` (the loader) a denied vendor is left for the run to report.
 */
export function routeProblem(
  config: MachineConfig,
  mode: { provider: string; model: string },
  checkVendor = false,
  otherProviderNames: readonly string[] = [],
): RouteProblem | undefined {
  const provider = Object.hasOwn(config.providers, mode.provider) ? config.providers[mode.provider] : undefined;
  if (provider === undefined) {
    const names = [...Object.keys(config.providers), ...otherProviderNames];
    const near = nearestName(mode.provider, names);
    return {
      code: "config-unknown-provider",
      message: `no provider "${mode.provider}" is configured${near ? ` (did you mean "${near}"?)` : ""}`,
      hint:
        names.length > 0 ? `configured providers: ${names.join(", ")}` : `add a [providers.${mode.provider}] block to the machine config`,
    };
  }
  if (!provider.models.includes(mode.model)) {
    const near = nearestName(mode.model, provider.models);
    return {
      code: "config-unlisted-model",
      message: `model "${mode.model}" is not in providers.${mode.provider}.models${near ? ` (did you mean "${near}"?)` : ""}`,
      hint: `listed models: ${provider.models.join(", ")}; add the model there to allow it (D-30)`,
    };
  }
  if (checkVendor && config.decisions.deny_vendors.includes(provider.vendor)) {
    return {
      code: "config-denied-vendor",
      message: `provider "${mode.provider}" is of vendor "${provider.vendor}", which [decisions] deny_vendors denies`,
      hint: "no listing overrides deny_vendors (D-30): route the type to another provider, or remove the vendor from deny_vendors",
    };
  }
  return undefined;
}

/**
 * The environment variables holding provider keys (every `api_key_env`), for the run engine's
 * `secretEnv`: they are never passed to commands or agents (R-20).
 */
export function secretEnvNames(config: MachineConfig): string[] {
  const names = new Set<string>();
  for (const p of Object.values(config.providers)) if (p.api_key_env) names.add(p.api_key_env);
  return [...names].sort();
}
