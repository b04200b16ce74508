// What the review queue records (D-60 … D-65): the questions an element sends to people, and each
// person's answer. They live in the store because events carry them; the Judge port
// (kinds/judge.ts) re-exports them for the decision layer that fills them in.

import type { QuestionKind } from "../../plan/plan.js";
import type { QuestionDecision } from "./decision-record.js";

/** A question as it is asked, to a model, the host or a person. */
export interface AskedQuestion {
  /** The question's name in the route (the id on the wire). */
  id: string;
  kind: QuestionKind;
  ask: string;
  /** Labels in declared order: choice options, ["yes","no"] for noul, levels lowest first. */
  labels: string[];
  descriptions: Record<string, string>;
  /** Judgement type. */
  type: string;
}

/** One question sent to people (D-60, D-61): what they are shown (any label or `uncertain`), and the model's answer if one was asked. */
export interface ReviewQuestion extends AskedQuestion {
  /** Escalated (D-61): the model's decision, which people see and the lab pairs with their answer. */
  model?: QuestionDecision;
  /** D-64: after this long unanswered, the answer is `uncertain`, recorded as a timeout. */
  timeout_ms?: number;
}

/** A person's answer to one review question (D-63), or a timeout's `uncertain` (D-64). */
export interface ReviewAnswer {
  question: string;
  label: string;
  /** Who answered (`--as NAME`, the page's name field), or "timeout". */
  by: string;
  /** When the answer was given (ISO 8601). */
  at: string;
  note?: string;
  /** The answer is the timeout's `uncertain`, not a person's. */
  timeout?: boolean;
}
