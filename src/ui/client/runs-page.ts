// The run list: newest first, with status, playbook, times, counts, cost and decisions (each
// question answered, as the CLI counts them), filtered by status and playbook; rows of runs that
// start or change arrive live. Labs follow.

import { h, clear, elapsed, when } from "./dom.js";
import type { LabItem, RunListItem } from "../api-types.js";
import type { Source } from "./source.js";
import { runHash } from "./run-page.js";
import { reviewLink } from "./review-page.js";

const STATUSES = ["running", "waiting", "passed", "failed", "stopped", "cancelled"];
const COLUMNS = [
  "run",
  "status",
  "playbook",
  "started",
  "finished",
  "time",
  "passed",
  "failed",
  "not taken",
  "blocked",
  "cost",
  "decisions",
];

/** What "decisions" counts, as the CLI's summary does. */
const DECISIONS_TITLE = "each question of a route answered for an element (a route of two questions over 300 elements: 600)";

/** The run list page: every run of the state folder, filterable by status and playbook, updated live, with the labs beside it. */
export async function runsPage(root: HTMLElement, source: Source): Promise<() => void> {
  let runs = await source.runs();
  const labs: LabItem[] = await source.labs();
  const filter = { status: "", playbook: "" };
  const table = h("table", { class: "runs" });
  const playbookSelect = h("select", { class: "f-playbook", "aria-label": "playbook" });
  const statusSelect = h(
    "select",
    { class: "f-status", "aria-label": "status" },
    h("option", { value: "" }, "any status"),
    ...STATUSES.map((s) => h("option", { value: s }, s)),
  );
  const review = h("span", { class: "review-link-slot" });
  const draw = () => {
    if (source.live) review.replaceChildren(reviewLink(runs.reduce((n, r) => n + (r.counts.waiting ?? 0), 0)));
    const playbooks = [...new Set(runs.map((r) => r.playbook))].sort();
    clear(playbookSelect);
    playbookSelect.append(h("option", { value: "" }, "any playbook"), ...playbooks.map((p) => h("option", { value: p }, p)));
    playbookSelect.value = filter.playbook;
    drawRunsTable(table, runs, filter);
  };
  playbookSelect.addEventListener("change", () => ((filter.playbook = playbookSelect.value), draw()));
  statusSelect.addEventListener("change", () => ((filter.status = statusSelect.value), draw()));
  draw();
  clear(root);
  root.append(
    h(
      "div",
      { class: "runs-page" },
      h("h1", {}, "switchyard runs"),
      review,
      h("div", { class: "toolbar" }, statusSelect, playbookSelect),
      table,
      labs.length ? h("h2", {}, "labs") : null,
      labs.length ? labsList(labs) : null,
    ),
  );
  return source.followRuns((rows) => {
    const byId = new Map(runs.map((r) => [r.run, r]));
    for (const r of rows) byId.set(r.run, r);
    runs = [...byId.values()].sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : a.run < b.run ? 1 : -1));
    draw();
  });
}

/** Redraws the table: its header, then one row per run the filter lets through (or a hint when there is no run). */
function drawRunsTable(table: HTMLTableElement, runs: RunListItem[], filter: { status: string; playbook: string }): void {
  clear(table);
  table.append(h("tr", {}, ...COLUMNS.map((c) => h("th", c === "decisions" ? { title: DECISIONS_TITLE } : {}, c))));
  for (const r of runs) {
    if ((filter.status && r.status !== filter.status) || (filter.playbook && r.playbook !== filter.playbook)) continue;
    table.append(runRow(r));
  }
  if (runs.length === 0)
    table.append(
      h(
        "tr",
        {},
        h("td", { colspan: 12, class: "meta" }, "no runs yet: start one with `switchyard run PATH` (this page updates by itself)"),
      ),
    );
}

/** One run's row: a link to its page, its status, times, counts, cost and decisions. */
function runRow(r: RunListItem): HTMLTableRowElement {
  const n = (s: string) => String(r.counts[s] ?? 0);
  return h(
    "tr",
    { "data-run": r.run },
    h("td", {}, h("a", { href: runHash(r.run) }, r.run)),
    h("td", {}, h("span", { class: `badge s-${r.status}` }, r.status)),
    h("td", {}, r.playbook),
    h("td", {}, when(r.started_at)),
    h("td", {}, when(r.finished_at)),
    h("td", { class: "num" }, elapsed(r.elapsed_ms)),
    h("td", { class: "num" }, n("passed")),
    h("td", { class: "num" }, n("failed")),
    h("td", { class: "num" }, n("not_taken")),
    h("td", { class: "num" }, n("blocked")),
    h("td", { class: "num" }, `$${r.spent_usd.toFixed(2)}`),
    h("td", { class: "num" }, String(r.decisions)),
  );
}

/** The labs of the state folder, each a link, the current one marked. */
function labsList(labs: LabItem[]): HTMLUListElement {
  return h(
    "ul",
    { class: "labs" },
    ...labs.map((l) =>
      h("li", {}, h("a", { href: `/labs/${encodeURIComponent(l.id)}` }, l.id), `${l.current ? " (current)" : ""} ${l.note}`),
    ),
  );
}
