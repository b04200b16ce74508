// The options of State.run, resume and rerun (docs/api.md), checked and turned into what the
// wiring and the engine take. A wrong option throws ApiOptionError before anything is admitted.

import { parseMode, MODE_FORMS } from "../decide/mode.js";
import type { JudgementMode } from "../decide/config-types.js";
import type { AgentFunction } from "../run/agents/index.js";
import type { SettingsOverrides, Store } from "../run/index.js";
import { ApiOptionError } from "./api-error.js";
import type { DecisionProvider } from "./code-provider.js";
import type { WiringInput } from "./wiring.js";

/** How a run is executed: the machine config, the ceilings this invocation sets, and runners and providers as code. */
export interface RunOptions {
  /** The machine config file (D-50); default $SWITCHYARD_CONFIG, else $XDG_CONFIG_HOME/switchyard/config.toml if present, else every default. */
  config?: string;
  /** Most command/agent/evaluate instances at once (overrides the playbook's setting). */
  concurrency?: number;
  /** Most decision requests at once. */
  decisionConcurrency?: number;
  /** The run's wall-clock ceiling in seconds. */
  maxDurationSeconds?: number;
  /** The run's ceiling on agents' reported cost, in dollars. */
  budgetUsd?: number;
  /** Judgement modes (D-10), winning over the machine config: `host`, `PROVIDER/MODEL` or `shadow:PROVIDER/MODEL`. */
  decisions?: { default?: string; types?: Record<string, string> };
  /** Agent runners as functions, by the name tasks give as `runner` (win over the config's [agents.NAME]). */
  runners?: Record<string, AgentFunction>;
  /** Decision providers as code, by the name modes give as PROVIDER (win over the config's [providers.NAME]). */
  providers?: Record<string, DecisionProvider>;
  /** Who answers host-mode questions and fallbacks (D-20), instead of the config's [decisions] host. */
  host?: DecisionProvider;
  /** Take over a run whose recorded owner cannot be verified (resume and rerun; as `--force`). */
  force?: boolean;
}

function count(name: string, v: number | undefined, min: number, whole: boolean): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || (whole && !Number.isSafeInteger(v)))
    throw new ApiOptionError(`${name} must be ${whole ? "a whole number" : "a number"} of at least ${min}, got ${JSON.stringify(v)}`);
  return v;
}

/** The settings the options override (R-5, R-6), checked. */
export function overridesOf(o: RunOptions): SettingsOverrides {
  const out: SettingsOverrides = {};
  const c = count("concurrency", o.concurrency, 1, true);
  if (c !== undefined) out.concurrency = c;
  const d = count("decisionConcurrency", o.decisionConcurrency, 1, true);
  if (d !== undefined) out.decision_concurrency = d;
  const m = count("maxDurationSeconds", o.maxDurationSeconds, 0, false);
  if (m !== undefined) out.max_duration_seconds = m;
  const b = count("budgetUsd", o.budgetUsd, 0, false);
  if (b !== undefined) out.budget_usd = b;
  return out;
}

function modeOf(where: string, text: string): JudgementMode {
  const m = typeof text === "string" ? parseMode(text) : { error: "not a string" };
  if ("error" in m) throw new ApiOptionError(`${where}: ${m.error}`, `a mode is ${MODE_FORMS}`);
  return m;
}

function checkCode(o: RunOptions): void {
  for (const [name, fn] of Object.entries(o.runners ?? {}))
    if (typeof fn !== "function") throw new ApiOptionError(`runners.${name} must be a function (turn, signal) => Promise<AgentResult>`);
  const providers = Object.entries(o.providers ?? {}).concat(o.host ? [["host", o.host]] : []);
  for (const [name, p] of providers)
    if (typeof p?.decide !== "function")
      throw new ApiOptionError(
        `${name === "host" && o.host === p ? "host" : `providers.${name}`} must be an object with a decide(request, signal) method`,
      );
}

/** The wiring's input from the options: the config file, modes, overrides, runners and providers. */
export function wiringInput(o: RunOptions, store: Store): WiringInput {
  checkCode(o);
  const decide: Record<string, JudgementMode> = {};
  for (const [type, text] of Object.entries(o.decisions?.types ?? {})) decide[type] = modeOf(`decisions.types["${type}"]`, text);
  const defaultMode = o.decisions?.default === undefined ? undefined : modeOf("decisions.default", o.decisions.default);
  return {
    configPath: o.config ?? (process.env.SWITCHYARD_CONFIG || undefined),
    stateDir: store.stateDir,
    store,
    overrides: overridesOf(o),
    decide,
    ...(defaultMode ? { defaultMode } : {}),
    ...(o.runners ? { runners: o.runners } : {}),
    ...(o.providers ? { providers: o.providers } : {}),
    ...(o.host ? { host: o.host } : {}),
  };
}
