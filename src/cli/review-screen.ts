// What the terminal walk of the review queue shows for one question (D-63): where it waits, the
// question, the element's state as the model saw it (pretty JSON, each line cut to the terminal's
// width and the whole cut to a number of lines, saying how to see all of it), the model's answer
// when it was escalated, and the keys that answer it. cli-truncate cuts a line to a display width
// (wide characters, colour codes kept whole); picocolors colours, or not (NO_COLOR, a dumb TERM).

import cliTruncate from "cli-truncate";
import type pc from "picocolors";
import { UNCERTAIN } from "../run/engine/index.js";
import type { PendingQuestion } from "./review-queue.js";

/** The colours of picocolors' createColors (all identity functions when colour is off). */
export type Colors = ReturnType<typeof pc.createColors>;

/** The keys reserved for the walk itself; a label never gets one of them. */
export const WALK_KEYS = { uncertain: "u", skip: "s", note: "n", quit: "q" } as const;

/** The keys that pick labels: 1 … 9, then letters the walk does not use. */
const LABEL_KEYS = [..."123456789", ..."abcdefghijklmoprtvwxyz"];

/** Each key that answers the question, with its label: the labels in declared order, then `u` for uncertain. */
export function labelKeys(labels: readonly string[]): Map<string, string> {
  const keys = new Map<string, string>();
  labels.forEach((label, i) => {
    const key = LABEL_KEYS[i];
    if (key !== undefined) keys.set(key, label);
  });
  keys.set(WALK_KEYS.uncertain, UNCERTAIN);
  return keys;
}

/** Where a question waits: `task[key]`, or `task` for an unmapped route. */
export function whereOf(p: Pick<PendingQuestion, "task" | "key">): string {
  return `${p.task}${p.key === null ? "" : `[${p.key}]`}`;
}

/** The screen's size and colours. */
export interface ScreenShape {
  columns: number;
  rows: number;
  colors: Colors;
}

/** How many lines of the state fit: the terminal's height less the rest of the screen, at least 5, at most 40. */
function stateLines(rows: number): number {
  return Math.max(5, Math.min(40, rows - 14));
}

/** The element's state as pretty JSON, cut to what fits, with a line saying how to see it all. */
function stateBlock(p: PendingQuestion, shape: ScreenShape): string[] {
  const text = JSON.stringify(p.state, null, 2) ?? "null";
  const all = text.split("\n");
  const max = stateLines(shape.rows);
  const shown = all.length > max ? all.slice(0, max - 1) : all;
  const out = shown.map((l) => "  " + l);
  if (shown.length < all.length) {
    const more = all.length - shown.length;
    out.push(shape.colors.dim(`  … ${more} more line(s): \`switchyard review ${p.run} --list --json\` shows the whole state`));
  }
  return out;
}

/** The lines that show one waiting question: which of how many, where, the question, the state, the model's answer, the keys. */
export function questionScreen(p: PendingQuestion, position: { index: number; total: number }, shape: ScreenShape): string[] {
  const c = shape.colors;
  const q = p.question;
  const lines = [
    c.bold(`[${position.index}/${position.total}] ${whereOf(p)} · ${q.id}`) + c.dim(`  (${q.type}, waiting since ${p.since})`),
    c.bold(q.ask),
    c.dim("The element's state, as the model saw it:"),
    ...stateBlock(p, shape),
  ];
  const m = q.model;
  lines.push(
    m
      ? `The model answered ${c.bold(m.label)} (confidence ${m.confidence.toFixed(2)}), not sure enough to use it.`
      : c.dim("No model was asked: the question is answered by people."),
  );
  for (const [key, label] of labelKeys(q.labels)) {
    const description = q.descriptions[label];
    lines.push(`  ${c.cyan(key)}  ${label}${description ? c.dim(` — ${description}`) : ""}`);
  }
  lines.push(
    c.dim(
      `Press a key (no Enter): ${keyList(q.labels)} answers; ${WALK_KEYS.skip} skips, ${WALK_KEYS.note} adds a note first, ${WALK_KEYS.quit} or Ctrl-C quits.`,
    ),
  );
  return lines.map((l) => cliTruncate(l, shape.columns));
}

/** "1, 2 or u": the keys that answer. */
function keyList(labels: readonly string[]): string {
  const keys = [...labelKeys(labels).keys()];
  const last = keys.pop() ?? "";
  return keys.length === 0 ? last : `${keys.join(", ")} or ${last}`;
}
