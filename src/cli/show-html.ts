// `switchyard show RUN --html FILE`: writes the run's web view as one self-contained file.

import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Store } from "../run/index.js";
import { CommandFailed } from "./common.js";
import { assetsBuilt, runHtml } from "../ui/index.js";

/** Writes a run's page as one self-contained HTML file (`show --html`). */
export function writeHtml(store: Store, run: string, file: string): void {
  if (!assetsBuilt())
    throw new CommandFailed("failed", "the web view's browser code is not built: run `npm run build` (or `npm install`) first");
  const html = runHtml(store, run);
  if (html === undefined) throw new CommandFailed("failed", `run ${run} has no admitted plan to show`);
  try {
    writeFileSync(file, html);
  } catch (err) {
    throw new CommandFailed("failed", `cannot write ${file}: ${(err as Error).message}`);
  }
  process.stderr.write(`wrote ${resolve(file)} (${(html.length / 1024).toFixed(0)} KiB)\n`);
}
