// A route instance's decision record as one line of text: what `show` prints per route instance
// and what `explain RUN TASK[KEY]` checks an output against.

import type { DecisionRecord } from "../run/kinds/index.js";

/** Whether a value is one question's decision (a label and the mode it was made in). */
export function isDecision(v: unknown): v is DecisionRecord[string] {
  return (
    !!v &&
    typeof v === "object" &&
    typeof (v as { label?: unknown }).label === "string" &&
    typeof (v as { mode?: unknown }).mode === "string"
  );
}

/**
 * A route instance's decision record as text: per question its label, confidence, the
 * mode it ran in and who answered ("package=p3 0.84 model s1/jev-1"), and a line per receipt.
 * Undefined when the output is not a decision record.
 */
export function describeDecisions(output: unknown): { line: string; receipts: string[] } | undefined {
  if (!output || typeof output !== "object" || Array.isArray(output)) return undefined;
  const entries = Object.entries(output as Record<string, unknown>);
  if (entries.length === 0 || !entries.every(([, d]) => isDecision(d))) return undefined;
  const parts: string[] = [];
  const receiptLines: string[] = [];
  for (const [question, d] of entries as [string, DecisionRecord[string]][]) {
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
