// The grid: one row per element key, one column per mapped task, each cell coloured by status.
// Only the rows in view (plus a margin) exist in the DOM, at fixed height, so 10,000 rows cost
// what 40 do; filtering and sorting work on an index array over the model's columns.

import { h, clear } from "./dom.js";
import type { Column, GridModel } from "./grid-model.js";
import type { QuestionAnswer } from "../api-types.js";
import { itemAt } from "../../shared/checked-index.js";
import { gridToolbar, type GridFilter } from "./grid-toolbar.js";
import { STATUS_NAME, statusName } from "./grid-status.js";
import { gridHead, gridLayout } from "./grid-head.js";

const ROW = 26;
const OVERSCAN = 10;

/** The grid of a run's mapped instances, drawn virtually (only the visible rows exist), filterable and sortable. */
export class GridView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly count: HTMLElement;
  private readonly labelSelect: HTMLSelectElement;
  private order: number[] = [];
  private filter: GridFilter;
  private frame = 0;
  private readonly recount: () => void;

  constructor(
    private readonly model: GridModel,
    private readonly onCell: (task: string, key: string) => void,
    initial: Partial<GridFilter> = {},
  ) {
    this.filter = { column: "", status: "", label: "", maxConfidence: 1, search: "", sort: "key", ...initial };
    const toolbar = gridToolbar(model, (change) => this.set(change));
    this.labelSelect = toolbar.labelSelect;
    this.count = toolbar.count;
    const head = gridHead(model.columns);
    this.recount = head.recount;
    this.spacer = h("div", { class: "spacer" });
    this.rows = h("div", { class: "rows" });
    this.body = h("div", { class: "grid-body", onscroll: () => this.schedule() }, this.spacer, this.rows);
    const layout = gridLayout(model.columns);
    const inner = h("div", { class: "grid-inner" }, head.el, this.body);
    inner.style.setProperty("--grid-template", layout.template);
    inner.style.minWidth = `${layout.minWidth}px`;
    this.el = h("section", { class: "grid", "aria-label": "grid" }, toolbar.el, h("div", { class: "grid-frame" }, inner));
    this.rows.addEventListener("click", (e) => {
      const cell = e.target instanceof Element ? e.target.closest<HTMLElement>(".cell[data-task]") : null;
      const task = cell?.dataset.task;
      const key = this.model.keys[Number(cell?.parentElement?.dataset.row)];
      if (task !== undefined && key !== undefined) this.onCell(task, key);
    });
    // The first draw may happen before the grid is on the page (no height yet): redraw on resize.
    new ResizeObserver(() => this.schedule()).observe(this.body);
    this.refilter();
  }

  set(change: Partial<GridFilter>): void {
    this.filter = { ...this.filter, ...change };
    this.refilter();
  }

  /** Recomputes the rows shown (after a filter change or new data) and redraws. */
  refilter(): void {
    const f = this.filter;
    const m = this.model;
    const col = f.column ? m.column(f.column) : undefined;
    const search = f.search.trim().toLowerCase();
    const labels = new Set<string>();
    const out: number[] = [];
    for (let i = 0; i < m.keys.length; i++) {
      if (search && !itemAt(m.keys, i).toLowerCase().includes(search)) continue;
      if (col) {
        const l = col.label[i];
        if (l) labels.add(l);
        if (f.status && col.status[i] !== f.status) continue;
        if (f.label && l !== f.label) continue;
        if (f.maxConfidence < 1 && !((col.confidence[i] ?? 2) <= f.maxConfidence)) continue;
      } else if (f.status && !m.columns.some((c) => c.status[i] === f.status)) continue;
      out.push(i);
    }
    this.recount();
    this.sortRows(out, col);
    this.order = out;
    this.fillLabels(col ? [...labels].sort() : []);
    this.count.textContent = `${out.length} of ${m.keys.length} keys`;
    this.spacer.style.height = `${out.length * ROW}px`;
    this.draw();
  }

  private sortRows(rows: number[], col: Column | undefined): void {
    const keys = this.model.keys;
    const byKey = (a: number, b: number) => {
      const [ka, kb] = [itemAt(keys, a), itemAt(keys, b)];
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    };
    const sortCol = col ?? this.model.columns.find((c) => c.kind === "route");
    switch (this.filter.sort) {
      case "key":
        rows.sort(byKey);
        break;
      case "key-desc":
        rows.sort((a, b) => byKey(b, a));
        break;
      case "conf":
      case "conf-desc": {
        const sign = this.filter.sort === "conf" ? 1 : -1;
        const c = sortCol?.confidence;
        rows.sort((a, b) => sign * ((c?.[a] ?? 2) - (c?.[b] ?? 2)) || byKey(a, b));
        break;
      }
      case "status": {
        const rank = "FbrpnP-";
        const s = sortCol?.status;
        rows.sort((a, b) => rank.indexOf(s?.[a] ?? "-") - rank.indexOf(s?.[b] ?? "-") || byKey(a, b));
        break;
      }
    }
  }

  private fillLabels(labels: string[]): void {
    const sel = this.labelSelect;
    const keep = this.filter.label;
    clear(sel);
    sel.appendChild(h("option", { value: "" }, labels.length ? "any label" : "label (pick a task)"));
    for (const l of labels) sel.appendChild(h("option", { value: l }, l));
    sel.value = labels.includes(keep) ? keep : "";
    sel.disabled = labels.length === 0;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws the rows in view. */
  draw(): void {
    const top = this.body.scrollTop;
    const height = this.body.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.order.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const frag = document.createDocumentFragment();
    for (let r = first; r < last; r++) frag.appendChild(this.rowEl(itemAt(this.order, r), r));
    clear(this.rows);
    this.rows.appendChild(frag);
  }

  private rowEl(i: number, position: number): HTMLElement {
    const key = itemAt(this.model.keys, i);
    const row = h("div", { class: "grid-row", "data-row": i, "data-key": key }, h("div", { class: "cell key", title: key }, key));
    row.style.top = `${position * ROW}px`;
    for (const c of this.model.columns) row.appendChild(cellEl(c, i));
    return row;
  }
}

function cellEl(c: Column, i: number): HTMLElement {
  const s = c.status[i] ?? "-";
  const label = c.label[i];
  const el = h("div", {
    class: `cell s-${statusName(s).replace(" ", "-")}`,
    "data-task": c.name,
    "data-status": statusName(s),
    role: "button",
    tabindex: -1,
  });
  const answers = c.answers[i];
  if (s === "P" && c.kind === "route" && answers) {
    el.title = answers.map((a) => `${c.name}.${a.question} = ${a.label} (confidence ${a.confidence.toFixed(2)})`).join("\n");
    el.append(...answers.map((a) => answerEl(a, answers.length === 1)));
  } else if (s === "n") {
    el.title = `${c.name}: not taken${label ? ` (${label})` : ""}`;
    el.append(h("span", { class: "label" }, label ? `– ${label}` : "–"));
  } else if (s === "F") {
    const code = c.code[i];
    el.title = `${c.name}: failed${code ? ` (${code})` : ""}`;
    el.append(h("span", { class: "label code" }, code ?? "failed"));
  } else {
    el.title = `${c.name}: ${STATUS_NAME[s]}`;
    el.append(h("span", { class: "label" }, s === "-" ? "" : statusName(s)));
  }
  return el;
}

/** One question's answer in a route cell: its label (cut with an ellipsis on its own), a bar when alone, its confidence. */
function answerEl(a: QuestionAnswer, alone: boolean): HTMLElement {
  const conf = a.confidence.toFixed(2);
  const el = h("span", { class: "answer", "data-question": a.question }, h("span", { class: "label" }, a.label));
  if (alone) {
    const fill = h("span", { class: "fill" });
    fill.style.width = `${Math.round(a.confidence * 100)}%`;
    el.append(h("span", { class: "bar", "aria-label": `confidence ${conf}` }, fill));
  }
  el.append(h("span", { class: "conf" }, conf));
  return el;
}
