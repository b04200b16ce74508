// The web view's entry point: picks the data source (the server, or the data a `show --html`
// file embeds) and routes by the URL's fragment (#/, #/runs/ID, #/runs/ID/cell/TASK[/KEY]), which
// works the same when the page is served and when it is opened from a file.

import "./style.css";
import { h, clear } from "./dom.js";
import { EmbeddedSource, HttpSource, embedded, type Source } from "./source.js";
import { runPage, type CellRef } from "./run-page.js";
import { runsPage } from "./runs-page.js";
import { reviewPage } from "./review-page.js";
import { takeWriteToken } from "./write-token.js";
import { messageOf } from "../../shared/thrown.js";

takeWriteToken();
const data = embedded();
const source: Source = data ? new EmbeddedSource(data) : new HttpSource();
const root = document.getElementById("app")!;

type Route = { page: "runs" } | { page: "review" } | { page: "run"; run: string; cell: CellRef | null };

function parse(hash: string): Route {
  const segs = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (segs[0] === "runs" && segs[1]) {
    const cell = segs[2] === "cell" && segs[3] ? { task: segs[3], key: segs.length > 4 ? segs.slice(4).join("/") : null } : null;
    return { page: "run", run: segs[1], cell };
  }
  if (data) return { page: "run", run: data.run.run, cell: null };
  if (segs[0] === "review") return { page: "review" };
  return { page: "runs" };
}

let stop: (() => void) & { showCell?: (c: CellRef | null) => Promise<void> } = () => {};
let current: Route | null = null;

async function route(): Promise<void> {
  const next = parse(location.hash);
  // Opening or closing a cell on the same run keeps the page (and its scroll position).
  if (next.page === "run" && current?.page === "run" && current.run === next.run && stop.showCell) {
    current = next;
    await stop.showCell(next.cell);
    return;
  }
  stop();
  current = next;
  try {
    stop =
      next.page === "run"
        ? await runPage(root, source, next.run, next.cell)
        : next.page === "review"
          ? await reviewPage(root, source)
          : await runsPage(root, source);
    document.title = next.page === "run" ? `switchyard · ${next.run}` : `switchyard · ${next.page === "review" ? "review queue" : "runs"}`;
  } catch (err) {
    stop = () => {};
    clear(root);
    root.append(h("p", { class: "error" }, String(messageOf(err))), h("a", { href: "#/" }, "← runs"));
  }
  document.body.dataset.ready = "true";
}

window.addEventListener("hashchange", () => void route());
void route();
