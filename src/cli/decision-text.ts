// A route instance's decision record as one line of text: what `show` prints per route instance
// and what `explain RUN TASK[KEY]` checks an output against.

import type { DecisionRecord } from "../run/kinds/index.js";
import { isPlainObject } from "../shared/primitives.js";

/** Whether a value is one question's decision (a label and the mode it was made in). */
export function isDecision(v: unknown): v is DecisionRecord[string] {
  return !!v && typeof v === "object" && "label" in v && typeof v.label === "string" && "mode" in v && typeof v.mode === "string";
}

/** Whether a value is a decision record: an object whose every value is one question's decision. */
export function isDecisionRecord(v: unknown): v is DecisionRecord {
  return isPlainObject(v) && Object.values(v).every(isDecision);
}

/**
 * A route instance's decision record as text: per question its label, confidence, the
 * mode it ran in and who answered ("package=p3 0.84 model s1/jev-1"), and a line per receipt.
 * Undefined when the output is not a decision record.
 */
export function describeDecisions(output: unknown): { line: string; receipts: string[] } | undefined {
  if (!isDecisionRecord(output)) return undefined;
  const entries = Object.entries(output);
  if (entries.length === 0) return undefined;
  const parts: string[] = [];
  const receiptLines: string[] = [];
  for (const [question, d] of entries) {
    const who = d.mode === "output" ? "" : ` ${d.provider ?? "?"}/${d.model ?? "?"}`;
    const confidence = typeof d.confidence === "number" ? ` ${d.confidence.toFixed(2)}` : "";
    parts.push(`${question}=${d.label}${confidence}${d.refused ? " refused" : ""} ${d.mode}${who}`);
    if (d.receipt) {
      const reason = d.receipt.reason.length > 240 ? d.receipt.reason.slice(0, 237) + "..." : d.receipt.reason;
      receiptLines.push(`receipt: ${question}: ${d.receipt.provider}/${d.receipt.model} could not answer, the host did: ${reason}`);
    }
  }
  return { line: parts.join("  "), receipts: receiptLines };
}
