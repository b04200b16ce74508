// `switchyard review [RUN]` at a terminal (D-63): walks the run's waiting questions one at a time.
// Each is shown (review-screen.ts) and answered with one keypress (review-keys.ts): a label's key,
// `u` for uncertain, `s` to skip, `n` to type a note first, `q` or Ctrl-C to leave. An answer goes
// through the same path as `review --answer` (giveAnswer), checked against the queue as it is at
// that moment, so a question someone else answered meanwhile is reported and skipped, never given
// twice. The queue is read again before each question: questions that start waiting while the walk
// goes are walked too. It ends with what it did: answered, skipped, and how many still wait.

import pc from "picocolors";
import type { Store } from "../run/store/index.js";
import { Keyboard } from "./review-keys.js";
import { giveAnswer, pendingQuestions, ReviewRefused, type PendingQuestion } from "./review-queue.js";
import { labelKeys, questionScreen, WALK_KEYS, whereOf, type Colors } from "./review-screen.js";

/** The terminal the walk runs at. */
export interface WalkTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/** What the walk did. */
export interface WalkTally {
  answered: number;
  skipped: number;
  /** Answered by someone else between being shown and being answered here. */
  elsewhere: number;
  /** Questions of the run that wait when the walk ends. */
  stillWaiting: number;
}

/** A question's choice: a label (with a note or not), skip, or leave. */
type Choice = { label: string; note?: string } | "skip" | "quit";

function idOf(p: PendingQuestion): string {
  return `${p.task}\u0000${p.key ?? ""}\u0000${p.question.id}`;
}

/** Waits for a key that means something for this question; `n` asks for a note, then a key again. */
async function choose(p: PendingQuestion, keyboard: Keyboard, out: NodeJS.WriteStream, c: Colors): Promise<Choice> {
  const keys = labelKeys(p.question.labels);
  let note: string | undefined;
  for (;;) {
    const key = await keyboard.next();
    if (key === "ctrl-c" || key === "ctrl-d" || key === WALK_KEYS.quit) return "quit";
    if (key === WALK_KEYS.skip) return "skip";
    const label = keys.get(key);
    if (label !== undefined) return note === undefined ? { label } : { label, note };
    if (key === WALK_KEYS.note) {
      const text = await keyboard.line("note (Enter to keep it, Ctrl-C to leave it out): ");
      const trimmed = text?.trim() ?? "";
      note = trimmed.length > 0 ? trimmed : undefined;
      out.write(
        note === undefined ? c.dim("no note\n") : c.dim(`the note goes with the answer; now press ${[...keys.keys()].join(", ")}\n`),
      );
      continue;
    }
    out.write(
      c.dim(
        `${JSON.stringify(key)} does nothing here: press ${[...keys.keys()].join(", ")}, ${WALK_KEYS.skip}, ${WALK_KEYS.note} or ${WALK_KEYS.quit}\n`,
      ),
    );
  }
}

/** Gives one answer; false when the question no longer waits (answered meanwhile by someone else). */
function answer(store: Store, p: PendingQuestion, choice: { label: string; note?: string }, who: string): boolean {
  try {
    giveAnswer(store, p.run, pendingQuestions(store, p.run), {
      task: p.task,
      key: p.key,
      question: p.question.id,
      label: choice.label,
      who,
      ...(choice.note !== undefined ? { note: choice.note } : {}),
    });
    return true;
  } catch (err) {
    if (err instanceof ReviewRefused && err.code === "review-not-waiting") return false;
    throw err;
  }
}

/** Walks the run's waiting questions at the terminal, answering as `who`; returns what it did. */
export async function walkQueue(store: Store, run: string, who: string, term: WalkTerminal): Promise<WalkTally> {
  const out = term.output;
  const c = pc.createColors(pc.isColorSupported);
  const shape = () => ({ columns: out.columns > 0 ? out.columns : 80, rows: out.rows > 0 ? out.rows : 24, colors: c });
  const tally: WalkTally = { answered: 0, skipped: 0, elsewhere: 0, stillWaiting: 0 };
  const seen = new Set<string>();
  const first = pendingQuestions(store, run);
  out.write(
    first.length === 0
      ? `run ${run}: no questions wait for review\n`
      : `run ${run}: ${first.length} question(s) wait for review; answering as ${who}\n`,
  );
  const keyboard = first.length === 0 ? undefined : new Keyboard(term.input, out);
  try {
    for (let pending = first; keyboard; pending = pendingQuestions(store, run)) {
      const unseen = pending.filter((p) => !seen.has(idOf(p)));
      const p = unseen[0];
      if (!p) break;
      seen.add(idOf(p));
      out.write("\n" + questionScreen(p, { index: seen.size, total: seen.size + unseen.length - 1 }, shape()).join("\n") + "\n");
      const choice = await choose(p, keyboard, out, c);
      if (choice === "quit") break;
      if (choice === "skip") {
        tally.skipped++;
        out.write(c.dim(`skipped ${whereOf(p)} ${p.question.id}: it still waits\n`));
      } else if (answer(store, p, choice, who)) {
        tally.answered++;
        const note = choice.note === undefined ? "" : `, note: ${JSON.stringify(choice.note)}`;
        out.write(c.green(`${whereOf(p)} ${p.question.id} = ${choice.label}`) + ` (by ${who}${note})\n`);
      } else {
        tally.elsewhere++;
        out.write(c.yellow(`${whereOf(p)} ${p.question.id} was answered meanwhile by someone else: your answer was not given; skipped\n`));
      }
    }
  } finally {
    keyboard?.close();
  }
  tally.stillWaiting = pendingQuestions(store, run).length;
  return tally;
}

/** The walk's last line: "answered N, skipped M, K still wait". */
export function tallyLine(run: string, t: WalkTally): string {
  const elsewhere = t.elsewhere > 0 ? `, ${t.elsewhere} answered meanwhile by someone else` : "";
  return `run ${run}: answered ${t.answered}, skipped ${t.skipped}${elsewhere}, ${t.stillWaiting} still wait\n`;
}
