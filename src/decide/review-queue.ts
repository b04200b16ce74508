// The review queue of one run as people see it (D-62, D-63): the questions its waiting elements
// still need answered, read from the event log (folded as resume folds it), less those answered
// already — recorded in the log, or left in the store for the run's owner to record. And giving
// one answer: checked against the question's labels, refused for a question not waiting. Here,
// below the web view and the CLI, so that `switchyard review` and the web view's review page
// answer through the same code.

import { foldEvents, UNCERTAIN } from "../run/engine/index.js";
import { giveReviewAnswer, waitingReviewAnswers, type ReviewQuestion, type Store } from "../run/store/index.js";
import { CodedError } from "../shared/coded-error.js";

/** An answer that cannot be given: the element or question does not wait, or the label is not one of its labels. */
export class ReviewRefused extends CodedError {}

/** One question waiting for a person. */
export interface PendingQuestion {
  run: string;
  task: string;
  /** The element's key; null for an unmapped route. */
  key: string | null;
  question: ReviewQuestion;
  /** The element's state as the model saw it (or would have). */
  state: unknown;
  /** When it was sent to review (ISO 8601). */
  since: string;
}

/** The run's questions waiting for a person, in the order they were sent. */
export function pendingQuestions(store: Store, run: string): PendingQuestion[] {
  const given = new Set(waitingReviewAnswers(store, run).map((a) => `${a.task}\u0000${a.key}\u0000${a.question}`));
  const out: PendingQuestion[] = [];
  for (const [task, byKey] of foldEvents(store, run).recorded) {
    for (const [k, rec] of byKey) {
      const r = rec.review;
      if (rec.status !== "waiting" || !r) continue;
      for (const q of r.questions) {
        if (r.answers.has(q.id) || given.has(`${task}\u0000${k}\u0000${q.id}`)) continue;
        out.push({ run, task, key: k === "" ? null : k, question: q, state: r.state, since: new Date(r.since).toISOString() });
      }
    }
  }
  return out.sort((a, b) => a.since.localeCompare(b.since) || a.task.localeCompare(b.task) || (a.key ?? "").localeCompare(b.key ?? ""));
}

/** One answer to give: the element, the question, the label, and who. */
export interface AnswerToGive {
  task?: string;
  key: string | null;
  question: string;
  label: string;
  who: string;
  note?: string;
}

/** The waiting question an answer is for, its label checked; a ReviewRefused saying why when it cannot be given. */
export function checkAnswer(run: string, pending: readonly PendingQuestion[], a: AnswerToGive): PendingQuestion {
  const where = `${a.task ?? ""}${a.key === null ? "" : `[${a.key}]`}`;
  const forElement = pending.filter((p) => p.key === a.key && (a.task === undefined || p.task === a.task));
  if (forElement.length === 0)
    throw new ReviewRefused("review-not-waiting", `no question of ${where || "that element"} waits for review in run ${run}`, {
      hint: `\`switchyard review ${run} --list\` lists the waiting questions`,
    });
  const tasks = new Set(forElement.map((p) => p.task));
  if (tasks.size > 1)
    throw new ReviewRefused("usage", `element ${where} waits in several routes (${[...tasks].join(", ")})`, {
      hint: "say which with --task",
    });
  const p = forElement.find((x) => x.question.id === a.question);
  if (!p)
    throw new ReviewRefused("review-not-waiting", `question '${a.question}' of ${where} does not wait for review`, {
      hint: `waiting: ${forElement.map((x) => x.question.id).join(", ")}`,
    });
  const labels = [...p.question.labels, UNCERTAIN];
  if (!labels.includes(a.label))
    throw new ReviewRefused("review-bad-label", `'${a.label}' is not an answer to question '${a.question}'`, {
      hint: `answer one of: ${labels.join(", ")}`,
    });
  return p;
}

/** Leaves a person's answer for the run (D-63); a ReviewRefused saying why when it cannot be given. */
export function giveAnswer(store: Store, run: string, pending: readonly PendingQuestion[], a: AnswerToGive): PendingQuestion {
  const p = checkAnswer(run, pending, a);
  const ok = giveReviewAnswer(store, run, {
    task: p.task,
    key: p.key ?? "",
    question: p.question.id,
    label: a.label,
    who: a.who,
    at: new Date().toISOString(),
    note: a.note ?? null,
  });
  if (!ok)
    throw new ReviewRefused(
      "review-not-waiting",
      `question '${a.question}' of ${p.task}${p.key === null ? "" : `[${p.key}]`} was already answered`,
      {
        hint: "an answer is given once; rerun the route to ask again",
      },
    );
  return p;
}
