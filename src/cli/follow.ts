// `show RUN --follow` (issue 13): prints a run's events as they are committed, from another
// terminal, until the run ends — reading the event log only, never writing. A run whose process
// died while running ends the follow with a note saying how to resume it.

import { ownerGone, type RunEvent, type Store } from "../run/index.js";
import { plainLine } from "./run-progress.js";

const POLL_MS = 200;
const PAGE = 2000;
const ENDS = new Set(["run_finished", "run_stopped", "run_cancelled"]);

interface StoredEvent {
  seq: number;
  time: string;
  type: string;
  task: string | null;
  key: string | null;
  payload: string;
}

export async function followRun(store: Store, run: string, json: boolean, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const page = store.db.prepare("SELECT seq, time, type, task, key, payload FROM events WHERE run = ? AND seq > ? ORDER BY seq LIMIT ?");
  let after = 0;
  let lastType = "";
  for (;;) {
    const rows = page.all(run, after, PAGE) as StoredEvent[];
    for (const r of rows) {
      const e = { run, seq: r.seq, time: r.time, type: r.type, task: r.task, key: r.key, payload: JSON.parse(r.payload) } as RunEvent;
      out.write(json ? JSON.stringify(e) + "\n" : `${String(e.seq).padStart(6)} ${plainLine(e)}\n`);
      after = r.seq;
      lastType = r.type;
    }
    if (rows.length === PAGE) continue;
    const row = store.run(run);
    if (!row || row.status !== "running") return;
    if (ENDS.has(lastType)) continue; // a later invocation has begun: read on
    if (ownerGone(store, run)) {
      if (!json) out.write(`switchyard: the process executing run ${run} (${row.pid}) is gone; continue it with \`switchyard resume ${run}\`\n`);
      return;
    }
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
}
