// `route` instances (T-3). Output-decided routes turn a label their producer computed into a
// decision record here; model-decided routes resolve their questions (dynamic options, Q-30 …
// Q-32; min_confidence, Q-11) and the engine hands them to the Judge (D-1).

import type { FieldRef, RouteSpec } from "../../plan/plan.js";
import type { DecisionRecord, ResolvedQuestion } from "./judge.js";
import { resolveOptions } from "./dynamic-options.js";
import { isPlainObject } from "../values/index.js";
import { CodedError } from "../../shared/coded-error.js";

/** A route instance that cannot be decided from its inputs. */
export class RouteError extends CodedError {}

/** With decide = "output": `entry` is the source's object for this instance ({question: label}). */
export function outputDecision(route: RouteSpec, entry: unknown, where: string): DecisionRecord {
  if (!isPlainObject(entry)) {
    throw new RouteError("route-source-missing", `${where} is not an object of labels by question name (T-3)`);
  }
  const record: DecisionRecord = {};
  for (const q of route.questions) {
    const label = entry[q.name];
    if (label === undefined) {
      throw new RouteError("route-source-missing", `${where} has no label for question "${q.name}" (T-3)`);
    }
    if (typeof label !== "string" || !q.labels.includes(label)) {
      throw new RouteError(
        "route-label-unknown",
        `${where} answers question "${q.name}" with ${JSON.stringify(label)}, which it does not declare (declared: ${q.labels.join(", ")}) (T-3)`,
      );
    }
    const probabilities: Record<string, number> = {};
    for (const l of q.labels) probabilities[l] = l === label ? 1 : 0;
    record[q.name] = {
      label,
      probabilities,
      confidence: 1,
      refused: false,
      judgement_type: q.type,
      mode: "output",
      provider: null,
      model: null,
      latency_ms: 0,
      usage: null,
    };
  }
  return record;
}

/**
 * The questions as the decision layer sees them. `dynamicLists` holds, per dynamic question, the
 * element's option list (already narrowed to the key for a mapped route).
 */
export function resolveQuestions(
  route: RouteSpec,
  dynamicLists: Record<string, unknown>,
  where: (options: FieldRef) => string,
): ResolvedQuestion[] {
  return route.questions.map((q) => {
    const base: ResolvedQuestion = {
      id: q.name,
      kind: q.kind,
      ask: q.ask,
      labels: q.labels,
      descriptions: q.descriptions,
      type: q.type,
      min_confidence: q.min_confidence ?? route.min_confidence,
    };
    if (!q.dynamic) return base;
    const options = resolveOptions(dynamicLists[q.name], where(q.dynamic));
    const descriptions: Record<string, string> = {};
    for (const o of options) descriptions[o.value] = o.description;
    return { ...base, labels: options.map((o) => o.value), descriptions, resolved_options: options };
  });
}
