// `switchyard show RUN --html FILE`: the run page as one self-contained file — the browser code,
// its styles and the run's documents (the run, the grid, every cell) inlined, so it opens from
// disk with no server and no network, to attach to a ticket or keep as a CI artifact.

import type { Store } from "../run/index.js";
import { RunReader } from "./run-reader.js";
import { embeddedPage } from "./page.js";

/** The run page of `show --html` as one self-contained HTML file; undefined when the store has no such run. */
export function runHtml(store: Store, run: string): string | undefined {
  const reader = new RunReader(store);
  const doc = reader.runDoc(run);
  const grid = reader.grid(run);
  if (!doc || !grid) return undefined;
  return embeddedPage({ run: doc, grid, cells: reader.allCells(run) });
}
