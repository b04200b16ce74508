// A request's identity in a cassette: sha256 of what would be sent, computed the same
// way when the cassette is written (from the run's records) and when it is replayed (from what the
// engine hands the runner or the decision layer). Attempt-independent: an attempt number, a run id
// or a folder never enters it.

import { createHash } from "node:crypto";
import type { ResolvedQuestion } from "../kinds/index.js";
import type { FieldRef } from "../../plan/plan.js";
import { isPlainObject, stableStringify } from "../values/index.js";
import type { QuestionIdentity } from "./format.js";
import { withoutRunPaths } from "./run-paths.js";

/** A text's digest as the cassette writes it (`sha256:` and hex). */
export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** An agent turn: its rendered prompt and its input (sorted JSON). */
function agentRequest(prompt: string, inputText: string): string {
  return sha256(stableStringify({ prompt, input: sha256(inputText) }));
}

/** The question fields that are sent (min_confidence gates after the answer, so it is not part of it). */
function questionIdentity(q: ResolvedQuestion): QuestionIdentity {
  return { id: q.id, kind: q.kind, ask: q.ask, labels: q.labels, descriptions: q.descriptions, type: q.type };
}

/** A decision: its questions with their resolved options, and the state text. */
function decisionRequest(questions: QuestionIdentity[], stateText: string): string {
  return sha256(stableStringify({ questions, state: sha256(stateText) }));
}

/** Where a mapped task's elements come from (its `over`), by task: what elementView narrows. */
export type Overs = Record<string, FieldRef | undefined>;

/**
 * An element's own view of its input: in the output of the producer it is mapped over, the list
 * of elements is left out and each object holding an entry for this element is narrowed to that
 * entry. Adding, removing or changing another element therefore changes no other element's
 * request; anything else in the input still does.
 */
export function elementView(input: unknown, key: string | null, over: FieldRef | undefined): unknown {
  if (key === null || !over || !isPlainObject(input) || !isPlainObject(input.inputs)) return input;
  const producer = input.inputs[over.task];
  if (!isPlainObject(producer)) return input;
  const own: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(producer)) {
    if (field === over.field) continue;
    own[field] = isPlainObject(value) && Object.hasOwn(value, key) ? { [key]: value[key] } : value;
  }
  return { ...input, inputs: { ...input.inputs, [over.task]: own } };
}

/** An agent turn's request as hashed and kept: the prompt and the element's view of its input, sorted, run paths written as $RUN. */
export function agentRequestOf(prompt: string, input: unknown, runDir: string) {
  const p = withoutRunPaths(prompt, runDir);
  const inputText = withoutRunPaths(stableStringify(input), runDir);
  return { prompt: p, input: inputText, inputDigest: sha256(inputText), request: agentRequest(p, inputText) };
}

/** A decision's request as hashed and kept: its questions and the element's view of its state, sorted. */
export function decisionRequestOf(questions: ResolvedQuestion[], stateView: unknown, runDir: string) {
  const ids = questions.map(questionIdentity);
  const state = withoutRunPaths(stableStringify(stateView), runDir);
  return { questions: ids, state, stateDigest: sha256(state), request: decisionRequest(ids, state) };
}
