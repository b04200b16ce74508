// Answers given to the review queue (D-63) on their way into a run's log. The run keeps a single
// writer: `switchyard review` (or the web view) leaves an answer in this table, and the run's
// owner, which looks about twice a second (or `resume`, when the run is detached), appends it as a
// review_answered event, commits it, and only then removes the row. A row left by a crash between
// the two is found again and dropped, since the log already has that question's answer: nobody is
// asked twice (D-65). The primary key makes a second answer to the same question a refusal.

import type { Sql, Store } from "./store.js";

const SCHEMA = `CREATE TABLE IF NOT EXISTS review_answers (
  run TEXT NOT NULL, task TEXT NOT NULL, key TEXT NOT NULL, question TEXT NOT NULL,
  label TEXT NOT NULL, who TEXT NOT NULL, at TEXT NOT NULL, note TEXT,
  PRIMARY KEY (run, task, key, question)
) WITHOUT ROWID`;

const GIVE: Sql = {
  sqlite: "INSERT OR IGNORE INTO review_answers (run, task, key, question, label, who, at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  postgres: `INSERT INTO review_answers (run, task, key, question, label, who, at, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT DO NOTHING`,
};
const HAS: Sql = { sqlite: "SELECT 1 AS one FROM review_answers WHERE run = ? AND task = ? AND key = ? AND question = ?" };
const READ: Sql = {
  sqlite: "SELECT task, key, question, label, who, at, note FROM review_answers WHERE run = ? ORDER BY at, task, key, question",
};
const DROP: Sql = { sqlite: "DELETE FROM review_answers WHERE run = ? AND task = ? AND key = ? AND question = ?" };

/** An answer waiting in the table; `key` is "" for an unmapped route. */
export interface GivenAnswer {
  task: string;
  key: string;
  question: string;
  label: string;
  /** Who answered. */
  who: string;
  at: string;
  note: string | null;
}

/** The postgres schema's line for this table (store-postgres.ts creates every table when it opens). */
export function reviewAnswersDdl(schema: string, text: string): string {
  return `CREATE TABLE IF NOT EXISTS ${schema}.review_answers (
  run ${text} NOT NULL, task text NOT NULL, key text NOT NULL, question text NOT NULL,
  label text NOT NULL, who text NOT NULL, at text NOT NULL, note text,
  PRIMARY KEY (run, task, key, question)
);`;
}

/** Leaves an answer for the run's owner; false when that question already has one waiting. */
export function giveReviewAnswer(store: Store, run: string, a: GivenAnswer): boolean {
  store.ensureTable(SCHEMA);
  const params = [run, a.task, a.key, a.question];
  if (store.select(HAS, params).length > 0) return false;
  store.exec(GIVE, [...params, a.label, a.who, a.at, a.note]);
  return true;
}

/** Every answer waiting for the run, oldest first (not removed: see dropReviewAnswer). */
export function waitingReviewAnswers(store: Store, run: string): GivenAnswer[] {
  store.ensureTable(SCHEMA);
  return store.select<GivenAnswer>(READ, [run]);
}

/** Removes an answer once its event is committed (or the log already has one). */
export function dropReviewAnswer(store: Store, run: string, a: Pick<GivenAnswer, "task" | "key" | "question">): void {
  store.ensureTable(SCHEMA);
  store.exec(DROP, [run, a.task, a.key, a.question]);
}
