// An appended event's row as both stores insert it: the payload serialised once, with the JSON of
// its output (or record) kept apart for the instance row, which stores the same text.

import { randomBytes } from "node:crypto";
import { OUTPUT_FIELD, type PendingRow } from "./projection.js";

/** Stands for the output field while the payload is serialised, then is replaced by its JSON. */
const marker = `\u0000switchyard-output-${randomBytes(8).toString("hex")}`;
const markerJson = JSON.stringify(marker);

/**
 * Sets row.text to JSON.stringify(row.payload), and row.outputText to the JSON of its output
 * or record (the instance row's `output`), serialising that part once: the payload is
 * serialised with a marker string in its place, and the marker's JSON is then replaced by the
 * output's JSON, which is what JSON.stringify writes at that place.
 */
export function serialisePayload(row: PendingRow): void {
  const field = OUTPUT_FIELD[row.type];
  const payload = row.payload as Record<string, unknown>;
  const value = field === undefined ? undefined : payload[field];
  const sub = value === undefined ? undefined : JSON.stringify(value);
  if (sub === undefined) {
    row.text = JSON.stringify(payload);
    return;
  }
  const outer = JSON.stringify({ ...payload, [field!]: marker });
  const at = outer.indexOf(markerJson);
  row.text = outer.slice(0, at) + sub + outer.slice(at + markerJson.length);
  row.outputText = sub;
}
