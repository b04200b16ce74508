// One JSON event per line, as `codex exec --json` and `opencode run --format json` print them:
// parsed up front, so a reader deals only with events. A line that is not a JSON object with a
// "type" is a clear failure naming the line (a cut-short output usually ends in one).

import { isPlainObject } from "../../values/index.js";
import { messageOf } from "../../../shared/thrown.js";

/** One event of a tool's JSON-lines output. */
export type JsonEvent = Record<string, unknown> & { type: string };

/** A tool's stdout as JSON-lines events, or why it is not (nothing printed, a line that is not a JSON event). */
export function jsonEventLines(stdout: string): { ok: true; events: JsonEvent[] } | { ok: false; error: string } {
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) return { ok: false, error: "printed no JSON events on stdout" };
  const events: JsonEvent[] = [];
  for (const [i, line] of lines.entries()) {
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch (err) {
      return { ok: false, error: `printed line ${i + 1} that is not a JSON event (${messageOf(err)}); it may have been cut short` };
    }
    if (!isPlainObject(e) || typeof e.type !== "string")
      return { ok: false, error: `printed line ${i + 1} that is not an event with a "type"` };
    events.push({ ...e, type: e.type });
  }
  return { ok: true, events };
}
