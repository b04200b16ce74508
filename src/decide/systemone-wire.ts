// The System One wire (D-21; research/systemone.md): one request `{state, model, questions}` with
// questions keyed by id, each `{type, instructions, criteria}`; one response `{model, answers,
// usage}` with answers keyed by id. Shared by the `systemone` provider (HTTP) and the `command`
// provider (stdin/stdout), and by the test servers.

import type { ResolvedQuestion, Usage } from "../run/kinds/index.js";
import { noulDistribution } from "./answer.js";
import { ProviderError, type RawAnswer } from "./provider.js";
import { isRecord, shape } from "./json-shape.js";

/** The SystemOne wire's question types: switchyard's noul, choice and score. */
export type SystemOneType = "noul" | "choice" | "score";

/** One question as the SystemOne wire carries it. */
export interface SystemOneQuestion {
  type: SystemOneType;
  instructions: string;
  /** noul: {"true", "false"} (omitted when neither is described); choice: label → description
   * or null; score: one description per level, lowest first. */
  criteria?: Record<string, string | null> | string[];
}

/** The body of a SystemOne decision request. */
export interface SystemOneRequest {
  state: unknown;
  model: string;
  questions: Record<string, SystemOneQuestion>;
}

/** What a System One server accepts as state: a string, an object or an array. */
function wireState(state: unknown, stateText: string): unknown {
  if (typeof state === "string") return state;
  if (state !== null && typeof state === "object") return state;
  return stateText;
}

function describedOrNull(text: string | undefined): string | null {
  return text && text.trim() !== "" ? text : null;
}

function systemOneQuestion(q: ResolvedQuestion): SystemOneQuestion {
  switch (q.kind) {
    case "noul": {
      const yes = describedOrNull(q.descriptions.yes);
      const no = describedOrNull(q.descriptions.no);
      // Some servers reject `criteria: null` on a noul: omit the field when nothing is described.
      if (yes === null && no === null) return { type: "noul", instructions: q.ask };
      const criteria: Record<string, string | null> = {};
      if (yes !== null) criteria.true = yes;
      if (no !== null) criteria.false = no;
      return { type: "noul", instructions: q.ask, criteria };
    }
    case "choice": {
      const criteria: Record<string, string | null> = {};
      for (const label of q.labels) criteria[label] = describedOrNull(q.descriptions[label]);
      return { type: "choice", instructions: q.ask, criteria };
    }
    case "score":
      // The wire carries only an ordered list; the level's label leads its description so the
      // model sees both, as it sees a choice's label and description.
      return {
        type: "score",
        instructions: q.ask,
        criteria: q.labels.map((label) => {
          const d = describedOrNull(q.descriptions[label]);
          return d === null ? label : `${label}: ${d}`;
        }),
      };
  }
}

/** The SystemOne request for some questions of a route instance, with the state as the wire wants it. */
export function buildSystemOneRequest(model: string, state: unknown, stateText: string, questions: ResolvedQuestion[]): SystemOneRequest {
  const wire: Record<string, SystemOneQuestion> = {};
  for (const q of questions) wire[q.id] = systemOneQuestion(q);
  return { state: wireState(state, stateText), model, questions: wire };
}

/**
 * The JSON text of a request built by buildSystemOneRequest, with the state written as its
 * deterministic serialisation `stateText` instead of being serialised again: the same
 * JSON value, object keys in sorted order.
 */
export function systemOneRequestText(request: SystemOneRequest, state: unknown, stateText: string): string {
  const text = typeof state === "string" || state === null || typeof state !== "object" ? JSON.stringify(request.state) : stateText;
  return `{"state":${text},"model":${JSON.stringify(request.model)},"questions":${JSON.stringify(request.questions)}}`;
}

/** Maps one System One answer to a raw answer over the question's labels. */
function systemOneAnswer(q: ResolvedQuestion, answer: unknown, what: string): RawAnswer {
  const at = `${what}: the answer to '${q.id}' (${q.kind})`;
  if (!isRecord(answer)) throw new ProviderError("decision-failed", `${at} is ${shape(answer)}, not an object`);
  const type = answer.type;
  if (type === "refusal") {
    const raw: RawAnswer = { refused: true };
    if (isRecord(answer.probabilities)) raw.probabilities = answer.probabilities as Record<string, number>;
    return raw;
  }
  if (type !== undefined && type !== q.kind) {
    throw new ProviderError("decision-failed", `${at} has type ${JSON.stringify(type)}, expected "${q.kind}"`);
  }
  switch (q.kind) {
    case "noul":
      if (!("noul" in answer)) throw new ProviderError("decision-failed", `${at} has no 'noul' (the probability of yes)`);
      return { probabilities: noulDistribution(answer.noul) };
    case "choice": {
      const p = answer.probabilities;
      if (p === undefined || p === null) throw new ProviderError("decision-failed", `${at} has no probabilities`);
      if (!isRecord(p))
        throw new ProviderError("decision-failed", `${at} has probabilities that are ${shape(p)}, not a label → probability map`);
      return { probabilities: p as Record<string, number> };
    }
    case "score": {
      const p = answer.probabilities;
      if (p === undefined || p === null) throw new ProviderError("decision-failed", `${at} has no probabilities`);
      if (!isRecord(p))
        throw new ProviderError("decision-failed", `${at} has probabilities that are ${shape(p)}, not a level index → probability map`);
      // Keyed by level index "0".."N-1" on the wire; map back to level labels (a server keying
      // by label is accepted too: labels are identifiers, never digits).
      const out: Record<string, number> = {};
      for (const [key, value] of Object.entries(p)) {
        let label: string | undefined;
        if (/^\d+$/.test(key)) label = q.labels[Number(key)];
        else if (q.labels.includes(key)) label = key;
        if (label === undefined) {
          throw new ProviderError(
            "decision-failed",
            `${at} gives a probability for level '${key}', a level not asked about (levels 0–${q.labels.length - 1}: ${q.labels.join(", ")})`,
          );
        }
        out[label] = value as number;
      }
      return { probabilities: out };
    }
  }
}

function systemOneUsage(usage: unknown): Usage | null {
  if (!isRecord(usage)) return null;
  const out: Usage = {};
  if (typeof usage.input_tokens === "number") out.input_tokens = usage.input_tokens;
  if (typeof usage.output_tokens === "number") out.output_tokens = usage.output_tokens;
  if (typeof usage.cost_usd === "number") out.cost_usd = usage.cost_usd;
  else if (typeof usage.cost === "number") out.cost_usd = usage.cost;
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * Checks a parsed System One response and maps its answers. `what` names the source for
 * messages ("provider 'jev': HTTP 200 body"). Every asked question must be answered.
 */
export function parseSystemOneResponse(
  body: unknown,
  questions: ResolvedQuestion[],
  what: string,
): { answers: Record<string, RawAnswer>; usage: Usage | null; model?: string } {
  if (!isRecord(body)) throw new ProviderError("decision-failed", `${what} is ${shape(body)}, not a System One response object`);
  const answers = body.answers;
  if (answers === undefined) throw new ProviderError("decision-failed", `${what} has no 'answers'`);
  if (!isRecord(answers))
    throw new ProviderError("decision-failed", `${what} has 'answers' that is ${shape(answers)}, not an object keyed by question id`);
  const out: Record<string, RawAnswer> = {};
  for (const q of questions) {
    if (!(q.id in answers)) {
      const got = Object.keys(answers);
      throw new ProviderError(
        "decision-failed",
        `${what} has no answer for question '${q.id}' (answers for: ${got.length > 0 ? got.join(", ") : "none"})`,
      );
    }
    out[q.id] = systemOneAnswer(q, answers[q.id], what);
  }
  return { answers: out, usage: systemOneUsage(body.usage), model: typeof body.model === "string" ? body.model : undefined };
}
