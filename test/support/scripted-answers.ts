// Scripted answers for the test servers, in label terms, independent of the wire: a table of rules
// (also the `--answer-from FILE` of the standalone servers, as JSON) that each server translates
// into its own wire shape.
//
// FILE / AnswerTable: { "rules": [ { "match"?, "question"?, "ask"?, "answer" } , ... ] }
//   match     a substring of the state (its JSON text when it is not a string; for chat
//             completions, of the whole prompt)
//   question  the question id (System One and Decisions; not visible to chat completions)
//   ask       a substring of the question's instructions
//   answer    one of
//     { "probabilities": { LABEL: p, ... } }   choice labels, score level labels (or "0".."N-1"
//                                               indices), noul {"yes": p, "no": 1-p}
//     { "p_yes": p }                            noul
//     { "refusal": true }
//     { "raw": ANY }                            sent verbatim: the wire answer object (System One,
//                                               Decisions) or the top_logprobs list (chat)
// The first rule whose given fields all match wins; with none, the default answer is the first
// label at 0.9 and the rest sharing 0.1 (noul: P(yes) = 0.9).

export type AnswerSpec = { probabilities: Record<string, number> } | { p_yes: number } | { refusal: true } | { raw: unknown };

export interface AnswerRule {
  match?: string;
  question?: string;
  ask?: string;
  answer: AnswerSpec;
}

export interface AnswerTable {
  rules: AnswerRule[];
}

export function findAnswer(
  table: AnswerTable | undefined,
  stateText: string,
  questionId: string | undefined,
  ask: string,
): AnswerSpec | undefined {
  for (const rule of table?.rules ?? []) {
    if (rule.match !== undefined && !stateText.includes(rule.match)) continue;
    if (rule.question !== undefined && rule.question !== questionId) continue;
    if (rule.ask !== undefined && !ask.includes(rule.ask)) continue;
    return rule.answer;
  }
  return undefined;
}

/** The default distribution: the first label likely, the rest sharing the remainder. */
export function defaultDistribution(labels: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  labels.forEach((l, i) => (out[l] = i === 0 ? 0.9 : 0.1 / Math.max(1, labels.length - 1)));
  return out;
}

/** The state as the rules see it. */
export function stateTextOf(state: unknown): string {
  return typeof state === "string" ? state : JSON.stringify(state ?? null);
}

/** A label-keyed distribution for labels (noul: yes/no), from a spec that is not raw/refusal. */
export function distributionFor(spec: AnswerSpec | undefined, labels: string[]): Record<string, number> {
  if (spec === undefined) return defaultDistribution(labels);
  if ("p_yes" in spec) return { yes: spec.p_yes, no: 1 - spec.p_yes };
  if ("probabilities" in spec) {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(spec.probabilities)) out[/^\d+$/.test(k) ? (labels[Number(k)] ?? k) : k] = v;
    return out;
  }
  return defaultDistribution(labels);
}

export function argmax(p: Record<string, number>): string {
  let best = "";
  let bestP = -Infinity;
  for (const [k, v] of Object.entries(p)) if (v > bestP) [best, bestP] = [k, v];
  return best;
}
