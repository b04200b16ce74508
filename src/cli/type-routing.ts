// The checks of a machine config's judgement-type routing against the plans that will use it,
// shared by `config check PACK` and the start of `run`: a type the config routes that no question
// asks (likely a typo: that routing does nothing), and a question whose type has no entry when
// an unused entry looks meant for it (the other half of the same typo: its decisions go to the
// default, usually the host). One implementation, so the two commands never disagree.

import { nearestName, type Diagnostic } from "../lang/diagnostic.js";
import type { JudgementMode, MachineConfig } from "../decide/config-types.js";
import { formatMode, modeFor } from "../decide/mode.js";
import { readFileSync } from "node:fs";
import { locateKeys, type KeyPositions } from "../decide/toml-positions.js";
import { parseModeOverrides } from "../decide/mode.js";
import { printDiagnostics } from "./common.js";
import { entryOf } from "../shared/checked-index.js";
import type { Plan } from "../plan/plan.js";

/** Where a type's mode comes from. */
export type Source = "--decide" | "[decisions.types]" | "[decisions] default";

/** The judgement types the plans' model-decided questions declare, each with the playbooks declaring it. */
export function declaredTypes(plans: readonly Plan[]): Map<string, string[]> {
  const byType = new Map<string, string[]>();
  for (const plan of plans)
    for (const task of plan.tasks) {
      if (task.route?.decide !== "model") continue;
      for (const q of task.route.questions) {
        const list = byType.get(q.type) ?? [];
        if (!list.includes(plan.playbook)) list.push(plan.playbook);
        byType.set(q.type, list);
      }
    }
  return byType;
}

/** Where a type's mode comes from: a --decide flag, its own entry, or the default. */
export function sourceOf(type: string, config: MachineConfig, overrides: Record<string, JudgementMode>): Source {
  if (Object.hasOwn(overrides, type)) return "--decide";
  return Object.hasOwn(config.decisions.types, type) ? "[decisions.types]" : "[decisions] default";
}

/**
 * The warnings: `config-undeclared-type` per routed type no question declares, and
 * `config-unrouted-type` per declared type left to the default that such an unused entry looks meant for.
 * `what` names the plans in messages ("playbook triage", "pack examples/cve-triage").
 */
export function routingWarnings(
  plans: readonly Plan[],
  config: MachineConfig,
  overrides: Record<string, JudgementMode>,
  where: KeyPositions,
  what: string,
): Diagnostic[] {
  const declared = declaredTypes(plans);
  const names = [...declared.keys()].sort();
  const routed = [...new Set([...Object.keys(config.decisions.types), ...Object.keys(overrides)])];
  const out: Diagnostic[] = [];
  for (const type of routed) {
    if (declared.has(type)) continue;
    const source = sourceOf(type, config, overrides);
    const near = nearestName(type, names);
    out.push({
      severity: "warning",
      code: "config-undeclared-type",
      pos: source === "[decisions.types]" ? where.key(["decisions", "types", type]) : undefined,
      message: `D-50: judgement type "${type}" is routed by ${source} but no question of ${what} asks it (likely a typo${near ? `; did you mean "${near}"?` : ""})`,
      hint: names.length > 0 ? `types ${what} declares: ${names.join(", ")}` : `${what} has no model-decided question`,
    });
  }
  // A type left to the default is warned about only when an unused entry looks meant for it (a
  // typo in one of the two): leaving a type to the default on purpose is common and says nothing.
  const unused = routed.filter((t) => !declared.has(t));
  for (const type of names) {
    if (sourceOf(type, config, overrides) !== "[decisions] default") continue;
    const near = nearestName(type, unused);
    if (!near) continue;
    out.push({
      severity: "warning",
      code: "config-unrouted-type",
      message: `D-50: judgement type "${type}" (asked by ${entryOf(declared, type, "the declared types").join(", ")}) has no entry in [decisions.types]: its decisions go to the default, ${formatMode(modeFor(type, config.decisions, overrides))}; the entry "${near}" looks like it was meant for it`,
      hint: `correct "${near}" to "${type}": an entry's type must be the question's exactly (PLAYBOOK.ROUTE.QUESTION unless the question sets type)`,
    });
  }
  return out;
}

/** Where the config's keys are, for positions in messages (none without a file). */
export function positionsOf(config: MachineConfig): KeyPositions {
  const none: KeyPositions = { key: () => undefined, value: () => undefined };
  if (!config.path) return none;
  try {
    return locateKeys(readFileSync(config.path, "utf8"), config.path);
  } catch {
    // Positions are a convenience; the config itself was read a moment ago.
    return none;
  }
}

/** At the start of `run`: the routing warnings of `config check PACK` for this plan, on stderr. */
export function warnRouting(plan: Plan, config: MachineConfig, decide: string[]): void {
  printDiagnostics(routingWarnings([plan], config, parseModeOverrides(decide), positionsOf(config), `playbook ${plan.playbook}`));
}
