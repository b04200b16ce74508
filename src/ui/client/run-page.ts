// A run's page: its header, the plan graph, the unmapped tasks, the grid and (when a cell is
// chosen) the cell's panel. While the run is live it follows the run's events: grid cells are
// updated in place, and the header, graph and task list are reloaded when a task or the run
// itself changes (at most a few times a second).

import { h, clear, elapsed, when } from "./dom.js";
import type { ApiEvent, RunDoc } from "../api-types.js";
import type { Source } from "./source.js";
import { GridModel } from "./grid-model.js";
import { GridView } from "./grid-view.js";
import { graphView } from "./graph-view.js";
import { cellView } from "./cell-view.js";
import { messageOf } from "../../shared/thrown.js";
import { runHash, type CellRef } from "../hash.js";
import { forPeople } from "../../shared/words.js";

export { runHash, type CellRef } from "../hash.js";

function counts(c: Record<string, number>): string {
  return (
    ["passed", "failed", "not_taken", "blocked", "running", "pending"]
      .filter((s) => c[s])
      .map((s) => `${c[s]} ${s}`)
      .join(" · ") || "no instances yet"
  );
}

function header(doc: RunDoc, source: Source): HTMLElement {
  const l = doc.listing;
  return h(
    "header",
    { class: "run-head" },
    source.live ? h("a", { href: "#/", class: "back" }, "← runs") : null,
    h("h1", {}, `run ${doc.run} `, h("span", { class: `badge s-${doc.status}`, "data-run-status": doc.status }, doc.status)),
    h(
      "p",
      { class: "meta" },
      `${doc.playbook} · ${l.source} · started ${when(doc.started_at)} · ${doc.finished_at ? `finished ${when(doc.finished_at)}` : doc.status === "running" ? "running" : (l.stop_reason ?? doc.status)} · ${elapsed(l.elapsed_ms)} · $${l.spent_usd.toFixed(2)} · ${l.decisions} decisions`,
    ),
    h("p", { class: "meta counts" }, counts(l.counts)),
  );
}

function unmappedTable(doc: RunDoc, open: (c: CellRef) => void): HTMLElement | null {
  const rows = doc.graph.filter((t) => !t.mapped);
  if (rows.length === 0) return null;
  return h(
    "table",
    { class: "unmapped" },
    h("tr", {}, h("th", {}, "task"), h("th", {}, "kind"), h("th", {}, "status"), h("th", {}, "output, error or label")),
    ...rows.map((t) => {
      const d = doc.tasks[t.name];
      const detail = !d
        ? ""
        : d.status === "not_taken"
          ? (d.label ?? "")
          : d.error
            ? forPeople(d.error)
            : d.output === undefined || d.output === null
              ? ""
              : JSON.stringify(d.output);
      return h(
        "tr",
        { "data-task": t.name, class: "clickable", onclick: () => open({ task: t.name, key: null }) },
        h("td", {}, t.name),
        h("td", {}, t.kind),
        h("td", {}, h("span", { class: `badge s-${d?.status ?? "pending"}` }, d?.status ?? "pending")),
        h("td", { class: "detail" }, detail.length > 200 ? detail.slice(0, 197) + "…" : detail),
      );
    }),
  );
}

/** Renders the run page into `root`; returns the function that stops its live updates. */
export async function runPage(root: HTMLElement, source: Source, run: string, cell: CellRef | null): Promise<() => void> {
  const [doc0, gridDoc] = await Promise.all([source.run(run), source.grid(run)]);
  let doc = doc0;
  const model = new GridModel(gridDoc);
  const go = (c: CellRef | null) => {
    location.hash = runHash(run, c);
  };
  const grid = new GridView(model, (task, key) => go({ task, key }));
  const top = h("div", { class: "run-top" });
  const panel = h("aside", { class: "cell-panel", hidden: true });
  const drawTop = () => drawRunTop(top, doc, source, model, grid, go);
  drawTop();
  clear(root);
  root.append(h("div", { class: "run-page" }, top, model.columns.length ? grid.el : h("p", { class: "meta" }, "no mapped tasks"), panel));
  const cells = new CellPanel(panel, source, run, go);
  void cells.show(cell);

  let pendingGrid = false;
  let pendingRun = false;
  let timer = 0;
  const flush = async () => {
    timer = 0;
    if (pendingGrid) grid.refilter();
    if (pendingRun) doc = await source.run(run);
    if (pendingGrid || pendingRun) drawTop();
    pendingGrid = pendingRun = false;
  };
  const onEvents = (events: ApiEvent[]) => {
    const changed = model.apply(events);
    pendingGrid ||= changed.cells;
    pendingRun ||= changed.run || changed.cells;
    const shown = cells.shown;
    if (shown && events.some((e) => e.task === shown.task && e.key === shown.key)) void cells.show(shown);
    if (!timer) timer = window.setTimeout(() => void flush(), 250);
  };
  const stop = source.followRun(run, model.lastSeq, onEvents);
  return Object.assign(
    () => {
      stop();
      if (timer) clearTimeout(timer);
    },
    { showCell: (c: CellRef | null) => cells.show(c) },
  );
}

/** The top of the page, redrawn in place: the header, the plan graph, the unmapped tasks and the grid's title. */
function drawRunTop(
  top: HTMLElement,
  doc: RunDoc,
  source: Source,
  model: GridModel,
  grid: GridView,
  go: (c: CellRef | null) => void,
): void {
  clear(top);
  top.append(
    header(doc, source),
    h(
      "div",
      { class: "graph-wrap" },
      graphView(doc, (t) => (t.mapped ? grid.set({ column: t.name }) : go({ task: t.name, key: null }))),
    ),
  );
  const u = unmappedTable(doc, go);
  if (u) top.append(h("h2", {}, "tasks"), u);
  top.append(h("h2", {}, `grid: ${model.keys.length} keys × ${model.columns.length} mapped tasks`));
}

/** The chosen cell's panel: loads and shows one instance, or hides when none is chosen. */
class CellPanel {
  /** The cell shown (or being loaded); a slower load of an earlier choice is dropped. */
  shown: CellRef | null = null;

  constructor(
    private readonly panel: HTMLElement,
    private readonly source: Source,
    private readonly run: string,
    private readonly go: (c: CellRef | null) => void,
  ) {}

  /** Shows cell `c` (null hides the panel). */
  async show(c: CellRef | null): Promise<void> {
    const { panel, source, run, go } = this;
    this.shown = c;
    if (!c) {
      panel.hidden = true;
      return;
    }
    try {
      const d = await source.cell(run, c.task, c.key);
      if (this.shown !== c) return;
      clear(panel);
      const fileLink = (attempt: number, path: string) =>
        `/api/runs/${encodeURIComponent(run)}/cells/${encodeURIComponent(c.task)}/file?${new URLSearchParams({ ...(c.key === null ? {} : { key: c.key }), attempt: String(attempt), path, format: "text" })}`;
      panel.append(
        h("button", { class: "close", "aria-label": "close", onclick: () => go(null) }, "×"),
        cellView(d, source.live, fileLink),
      );
      panel.hidden = false;
    } catch (err) {
      clear(panel);
      panel.append(h("button", { class: "close", onclick: () => go(null) }, "×"), h("p", { class: "error" }, String(messageOf(err))));
      panel.hidden = false;
    }
  }
}
