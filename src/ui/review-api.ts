// The review page's reads and its one write (D-63; docs/ui.md): the elements waiting for review
// across every run of the state folder, and an element's answers, given through the same code as
// `switchyard review --answer` (src/decide/review-queue.ts): checked all before any is left for
// the run's owner, recorded with who and when, refused in words.

import { runView, type Store } from "../run/index.js";
import { checkAnswer, giveAnswer, pendingQuestions, ReviewRefused, type PendingQuestion } from "../decide/review-queue.js";
import { isPlainObject } from "../shared/primitives.js";
import { HttpError } from "./http-error.js";
import type { ReviewAnswerBody, ReviewAnsweredDoc, ReviewElementDoc } from "./review-types.js";

/** The longest name and note an answer may carry. */
const MAX_WHO = 100;
const MAX_NOTE = 4000;

/** Pending questions grouped by element, in the order of their oldest question. */
function byElement(pending: readonly PendingQuestion[]): ReviewElementDoc[] {
  const out = new Map<string, ReviewElementDoc>();
  for (const p of pending) {
    const id = JSON.stringify([p.run, p.task, p.key]);
    let el = out.get(id);
    if (!el) out.set(id, (el = { run: p.run, task: p.task, key: p.key, state: p.state, since: p.since, questions: [] }));
    const m = p.question.model;
    el.questions.push({
      id: p.question.id,
      ask: p.question.ask,
      labels: p.question.labels,
      descriptions: p.question.descriptions,
      model: m ? { label: m.label, confidence: m.confidence } : null,
    });
  }
  return [...out.values()];
}

/** Every element waiting for review in the store, oldest first; only runs with waiting instances are read. */
export function reviewQueue(store: Store): ReviewElementDoc[] {
  const runs = runView
    .instanceCountsByRun(store)
    .filter((c) => c.status === "waiting" && c.n > 0)
    .map((c) => c.run);
  const pending = [...new Set(runs)].flatMap((run) => pendingQuestions(store, run));
  return byElement(pending).sort((a, b) => a.since.localeCompare(b.since) || a.run.localeCompare(b.run));
}

const badBody = (message: string) => new HttpError("ui-bad-body", message, { status: 400 });

/** The body of an answer, its shape checked. */
function answerBody(v: unknown): ReviewAnswerBody {
  if (!isPlainObject(v)) throw badBody("the body must be a JSON object: {task, key, answers, who, note?}");
  const { task, key, answers, who, note } = v;
  if (typeof task !== "string" || task === "") throw badBody("`task` must name the route");
  if (key !== null && typeof key !== "string") throw badBody("`key` must be the element's key, or null for an unmapped route");
  if (!isPlainObject(answers) || Object.keys(answers).length === 0) throw badBody("`answers` must map each question to a label");
  const labels: Record<string, string> = {};
  for (const [q, l] of Object.entries(answers)) {
    if (typeof l !== "string") throw badBody(`the answer to '${q}' must be a label (a string)`);
    labels[q] = l;
  }
  if (typeof who !== "string" || who.trim() === "" || who.trim().length > MAX_WHO)
    throw badBody(`\`who\` must name who answers (1 to ${MAX_WHO} characters)`);
  if (note !== undefined && note !== null && (typeof note !== "string" || note.length > MAX_NOTE))
    throw badBody(`\`note\` must be text of at most ${MAX_NOTE} characters`);
  const body: ReviewAnswerBody = { task, key, answers: labels, who: who.trim() };
  if (typeof note === "string" && note.trim() !== "") body.note = note.trim();
  return body;
}

/** The HTTP status of a refused answer: a label it does not have is a bad request, the rest a conflict with the queue. */
const refusal = (err: ReviewRefused) =>
  new HttpError(err.code, err.message, {
    status: err.code === "review-bad-label" ? 400 : 409,
    ...(err.hint !== undefined ? { hint: err.hint } : {}),
  });

/** Gives an element's answers for the run's owner: every answer is checked before any is given. */
export function answerElement(store: Store, run: string, raw: unknown): ReviewAnsweredDoc {
  const body = answerBody(raw);
  try {
    const pending = pendingQuestions(store, run);
    const given = Object.entries(body.answers).map(([question, label]) => ({
      task: body.task,
      key: body.key,
      question,
      label,
      who: body.who,
      ...(body.note !== undefined ? { note: body.note } : {}),
    }));
    for (const a of given) checkAnswer(run, pending, a);
    for (const a of given) giveAnswer(store, run, pending, a);
    return {
      run,
      task: body.task,
      key: body.key,
      answers: given.map((a) => ({ question: a.question, label: a.label })),
      by: body.who,
      note: body.note ?? null,
    };
  } catch (err) {
    throw err instanceof ReviewRefused ? refusal(err) : err;
  }
}
