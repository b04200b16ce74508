// One question's decision on the cell page, answering "why this label": the label and its
// confidence against the threshold that would have made it `uncertain`, the model's own
// confidence and the calibration that mapped it, who answered (mode, provider/model, a fallback
// receipt), the audit's host answer, the review's answer, and the probabilities as bars.

import { h, when } from "./dom.js";
import type { CellDecision } from "../api-types.js";
import { forPeople } from "../../shared/words.js";

/** A line of the decision's facts: a term and what it is. */
function fact(term: string, value: string, cls = ""): HTMLElement {
  return h("div", { class: `fact ${cls}`.trim(), "data-fact": term }, h("dt", {}, term), h("dd", {}, value));
}

/** The threshold's name on the page: whose it is, and the playbook's when the machine config's applied instead. */
function thresholdName(d: CellDecision & { min_confidence: number }): string {
  const min = `min_confidence ${d.min_confidence.toFixed(2)}`;
  if (d.playbook_min_confidence === undefined) return `${min} (the playbook's)`;
  return `${min} (the machine config's for ${d.judgement_type}; the playbook's is ${d.playbook_min_confidence.toFixed(2)})`;
}

/**
 * Why the label is what it is: confidence against the threshold applied, in words. A log written
 * before records held the threshold shows the playbook's; when the label does not follow from it,
 * the page says that the machine config's (D-33) applied instead.
 */
function thresholdWords(d: CellDecision): string | null {
  if (d.min_confidence === null) return null;
  const min = thresholdName({ ...d, min_confidence: d.min_confidence });
  if (d.refused) return `${min}: the model refused, so the label is uncertain`;
  if (d.receipt) return `${min}: the host answered in the model's place, with the playbook's threshold`;
  const below = d.confidence < d.min_confidence;
  const conf = `confidence ${d.confidence.toFixed(3)}`;
  const uncertain = d.label === "uncertain";
  if (uncertain !== below && !d.min_confidence_recorded)
    return `${min}: ${conf} ${below ? "is below it" : "reaches it"}, yet the label is ${d.label}: the machine config's min_confidence for ${d.judgement_type} applied instead (its value is not in the record)`;
  if (!uncertain) return `${min}: ${conf} reaches it, so the model's label stands`;
  const top = Object.entries(d.probabilities).sort((a, b) => b[1] - a[1])[0];
  return `${min}: ${conf} is below it, so the label is uncertain${top ? ` (the most likely label was ${top[0]})` : ""}`;
}

function who(d: CellDecision): string {
  if (d.mode === "output") return "mode output · read from the producer's output (no model asked)";
  const by = `${d.provider ?? "?"}/${d.model ?? "?"}`;
  return `mode ${d.mode} · ${by}${d.mode === "shadow" ? " (the host decided; the model answered beside it)" : ""}`;
}

function facts(d: CellDecision): HTMLElement[] {
  const out = [fact("answered by", `${who(d)} · ${d.latency_ms} ms · type ${d.judgement_type}`)];
  const threshold = thresholdWords(d);
  if (threshold) out.push(fact("threshold", threshold));
  if (d.raw_confidence !== undefined)
    out.push(
      fact(
        "calibration",
        `${d.calibration ?? "?"}: the model said ${d.raw_confidence.toFixed(3)}, calibrated ${d.confidence.toFixed(3)} (the threshold is on the calibrated scale; a min_confidence for the type in the machine config wins over the playbook's)`,
      ),
    );
  if (d.audit)
    out.push(fact("audit", `the host answered ${d.audit.host_label}${d.audit.host_label === d.label ? " (agrees)" : " (disagrees)"}`));
  if (d.review) {
    const r = d.review;
    const model = r.model ? `; the model had said ${r.model.label} (${r.model.confidence.toFixed(3)})` : "";
    out.push(fact("review", `${r.timeout ? "timed out" : `answered by ${r.by}`} ${when(r.at)}${r.note ? `: “${r.note}”` : ""}${model}`));
  }
  if (d.receipt)
    out.push(
      fact(
        "fallback",
        `${d.receipt.provider}/${d.receipt.model} could not answer, the host did (${when(d.receipt.time)}): ${forPeople(d.receipt.reason)}`,
        "receipt",
      ),
    );
  if (d.usage) out.push(fact("usage", JSON.stringify(d.usage)));
  return out;
}

/** One question's decision: its label and confidence, the facts behind them, and the probabilities. */
export function decisionEl(d: CellDecision): HTMLElement {
  const probs = Object.entries(d.probabilities).sort((a, b) => b[1] - a[1]);
  return h(
    "div",
    { class: "decision", "data-question": d.question },
    h(
      "p",
      { class: "answer-line" },
      h("b", {}, `${d.question} = ${d.label}`),
      ` confidence ${d.confidence.toFixed(3)}${d.raw_confidence !== undefined ? ` (calibrated; raw ${d.raw_confidence.toFixed(3)})` : ""}${d.refused ? " · refused" : ""}`,
    ),
    h("dl", { class: "facts" }, ...facts(d)),
    h(
      "table",
      { class: "probs" },
      ...probs.map(([label, p]) => {
        const fill = h("span", { class: "fill" });
        fill.style.width = `${(p * 100).toFixed(1)}%`;
        return h(
          "tr",
          { class: label === d.label ? "chosen" : "", "data-label": label },
          h("td", { class: "plabel" }, label),
          h("td", { class: "pbar" }, h("span", { class: "bar" }, fill)),
          h("td", { class: "pnum" }, p.toFixed(3)),
        );
      }),
    ),
  );
}
