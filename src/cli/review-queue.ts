// The review queue of one run as people see it (D-62, D-63) lives in src/decide/review-queue.ts,
// below the web view, so that `switchyard review` and the web view's review page answer through
// the same code; re-exported here for the CLI's commands.

export { type AnswerToGive, giveAnswer, type PendingQuestion, pendingQuestions, ReviewRefused } from "../decide/review-queue.js";
