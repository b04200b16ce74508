// Route instances waiting for people (D-62 … D-65). The engine hands an instance here when the
// Judge sends some of its questions to review; it is then `waiting`, and every other instance goes
// on. About twice a second this looks for answers left in the store (review-answers.ts) and for
// questions whose review_timeout has passed (D-64), records each as a review_answered event, and
// once every question of an instance is answered gives the engine its decision record: the
// decisions made before (kept, never asked again) plus one per answer, a host decision with
// probability 1. On resume the same instances come back from the log with their recorded answers,
// so nobody and no model is asked twice (D-65).

import type { DecisionRecord, Judge, QuestionDecision, ReviewAnswer, ReviewQuestion } from "../kinds/index.js";
import { stateJson } from "../kinds/index.js";
import { dropReviewAnswer, waitingReviewAnswers, type GivenAnswer, type Store } from "../store/index.js";
import { entryOf } from "../../shared/checked-index.js";
import type { Emit } from "./gating.js";
import { UNMAPPED, type Inst, type RecordedReview, type TaskState } from "./task-state.js";

/** How often the owner looks for answers and timeouts. */
const REVIEW_POLL_MS = 500;

/** The label every review question may be answered with besides its own. */
export const UNCERTAIN = "uncertain";

/** What the review queue tells whoever is watching it (the CLI's review_notify, D-66). */
export interface ReviewQueueChange {
  event: "waiting" | "empty";
  run: string;
  /** Questions waiting now. */
  waiting: number;
  /** The waiting questions (task, key, question), at most 50. */
  questions: Array<{ task: string; key: string | null; question: string; model_label?: string }>;
}

/** What the review queue needs from the engine. */
export interface ReviewWaitsHost {
  store: Store;
  run: string;
  emit: Emit;
  judge: Judge | undefined;
  /** An instance's every question is answered: the engine records the decision and completes it. */
  decided(ts: TaskState, inst: Inst, attempt: number, record: DecisionRecord): void;
  /** The queue went from empty to waiting, or back (D-66). */
  onChange?: ((change: ReviewQueueChange) => void) | undefined;
}

interface Waiting {
  ts: TaskState;
  inst: Inst;
  review: RecordedReview;
}

/** The instances of one run that wait for people, and the timer that looks for their answers. */
export class ReviewWaits {
  private readonly waiting = new Map<string, Waiting>();
  private timer: NodeJS.Timeout | undefined;
  /** Whether watchers were told that questions wait (and not yet that the queue emptied). */
  private told = false;

  constructor(private readonly host: ReviewWaitsHost) {}

  /** How many instances wait. */
  get size(): number {
    return this.waiting.size;
  }

  /** An instance's questions go to review now: recorded, committed (the model's answers with them), and waited for. */
  request(ts: TaskState, inst: Inst, attempt: number, questions: ReviewQuestion[], decided: DecisionRecord, state: unknown): void {
    this.host.emit("review_requested", ts.name, inst.key, { attempt, questions, decided, state });
    this.host.store.flush();
    this.wait(ts, inst, { attempt, questions, decided, state, since: Date.now(), answers: new Map() });
  }

  /** An instance the log says is waiting (resume), with the answers recorded so far. */
  wait(ts: TaskState, inst: Inst, review: RecordedReview): void {
    ts.setStatus(inst, "waiting");
    this.waiting.set(idOf(ts.name, inst.key), { ts, inst, review });
    this.timer ??= setInterval(() => this.poll(), REVIEW_POLL_MS);
  }

  /** Stops looking (the run ended, was cancelled or detached). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Records the answers and timeouts that arrived, then completes every fully answered instance; returns how many it completed. */
  poll(): number {
    // Watchers hear of the questions sent since the last look before any answer takes them away.
    this.settleQueue();
    if (this.waiting.size === 0) return 0;
    let given: GivenAnswer[];
    try {
      given = waitingReviewAnswers(this.host.store, this.host.run);
    } catch {
      return 0; // a store that cannot be read now: the engine reports its faults itself
    }
    const used: GivenAnswer[] = [];
    const touched = new Set<Waiting>();
    for (const g of given) {
      const w = this.waiting.get(idOf(g.task, g.key === UNMAPPED ? null : g.key));
      if (!w) continue; // not (yet) waiting here: an instance of a task not expanded yet keeps its answer
      const q = w.review.questions.find((x) => x.id === g.question);
      used.push(g);
      if (!q || w.review.answers.has(q.id)) continue; // already answered: never asked twice (D-65)
      const answer: ReviewAnswer = { question: q.id, label: g.label, by: g.who, at: g.at, ...(g.note ? { note: g.note } : {}) };
      this.record(w, answer);
      touched.add(w);
    }
    const now = Date.now();
    for (const w of this.waiting.values()) {
      for (const q of w.review.questions) {
        if (q.timeout_ms === undefined || w.review.answers.has(q.id) || now - w.review.since < q.timeout_ms) continue;
        this.record(w, { question: q.id, label: UNCERTAIN, by: "timeout", at: new Date(now).toISOString(), timeout: true });
        touched.add(w);
      }
    }
    if (used.length > 0 || touched.size > 0) this.host.store.flush();
    for (const g of used) dropReviewAnswer(this.host.store, this.host.run, g);
    let completed = 0;
    for (const w of touched) if (this.finishIfAnswered(w)) completed++;
    this.settleQueue();
    return completed;
  }

  /** Completes instances whose every question already has an answer in the log (resume after a crash). */
  finishAnswered(): void {
    for (const w of [...this.waiting.values()]) this.finishIfAnswered(w);
  }

  private record(w: Waiting, answer: ReviewAnswer): void {
    w.review.answers.set(answer.question, answer);
    this.host.emit("review_answered", w.ts.name, w.inst.key, answer);
  }

  private finishIfAnswered(w: Waiting): boolean {
    const { review, ts, inst } = w;
    if (!review.questions.every((q) => review.answers.has(q.id))) return false;
    this.waiting.delete(idOf(ts.name, inst.key));
    const record: DecisionRecord = { ...review.decided };
    for (const q of review.questions) {
      const a = entryOf(review.answers, q.id, "the review's answers");
      record[q.id] = reviewDecision(q, a, review.since);
      if (q.model && !a.timeout) this.pairForLab(w, q as ReviewQuestion & { model: QuestionDecision }, a);
    }
    this.host.decided(ts, inst, review.attempt, record);
    return true;
  }

  private pairForLab(w: Waiting, question: ReviewQuestion & { model: QuestionDecision }, answer: ReviewAnswer): void {
    this.host.judge?.reviewed?.({
      run: this.host.run,
      task: w.ts.name,
      key: w.inst.key,
      attempt: w.review.attempt,
      question,
      state_text: stateJson.input(w.review.state as Record<string, unknown>),
      label: answer.label,
      by: answer.by,
      at: answer.at,
    });
  }

  /** Tells watchers when questions start waiting and when none are left (D-66). */
  private settleQueue(): void {
    const questions = [...this.waiting.values()].flatMap((w) =>
      w.review.questions
        .filter((q) => !w.review.answers.has(q.id))
        .map((q) => ({ task: w.ts.name, key: w.inst.key, question: q.id, ...(q.model ? { model_label: q.model.label } : {}) })),
    );
    const event = questions.length > 0 && !this.told ? "waiting" : questions.length === 0 && this.told ? "empty" : undefined;
    if (questions.length === 0) this.stop();
    if (!event) return;
    this.told = event === "waiting";
    this.host.onChange?.({ event, run: this.host.run, waiting: questions.length, questions: questions.slice(0, 50) });
  }
}

/** An instance's id in the waiting map. */
function idOf(task: string, key: string | null): string {
  return `${task}\u0000${key ?? "\u0000"}`;
}

/** The threshold the model's escalated answer was tested against, when its record has it. */
function thresholdOf(m: QuestionDecision): { min_confidence?: number } {
  return m.min_confidence === undefined ? {} : { min_confidence: m.min_confidence };
}

/** A review answer as a question's decision: a host decision with probability 1 (D-63); a timeout is `uncertain` (D-64). */
export function reviewDecision(q: ReviewQuestion, a: ReviewAnswer, since: number): QuestionDecision {
  const probabilities: Record<string, number> = {};
  for (const l of q.labels) probabilities[l] = l === a.label ? 1 : 0;
  const m = q.model;
  return {
    label: a.label,
    probabilities,
    confidence: a.timeout ? 0 : 1,
    refused: false,
    judgement_type: q.type,
    mode: "host",
    provider: "review",
    model: a.by,
    latency_ms: Math.max(0, Date.parse(a.at) - since),
    usage: null,
    review: {
      by: a.by,
      at: a.at,
      ...(a.note !== undefined ? { note: a.note } : {}),
      ...(a.timeout ? { timeout: true } : {}),
      ...(m ? { model: { provider: m.provider, model: m.model, label: m.label, confidence: m.confidence, ...thresholdOf(m) } } : {}),
    },
  };
}
