// Before a run starts: the problems that would fail its decisions, found while nobody has paid for
// anything yet. Each is a sentence naming the rule, the judgement type and how it was routed;
// problems a run survives (a refused model, answered by the host instead) are warnings.

import { nearestName } from "../../lang/diagnostic.js";
import type { JudgementMode, MachineConfig, TypeSettings } from "../config-types.js";
import { routeProblem } from "../config.js";
import { formatMode, modelsOf } from "../mode.js";
import type { Provider } from "../provider.js";

/** What preflight reads: the config and overrides, what was injected, and where warnings go. */
export interface PreflightContext {
  config: MachineConfig;
  overrides: Record<string, JudgementMode>;
  modeOf: (type: string) => JudgementMode;
  settingsOf: (type: string) => TypeSettings | undefined;
  providers?: Record<string, Provider> | undefined;
  host?: Provider | undefined;
  /** Whether a lab is open to take shadow and audit pairs. */
  hasPairs: boolean;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
}

/** The problems that must stop a run asking `types` (D-10, D-20, D-21, D-30, D-34, H-1); warns of the rest. */
export function preflight(ctx: PreflightContext, types: string[]): string[] {
  const { config, overrides } = ctx;
  const hostName = config.decisions.host;
  const problems: string[] = [];
  const unique = [...new Set(types)];
  // Every mode may need the host (host, shadow, and the fallback of turned-on types).
  if (unique.length > 0 && !ctx.host && hostName !== "tty" && !Object.hasOwn(config.agents, hostName)) {
    problems.push(`D-20: [decisions] host is "${hostName}", which is neither "tty" nor an [agents.NAME] runner of the machine config`);
  }
  for (const type of unique) {
    const mode = ctx.modeOf(type);
    if (mode.kind === "host" || mode.kind === "review") continue;
    // Each model the type is routed to (every shadow candidate, H-6) is checked on its own.
    const keyChecked = new Set<string>();
    for (const ref of modelsOf(mode)) {
      const problem = routeProblem(config, ref, true);
      if (problem) {
        const what = `D-30: judgement type "${type}" is routed to ${formatMode(mode)} (by ${routedBy(config, overrides, type)}), but ${problem.message}`;
        if (problem.code === "config-unknown-provider") {
          // A provider that does not exist is a typo to fix, not a model to refuse.
          problems.push(`${what}${problem.hint ? `; ${problem.hint}` : ""}`);
        } else {
          // An unlisted model or a denied vendor is reported now (D-30) and never asked: turned
          // on, the host answers with a receipt (D-31); in shadow, each pair is recorded as skipped.
          const consequence =
            mode.kind === "shadow"
              ? `its shadow pairs${mode.models.length > 1 ? ` of ${ref.provider}/${ref.model}` : ""} will be recorded as skipped`
              : "the host answers it instead, with a fallback receipt on each decision (D-31)";
          ctx.warn(`${what}: ${consequence}`);
        }
        continue;
      }
      const keyEnv = config.providers[ref.provider]?.api_key_env;
      if (keyEnv !== undefined && !ctx.providers?.[ref.provider] && !ctx.env[keyEnv] && !keyChecked.has(ref.provider)) {
        keyChecked.add(ref.provider);
        problems.push(
          `D-21: judgement type "${type}" is routed to ${formatMode(mode)}, but provider "${ref.provider}" reads its key from $${keyEnv}, which is not set`,
        );
      }
    }
    if (mode.kind === "shadow" && !ctx.hasPairs) {
      problems.push(`H-1: judgement type "${type}" runs in shadow mode, but no lab is open to record its pairs`);
    }
    if (mode.kind === "model" && ctx.settingsOf(type)?.audit !== undefined && !ctx.hasPairs) {
      problems.push(`D-34: judgement type "${type}" is audited, but no lab is open to record its audit pairs`);
    }
  }
  for (const type of Object.keys(overrides)) {
    if (unique.includes(type)) continue;
    const near = nearestName(type, unique);
    problems.push(
      `D-10: --decide names judgement type "${type}", which no question of this run asks${near ? ` (did you mean "${near}"?)` : ""}`,
    );
  }
  return problems;
}

/** Which setting routed a type to its mode, in the words of the config and the command line (D-10). */
export function routedBy(config: MachineConfig, overrides: Record<string, JudgementMode>, type: string): string {
  if (Object.hasOwn(overrides, type)) return "--decide";
  return Object.hasOwn(config.decisions.types, type) ? "[decisions.types]" : "[decisions] default";
}
