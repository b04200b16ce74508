// Answer resolution (Q-10 … Q-12): every label comes from the returned probabilities, never from a
// label a provider picked. The distribution is validated and, when its sum is off but positive,
// normalised; the most probable label wins (ties: first in declared order); below the question's
// min_confidence, or on a refusal, the label is `uncertain`.

import { nearestName } from "../lang/diagnostic.js";
import { UNCERTAIN } from "../shared/primitives.js";
import { DecisionFailure, type ResolvedQuestion } from "../run/kinds/index.js";
import type { ProviderResponse, RawAnswer } from "./provider.js";

/** The label of an answer that is too unsure (Q-11) or refused. Reserved: no question declares it. */
export { UNCERTAIN };

/** How far a distribution's sum may be from 1 before it is normalised (Q-10). */
const SUM_TOLERANCE = 1e-3;

/** One question's answer after resolution (Q-10 … Q-12): the winning label, the validated distribution, and its confidence. */
export interface ResolvedAnswer {
  label: string;
  probabilities: Record<string, number>;
  confidence: number;
  refused: boolean;
  /** Score questions: Σ index × probability over the levels, lowest level = 0. */
  expected_level?: number;
}

function where(question: ResolvedQuestion): string {
  return `question '${question.id}' (${question.kind})`;
}

function fail(question: ResolvedQuestion, what: string): never {
  throw new DecisionFailure("invalid-answer", `Q-10: the answer to ${where(question)} is invalid: ${what}`);
}

/** Describes a value that is not a probability, or returns undefined when it is one. */
function probabilityProblem(value: unknown): string | undefined {
  if (typeof value !== "number") return `is ${value === null ? "null" : typeof value} ${JSON.stringify(value)}, not a number`;
  // Only a shortcut: NaN also fails the next line, whose message is the same "is NaN" (stryker/equivalents.json).
  if (Number.isNaN(value)) return "is NaN";
  if (!Number.isFinite(value)) return `is ${value}`;
  if (value < 0) return `is ${value}, negative`;
  if (value > 1) return `is ${value}, above 1`;
  return undefined;
}

/**
 * Q-12: a noul's P(yes) as the distribution {yes: p, no: 1 - p}. No check here: resolveAnswer
 * validates the result, so a bad P(yes) is reported as a bad probability of 'yes'.
 */
export function noulDistribution(pYes: unknown): Record<string, number> {
  return { yes: pYes as number, no: typeof pYes === "number" ? 1 - pYes : Number.NaN };
}

/** Q-10 … Q-12 for one question. Throws DecisionFailure naming exactly what was wrong. */
export function resolveAnswer(question: ResolvedQuestion, raw: RawAnswer): ResolvedAnswer {
  if (raw.refused) {
    // Q-11: a refusal is `uncertain`, recorded as refused, with whatever the model gave.
    return { label: UNCERTAIN, probabilities: { ...(raw.probabilities ?? {}) }, confidence: 0, refused: true };
  }
  const given = raw.probabilities;
  // `given === undefined` is also caught by `typeof given !== "object"` (its `false` mutant is in stryker/equivalents.json).
  if (given === undefined || given === null || typeof given !== "object" || Array.isArray(given)) {
    fail(question, "it has no probabilities");
  }
  const labels = question.labels;
  const known = new Set(labels);
  for (const key of Object.keys(given)) {
    if (!known.has(key)) {
      const near = nearestName(key, labels);
      fail(
        question,
        `it gives a probability for '${key}', a label not asked about (labels: ${labels.join(", ")})` +
          (near ? `; did you mean '${near}'?` : ""),
      );
    }
  }
  const missing = labels.filter((l) => !Object.prototype.hasOwnProperty.call(given, l));
  if (missing.length > 0) {
    fail(question, `label${missing.length > 1 ? "s" : ""} ${missing.map((l) => `'${l}'`).join(", ")} missing from its probabilities`);
  }
  let sum = 0;
  const checked: Array<[string, number]> = [];
  for (const label of labels) {
    const p = given[label];
    const problem = probabilityProblem(p);
    if (problem !== undefined || typeof p !== "number") fail(question, `the probability of '${label}' ${problem}`);
    checked.push([label, p]);
    sum += p;
  }
  if (sum <= 0) fail(question, "its probabilities sum to 0");
  // No sum is exactly 1e-3 from 1, so `>` and `>=` are the same test here (stryker/equivalents.json says why).
  const normalise = Math.abs(sum - 1) > SUM_TOLERANCE;
  const resolved = checked.map(([label, p]): [string, number] => [label, normalise ? p / sum : p]);
  const probabilities: Record<string, number> = Object.fromEntries(resolved);

  // Argmax in declared order: only a strictly greater probability displaces an earlier label.
  const [first, ...rest] = resolved;
  if (first === undefined) fail(question, "its question has no labels");
  let [best, confidence] = first;
  for (const [label, p] of rest) if (p > confidence) [best, confidence] = [label, p];
  const answer: ResolvedAnswer = {
    label: confidence < question.min_confidence ? UNCERTAIN : best,
    probabilities,
    confidence,
    refused: false,
  };
  if (question.kind === "score") {
    answer.expected_level = resolved.reduce((acc, [, p], i) => acc + i * p, 0);
  }
  return answer;
}

/**
 * Resolves every question of one provider response; a question the response does not answer
 * fails the decision (D-22), naming it.
 */
export function resolveAll(questions: ResolvedQuestion[], response: ProviderResponse): Record<string, ResolvedAnswer> {
  const out: Record<string, ResolvedAnswer> = {};
  for (const q of questions) out[q.id] = answerFor(q, response);
  return out;
}

/** One question's answer in a provider's response (D-22); a DecisionFailure when it is missing or invalid. */
export function answerFor(q: ResolvedQuestion, response: ProviderResponse): ResolvedAnswer {
  const raw = response.answers[q.id];
  if (!raw) throw new DecisionFailure("invalid-answer", `D-22: the response has no answer for ${where(q)}`);
  return resolveAnswer(q, raw);
}
