// What a run is wired to (D-1, D-50, H-1): the machine config's agent runners and decision layer,
// the runners and providers given as code, the judgement modes, the lab sink for shadow pairs, and
// the settings this invocation overrides. The CLI's flags and the library's options both end here.

import { loadMachineConfig, secretEnvNames } from "../decide/config.js";
import { modeFor, modelsOf } from "../decide/mode.js";
import type { JudgementMode, MachineConfig } from "../decide/config-types.js";
import { deferredJudge } from "../decide/deferred-judge.js";
import type { Provider } from "../decide/provider.js";
import { openLabSink } from "../lab/store.js";
import { openSharedLabSink, sharedStore } from "../lab/shared-labs.js";
import { loadEvaluator, type Plan, type TaskPlan } from "../plan/index.js";
import type { AgentFunction } from "../run/agents/index.js";
import type { RunEngine, SettingsOverrides, Store } from "../run/index.js";
import { codeProvider, codeProviderConfig, type DecisionProvider } from "./code-provider.js";

/** What a run is wired to: the engine's agent runners, judge, secrets and limits, and how to close them. */
export interface Wiring {
  engineDeps: Pick<ConstructorParameters<typeof RunEngine>[0], "agentRunners" | "judge" | "secretEnv" | "overrides" | "maxFileBytes">;
  close: () => Promise<void>;
  /**
   * Loads the decision layer when `plan` has model-decided routes (deferred-judge.ts: a plan
   * without them never loads it); call before the decision preflight or the run's engine.
   */
  ready: (plan: Plan) => Promise<void>;
  /** The machine config (code runners and providers included), for the agent preflight. */
  config: MachineConfig;
  modeOf: (type: string) => JudgementMode;
  evaluators: (snapshotDir: string, plan: Plan) => (task: TaskPlan) => (input: unknown) => unknown;
}

/** What a run is wired from: the machine config file, the overrides, and what was given as code. */
export interface WiringInput {
  /** The machine config file; undefined: none (every default). */
  configPath: string | undefined;
  stateDir: string;
  store?: Store;
  overrides: SettingsOverrides;
  /** Judgement type → mode (`--decide`, the `decisions` option), winning over the config. */
  decide: Record<string, JudgementMode>;
  /** Replaces the config's [decisions] default. */
  defaultMode?: JudgementMode;
  runners?: Record<string, AgentFunction>;
  providers?: Record<string, DecisionProvider>;
  host?: DecisionProvider;
  maxFileBytes?: number;
}

/** Every model the modes route to provider `name`: a code provider's default allowlist. */
function modelsRoutedTo(name: string, modes: JudgementMode[]): string[] {
  return [...new Set(modes.flatMap((m) => modelsOf(m).flatMap((r) => (r.provider === name ? [r.model] : []))))];
}

/** The machine config with the code runners and providers added (a name given as code wins over the file's). */
function withCode(base: MachineConfig, input: WiringInput): MachineConfig {
  const decisions = input.defaultMode ? { ...base.decisions, default: input.defaultMode } : base.decisions;
  const agents = { ...base.agents };
  for (const [name, turn] of Object.entries(input.runners ?? {})) agents[name] = { name, command: [], env: {}, turn };
  const providers = { ...base.providers };
  const modes = [decisions.default, ...Object.values(decisions.types), ...Object.values(input.decide)];
  for (const [name, p] of Object.entries(input.providers ?? {})) providers[name] = codeProviderConfig(name, p, modelsRoutedTo(name, modes));
  return { ...base, agents, providers, decisions };
}

/**
 * The host when the options decide it (D-20): a provider given as code; or, when a runner given as
 * code took the name [decisions] host gives, the config file's own runner of that name (a function
 * runner does agent turns, it cannot answer as the host). Undefined: the judge builds the host.
 */
async function hostFor(base: MachineConfig, config: MachineConfig, input: WiringInput): Promise<Provider | undefined> {
  if (input.host) return codeProvider("host", input.host);
  const name = base.decisions.host;
  if (!input.runners || !Object.hasOwn(input.runners, name)) return undefined;
  // The config loader refuses a host that names no [agents.NAME] of the file (unless it is tty).
  const runner = base.agents[name];
  if (!runner) return undefined;
  const { HostProvider } = await import("../decide/providers/host.js");
  return new HostProvider({ runner, hideEnv: secretEnvNames(config) });
}

/** The judgement types of the plan's model-decided routes (what the decision preflight checks, D-30). */
export function judgementTypes(plan: Plan): string[] {
  const types = new Set<string>();
  for (const t of plan.tasks) if (t.kind === "route" && t.route?.decide === "model") for (const q of t.route.questions) types.add(q.type);
  return [...types].sort();
}

/** Wires a run: machine config (D-50), modes (D-10), the decision layer (D-1) and the lab sink (H-1). */
export function wireRun(input: WiringInput): Wiring {
  const base = loadMachineConfig(input.configPath);
  const config = withCode(base, input);
  // On a shared (PostgreSQL) store, pairs go to the store's current lab (lab/shared-labs.ts).
  const shared = sharedStore(input.store);
  const pairs = shared ? openSharedLabSink(shared) : openLabSink(input.stateDir);
  const injected: Record<string, Provider> = {};
  for (const [name, p] of Object.entries(input.providers ?? {})) injected[name] = codeProvider(name, p);
  const modeOf = (type: string): JudgementMode => modeFor(type, config.decisions, input.decide);
  let host: Provider | undefined;
  // The router and the host are loaded only for a plan that asks them (deferred-judge.ts).
  const judge = deferredJudge(async () => {
    const [{ createJudge }, made] = await Promise.all([import("../decide/router.js"), hostFor(base, config, input)]);
    host = made;
    return createJudge({
      config,
      overrides: input.decide,
      stateDir: input.stateDir,
      pairs,
      providers: injected,
      ...(host ? { host } : {}),
    });
  }, modeOf);
  const secretEnv = secretEnvNames(config);
  const { overrides, maxFileBytes } = input;
  return {
    engineDeps: { agentRunners: config.agents, judge, secretEnv, overrides, ...(maxFileBytes !== undefined ? { maxFileBytes } : {}) },
    config,
    modeOf,
    ready: async (plan) => {
      if (judgementTypes(plan).length > 0) await judge.load(); // only model-decided routes ask it (D-1)
    },
    close: async () => {
      await judge.close();
      await host?.close?.(); // an injected host is closed by whoever made it (routing/providers.ts)
      pairs.close();
    },
    evaluators: (snapshotDir, plan) => (task) => loadEvaluator(snapshotDir, plan, task),
  };
}
