// `show RUN --follow`: prints a run's events as they are committed, from another
// terminal, until the run ends — reading the event log only, never writing. A run whose process
// died while running ends the follow with a note saying how to resume it.

import { decodeEvent, ownerGone, type Store } from "../run/index.js";
import { stdoutReaderGone } from "./closed-output.js";
import { plainLine } from "./run-progress.js";

const POLL_MS = 200;
const PAGE = 2000;
const ENDS = new Set(["run_finished", "run_stopped", "run_cancelled"]);

/** Prints a run's events as they are committed until the run ends (`show --follow`), as text or JSON lines; reads only. */
export async function followRun(store: Store, run: string, json: boolean, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  let after = 0;
  let lastType = "";
  for (;;) {
    const rows = store.eventsAfter(run, after, PAGE);
    for (const r of rows) {
      const e = decodeEvent(run, r);
      out.write(json ? JSON.stringify(e) + "\n" : `${String(e.seq).padStart(6)} ${plainLine(e)}\n`);
      after = r.seq;
      lastType = r.type;
    }
    // Nobody reads any more (`show RUN --follow | head`): following on would print into the void.
    if (out === process.stdout && stdoutReaderGone()) return;
    if (rows.length === PAGE) continue;
    const row = store.run(run);
    // The run can end between the page read above and this look at its status: its last events,
    // committed meanwhile, are read before the follow ends.
    if (!row || row.status !== "running") {
      if (row && store.eventsAfter(run, after, 1).length > 0) continue;
      return;
    }
    if (ENDS.has(lastType)) continue; // a later invocation has begun: read on
    if (ownerGone(store, run)) {
      if (!json)
        out.write(`switchyard: the process executing run ${run} (${row.pid}) is gone; continue it with \`switchyard resume ${run}\`\n`);
      return;
    }
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
}
