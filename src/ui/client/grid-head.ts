// The grid's header and column layout: per mapped task its name, a route's questions (one part
// of the column each, so each answer has its own label and confidence) and how many of its cells
// are in each status, kept current as cells change. Columns have a minimum width; past it the
// grid scrolls sideways rather than cutting labels to a letter.

import { h, clear } from "./dom.js";
import type { Column } from "./grid-model.js";

/**
 * Least widths (px): the key column, a task column, a route of one question (label, bar and
 * confidence: "uncertain" and "0.55" fit whole) and each question of a route of several.
 */
const KEY_MIN = 140;
const TASK_MIN = 120;
const ONE_QUESTION_MIN = 156;
const QUESTION_MIN = 116;

/** Status letters in the order their counts are shown, with the words shown for them. */
const COUNTED: Array<[string, string]> = [
  ["P", "passed"],
  ["F", "failed"],
  ["n", "not taken"],
  ["b", "blocked"],
  ["w", "waiting"],
  ["r", "running"],
  ["p", "pending"],
];

/** The CSS grid template of a row and the least width of all the columns together. */
export function gridLayout(columns: Column[]): { template: string; minWidth: number } {
  const parts = [`minmax(${KEY_MIN}px, 220px)`];
  let minWidth = KEY_MIN;
  for (const c of columns) {
    const n = Math.max(1, c.questions.length);
    const min = c.kind !== "route" ? TASK_MIN : n === 1 ? ONE_QUESTION_MIN : n * QUESTION_MIN;
    parts.push(`minmax(${min}px, ${n}fr)`);
    minWidth += min;
  }
  return { template: parts.join(" "), minWidth };
}

/** The header row, and the function that redraws its per-column counts. */
export function gridHead(columns: Column[]): { el: HTMLElement; recount: () => void } {
  const counters = columns.map(() => h("div", { class: "col-counts" }));
  const el = h(
    "div",
    { class: "grid-row grid-head" },
    h("div", { class: "cell key" }, "key"),
    ...columns.map((c, i) =>
      h(
        "div",
        { class: `cell head k-${c.kind}`, title: c.kind, "data-task": c.name },
        h("div", { class: "col-name" }, c.name),
        c.questions.length > 1
          ? h("div", { class: "col-questions" }, ...c.questions.map((q) => h("span", { class: "question", title: q }, q)))
          : null,
        counters[i],
      ),
    ),
  );
  const recount = () => columns.forEach((c, i) => drawCounts(counters[i], c));
  recount();
  return { el, recount };
}

function drawCounts(el: HTMLElement | undefined, c: Column): void {
  if (!el) return;
  const n = new Map<string, number>();
  for (const s of c.status) n.set(s, (n.get(s) ?? 0) + 1);
  clear(el);
  const shown = COUNTED.filter(([s]) => n.get(s));
  el.title = shown.map(([s, word]) => `${n.get(s)} ${word}`).join(", ") || "no instance yet";
  for (const [s, word] of shown)
    el.append(h("span", { class: `count-part c-${word.replace(" ", "-")}`, "data-status": word.replace(" ", "_") }, `${n.get(s)} ${word}`));
  if (shown.length === 0) el.append(h("span", { class: "count-part" }, "not reached"));
}
