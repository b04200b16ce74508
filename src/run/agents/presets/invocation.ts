// How a runner is started for one turn: the argv its preset builds (executable,
// the preset's non-interactive and permission flags — or the config's `base_args` instead — the
// effort knobs, less the config's `remove_args`, then the config's extra `args`, then the prompt
// the way the tool takes it), the environment the tool needs, and the cost of the turn.

import type { Effort } from "../../../plan/plan.js";
import type { AgentRunnerConfig, PriceTable } from "../agent-runner-config.js";
import type { Usage } from "../../store/index.js";
import { PRESETS, type Preset } from "./presets.js";

/** The preset a runner uses (generic when it names none). */
export function presetOf(runner: AgentRunnerConfig): Preset {
  return PRESETS[runner.preset ?? "generic"];
}

/** How a preset launches one turn: the argv, whether the prompt goes on stdin, and where the tool's output is read from. */
export interface Invocation {
  argv: string[];
  /** Whether the prompt goes to stdin (else stdin is /dev/null). */
  promptOnStdin: boolean;
}

/**
 * `args` without each of `remove`: a removed flag (starting with "-") takes the value that follows
 * it along (`--sandbox workspace-write`, `--max-turns 10`) when that value is not a flag itself.
 */
export function withoutArgs(args: readonly string[], remove: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!remove.includes(a)) out.push(a);
    else if (a.startsWith("-") && i + 1 < args.length && !args[i + 1]!.startsWith("-")) i++;
  }
  return out;
}

/** The preset's own arguments for this runner and effort, after `base_args` and `remove_args`. */
export function presetArgs(runner: AgentRunnerConfig, effort: Effort): string[] {
  const p = presetOf(runner);
  return withoutArgs([...(runner.base_args ?? p.args), ...p.effort[effort]], runner.remove_args ?? []);
}

/** Every argument the preset may pass (any effort): what `remove_args` may name. */
export function presetArgsAnyEffort(runner: AgentRunnerConfig): string[] {
  const p = presetOf(runner);
  return [...(runner.base_args ?? p.args), ...p.effort.low, ...p.effort.medium, ...p.effort.high];
}

/** The environment of one turn: the preset's (what the tool needs headless) under the runner's own. */
export function runnerEnv(runner: AgentRunnerConfig): Record<string, string> {
  return { ...(presetOf(runner).env ?? {}), ...runner.env };
}

/** The argv for one turn; `promptFile` holds `prompt`. */
export function invocation(runner: AgentRunnerConfig, effort: Effort, prompt: string, promptFile: string): Invocation {
  const p = presetOf(runner);
  const argv = [...runner.command, ...presetArgs(runner, effort), ...(runner.args ?? [])];
  switch (p.prompt.via) {
    case "stdin":
      argv.push(...(p.prompt.lastArgs ?? []));
      return { argv, promptOnStdin: true };
    case "flag":
      argv.push(p.prompt.flag, prompt);
      return { argv, promptOnStdin: false };
    case "file":
      argv.push(p.prompt.flag, promptFile);
      return { argv, promptOnStdin: false };
  }
}

/** cost_usd from the tokens and a price table (cached input at its own price when given). */
function priced(usage: Usage, price: PriceTable): number | undefined {
  if (usage.input_tokens === undefined && usage.output_tokens === undefined) return undefined;
  const cached = Math.min(usage.cached_input_tokens ?? 0, usage.input_tokens ?? 0);
  const fresh = (usage.input_tokens ?? 0) - cached;
  const cost =
    fresh * price.input_per_mtok +
    cached * (price.cached_input_per_mtok ?? price.input_per_mtok) +
    (usage.output_tokens ?? 0) * price.output_per_mtok;
  return cost / 1e6;
}

/** The tool's own cost when it reports one, else the price table's, else none. */
export function withCost(usage: Usage, runner: AgentRunnerConfig): Usage {
  if (usage.cost_usd !== undefined || !runner.price) return usage;
  const cost = priced(usage, runner.price);
  return cost === undefined ? usage : { ...usage, cost_usd: cost };
}

/** Whether a turn of this runner can carry a cost (for budget_usd): the tool's, or a price table. */
export function canReportCost(runner: AgentRunnerConfig): boolean {
  return presetOf(runner).reportsCost || runner.price !== undefined;
}
