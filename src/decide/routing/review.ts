// Step 5 of a judgement: which questions go to people (D-60, D-61). A review-mode question has no
// answer yet; a turned-on model's answer whose (calibrated) confidence is below its type's
// escalate_below is taken out of the record and goes to review with the model's decision beside
// it. An answer the host gave in the model's place (a fallback, D-31) is not escalated.

import type { DecisionRecord, JudgeRequest, ReviewQuestion, ResolvedQuestion } from "../../run/kinds/index.js";
import type { Targets } from "./targets.js";

/** The question as people see it in the queue. */
function reviewQuestion(q: ResolvedQuestion, timeoutMs: number | undefined): ReviewQuestion {
  const r: ReviewQuestion = { id: q.id, kind: q.kind, ask: q.ask, labels: [...q.labels], descriptions: q.descriptions, type: q.type };
  if (timeoutMs !== undefined) r.timeout_ms = timeoutMs;
  return r;
}

/**
 * The questions of `req` that go to review, taken out of `record` (which keeps the rest).
 * `timeoutOf` is a type's review_timeout in milliseconds, if any (D-64).
 */
export function toReview(
  req: Pick<JudgeRequest, "questions">,
  t: Pick<Targets, "forReview" | "escalations">,
  record: DecisionRecord,
  timeoutOf: (type: string) => number | undefined,
): ReviewQuestion[] {
  const out: ReviewQuestion[] = t.forReview.map((q) => reviewQuestion(q, timeoutOf(q.type)));
  for (const q of req.questions) {
    const below = t.escalations.get(q.id);
    const d = record[q.id];
    if (below === undefined || !d || d.receipt || d.mode !== "model" || d.confidence >= below) continue;
    out.push({ ...reviewQuestion(q, timeoutOf(q.type)), model: d });
    delete record[q.id];
  }
  return out;
}
