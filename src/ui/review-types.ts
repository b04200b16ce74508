// The review page's documents (docs/ui.md, "Answering review questions"): what GET /api/review
// lists and what POST /api/runs/RUN/review takes and answers. Shared by the server and the browser
// code, so it imports nothing.

/** One waiting question of an element, as the page shows it. */
export interface ReviewQuestionDoc {
  /** The question's name in the route. */
  id: string;
  ask: string;
  /** The labels a person may choose, in declared order (`uncertain` is always accepted too). */
  labels: string[];
  /** What each label means, where the playbook says. */
  descriptions: Record<string, string>;
  /** Escalated: the model's answer and its confidence. */
  model: { label: string; confidence: number } | null;
}

/** An element with questions waiting for a person. */
export interface ReviewElementDoc {
  run: string;
  task: string;
  /** null for an unmapped route. */
  key: string | null;
  /** The element's state as the model saw it (or would have). */
  state: unknown;
  /** When its first waiting question was sent (ISO 8601). */
  since: string;
  questions: ReviewQuestionDoc[];
}

/** GET /api/review: every element waiting for review in the state folder, oldest first. */
export interface ReviewQueueDoc {
  elements: ReviewElementDoc[];
  /** Whether this server takes answers at all (`switchyard ui` does; the page still needs the token). */
  writable: boolean;
}

/** POST /api/runs/RUN/review: the answers to an element's waiting questions. */
export interface ReviewAnswerBody {
  task: string;
  key: string | null;
  /** Question id → a label or `uncertain`. */
  answers: Record<string, string>;
  /** Who answers (1 to 100 characters). */
  who: string;
  note?: string;
}

/** What POST /api/runs/RUN/review answers with: the answers left for the run's owner. */
export interface ReviewAnsweredDoc {
  run: string;
  task: string;
  key: string | null;
  answers: Array<{ question: string; label: string }>;
  by: string;
  note: string | null;
}
