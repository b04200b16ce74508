// The grid's filter controls: key search, column, status, label, confidence and sort. Each
// control reports its own value as a change of the grid's filter.

import { h } from "./dom.js";
import type { GridModel } from "./grid-model.js";
import { statusName } from "./grid-status.js";
import { isOneOf } from "../../shared/primitives.js";

const SORTS = ["key", "key-desc", "conf", "conf-desc", "status"] as const;
type SortBy = (typeof SORTS)[number];

/** What the grid shows: by column, status, label, confidence, key substring, and its sort. */
export interface GridFilter {
  /** The column the status, label, confidence and sort apply to ("" = any column for status). */
  column: string;
  status: string;
  label: string;
  /** Rows whose confidence in `column` is at most this (1 = all). */
  maxConfidence: number;
  search: string;
  sort: SortBy;
}

/** The toolbar, with the two parts the grid updates itself: the label choices and the row count. */
export interface GridToolbar {
  el: HTMLElement;
  labelSelect: HTMLSelectElement;
  count: HTMLElement;
}

/** Builds the grid's toolbar over the model's columns; every change goes to `set`. */
export function gridToolbar(model: GridModel, set: (change: Partial<GridFilter>) => void): GridToolbar {
  const columnSelect = h(
    "select",
    { class: "f-column", "aria-label": "column" },
    h("option", { value: "" }, "any task"),
    ...model.columns.map((c) => h("option", { value: c.name }, c.name)),
  );
  columnSelect.addEventListener("change", () => set({ column: columnSelect.value, label: "" }));
  const statusSelect = h(
    "select",
    { class: "f-status", "aria-label": "status" },
    h("option", { value: "" }, "any status"),
    ...["P", "F", "n", "b", "r", "w", "p", "-"].map((s) => h("option", { value: s }, statusName(s))),
  );
  statusSelect.addEventListener("change", () => set({ status: statusSelect.value }));
  const labelSelect = h("select", { class: "f-label", "aria-label": "label" });
  labelSelect.addEventListener("change", () => set({ label: labelSelect.value }));
  const conf = h("input", {
    class: "f-conf",
    type: "number",
    min: 0,
    max: 1,
    step: 0.05,
    value: 1,
    title: "confidence at most",
    "aria-label": "confidence at most",
  });
  conf.addEventListener("input", () => set({ maxConfidence: Number(conf.value || 1) }));
  const sort = h(
    "select",
    { class: "f-sort", "aria-label": "sort" },
    h("option", { value: "key" }, "key A→Z"),
    h("option", { value: "key-desc" }, "key Z→A"),
    h("option", { value: "conf" }, "confidence low→high"),
    h("option", { value: "conf-desc" }, "confidence high→low"),
    h("option", { value: "status" }, "status"),
  );
  sort.addEventListener("change", () => {
    if (isOneOf(SORTS, sort.value)) set({ sort: sort.value });
  });
  const search = h("input", { class: "f-search", type: "search", placeholder: "key contains…", "aria-label": "search keys" });
  search.addEventListener("input", () => set({ search: search.value }));
  const count = h("span", { class: "count" });
  const el = h("div", { class: "toolbar" }, search, columnSelect, statusSelect, labelSelect, h("label", {}, "conf ≤ ", conf), sort, count);
  return { el, labelSelect, count };
}
