// The harvest as plain text for a terminal: per judgement type, then overall, aligned tables.

import {
  SMALL_SAMPLE,
  type AuditReport,
  type CalibrationReport,
  type HarvestReport,
  type ThresholdPoint,
  type TypeReport,
} from "./harvest.js";
import { itemAt } from "../shared/checked-index.js";
import type { KappaReport, LabelReport } from "./agreement.js";
import type { SideFigures, Savings } from "./cost.js";

const fmt = (x: number | null, digits = 3): string => (x === null ? "–" : x.toFixed(digits));
const pct = (x: number | null): string => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);

/** Rows of cells → lines, each column padded to its widest cell; the first column left-aligned,
 *  the others right-aligned unless `left` lists them. */
export function table(rows: string[][], indent = "  ", left: number[] = [0]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => {
          const pad = " ".repeat(itemAt(widths, i) - [...cell].length);
          return left.includes(i) ? cell + pad : pad + cell;
        })
        .join("  ")
        .trimEnd(),
  );
}

/** Thresholds shown in the text table: every 0.1, the high end, and the recommended one. */
const SHOWN = [0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 1];

function section(r: TypeReport, target: number): string[] {
  const out: string[] = [];
  const models = r.models.map((m) => m.model).join(", ") || "no model";
  out.push(r.type === "(overall)" ? "overall" : `judgement type ${r.type}`);
  if (r.pairs === 0 && (r.audit || r.reviewed)) {
    // Turned on and audited or reviewed, shadowed by nothing: those pairs are all there is to read.
    out.push(`  no shadow pairs: the type is turned on, and only its ${r.audit ? "audit" : "reviewed"} pairs are here`);
    if (r.calibration) out.push(`  ${calibrationSentence(r.calibration, target)}`);
    if (r.audit) out.push(`  ${auditSentence(r.audit)}`);
    if (r.reviewed) out.push(`  ${reviewedSentence(r.reviewed)}`);
    return out;
  }
  out.push(`  ${r.kinds.join("/") || "–"} · ${models}`);
  const reasons = Object.entries(r.skipped.by_reason)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  out.push(
    `  pairs ${r.pairs} · answered ${r.answered} · skipped ${r.skipped.total}${reasons ? ` (${reasons})` : ""} · abstained ${r.abstained.total}` +
      (r.abstained.total > 0 ? ` (refused ${r.abstained.refused}, no label ${r.abstained.no_label})` : ""),
  );
  out.push(
    `  agreement ${pct(r.agreement.rate)} (${r.agreement.agree}/${r.answered})${r.agreement.small_sample && r.answered > 0 ? FEW : ""} · ECE ${fmt(r.ece)} · Brier ${fmt(r.brier)}`,
  );
  if (r.recommended) {
    const rec = r.recommended;
    out.push(
      `  min_confidence for ${pct(target)} agreement: ${rec.threshold.toFixed(2)} — the model decides ${pct(rec.coverage)} (${rec.covered}/${r.answered}) at ${pct(rec.agreement)} agreement${rec.small_sample ? FEW : ""}`,
    );
  } else {
    out.push(`  min_confidence for ${pct(target)} agreement: none — no threshold reaches it`);
  }
  if (r.kappa) out.push(`  ${kappaSentence(r, r.kappa)}`);
  if (r.per_label && r.answered > 0) out.push(`  ${perLabelSentence(r.per_label)}`);
  if (r.reviewed) out.push(`  ${reviewedSentence(r.reviewed)}`);
  if (r.cost && r.cost.models.length > 0) out.push(...costLines(r.cost));
  if (r.answered > 0) out.push(...figures(r));
  if (r.calibration) out.push(`  ${calibrationSentence(r.calibration, target)}`);
  if (r.score)
    out.push(
      `  levels: mean absolute distance ${fmt(r.score.mean_abs_level_distance)} · quadratic-weighted kappa ${fmt(r.score.quadratic_kappa)}`,
    );
  if (r.audit) out.push(`  ${auditSentence(r.audit)}`);
  if (r.disagreements && r.disagreements.total > 0) {
    out.push(
      `  disagreements: ${r.disagreements.total}${r.disagreements.total > r.disagreements.listed.length ? ` (first ${r.disagreements.listed.length} listed)` : ""}`,
    );
    out.push(
      ...table(
        [
          ["host", "model", "conf", "run", "key"],
          ...r.disagreements.listed.map((d) => [d.host_label, d.model_label, d.confidence.toFixed(3), d.run, d.key ?? "–"]),
        ],
        "    ",
        [0, 1, 3, 4],
      ),
    );
  }
  return out;
}

/** The band table, the threshold table and the confusion matrix of a type with answers. */
function figures(r: TypeReport): string[] {
  const out: string[] = [""];
  out.push(
    ...table([
      ["confidence", "answers", "agree", "agreement", "mean conf"],
      ...r.bands.map((b) => [
        b.band,
        String(b.n),
        String(b.agree),
        pct(b.agreement) + (b.small_sample && b.n > 0 ? "*" : ""),
        fmt(b.mean_confidence),
      ]),
    ]),
  );
  out.push("");
  const shown: ThresholdPoint[] = r.thresholds.filter((p) => SHOWN.includes(p.t) || p.t === r.recommended?.threshold);
  out.push(
    ...table([
      ["threshold", "decides", "coverage", "agreement"],
      ...shown.map((p) => [
        p.t.toFixed(2) + (p.t === r.recommended?.threshold ? " *" : ""),
        String(p.covered),
        pct(p.coverage),
        pct(p.agreement),
      ]),
    ]),
  );
  out.push("");
  const c = r.confusion;
  if (c) {
    out.push("  confusion (rows: host label, columns: model label)");
    out.push(
      ...table([["host \\ model", ...c.model_labels], ...c.host_labels.map((h, i) => [h, ...itemAt(c.counts, i).map(String)])], "    "),
    );
  }
  return out;
}

/** What a type's calibration is and does to these pairs; shared by the text and HTML reports. */
export function calibrationSentence(c: CalibrationReport, target: number): string {
  const rec = c.recommended;
  return (
    `calibration: ${c.status} ${c.method} ${c.id} (${c.file}), fitted on ${c.fitted_pairs} pairs of ${c.model}; held-out ECE ${fmt(c.cv.ece_before)} → ${fmt(c.cv.ece_after)}, Brier ${fmt(c.cv.brier_before)} → ${fmt(c.cv.brier_after)}` +
    (c.calibrated > 0
      ? `; these ${c.calibrated} answers mapped: ECE ${fmt(c.ece)}, Brier ${fmt(c.brier)}, min_confidence for ${pct(target)} ${rec ? `${rec.threshold.toFixed(2)} (decides ${pct(rec.coverage)})` : "none"}`
      : "")
  );
}

/** The audit's agreement against its baseline, and whether it drifted; shared by text and HTML. */
export function auditSentence(a: AuditReport): string {
  return (
    `audit: ${a.answered} answered, agreement ${pct(a.agreement.rate)} (${pct(a.agreement.wilson.lo)}–${pct(a.agreement.wilson.hi)})${a.agreement.small_sample ? FEW : ""}` +
    (a.baseline
      ? ` vs ${a.baseline.source} ${pct(a.baseline.rate)}; difference ${a.difference ? `${pct(a.difference.d)} (${pct(a.difference.lo)} … ${pct(a.difference.hi)})` : "–"}${a.drift ? " — DRIFT" : ", within chance"}`
      : " (no shadow baseline)")
  );
}

/** Cohen's kappa beside raw agreement, with its interval. */
function kappaSentence(r: TypeReport, k: KappaReport): string {
  return `kappa ${fmt(k.kappa)} (${fmt(k.lo)} … ${fmt(k.hi)})${k.weighting === "quadratic" ? ", quadratic-weighted," : ""} over ${k.n} labelled answers · raw agreement ${pct(r.agreement.rate)}${r.agreement.wilson ? ` (${pct(r.agreement.wilson.lo)}–${pct(r.agreement.wilson.hi)})` : ""}`;
}

function perLabelSentence(labels: LabelReport[]): string {
  return `per label (model against host): ${labels.map((l) => `${l.label} precision ${pct(l.precision)} recall ${pct(l.recall)}`).join(" · ")}`;
}

/** Agreement of the host and of the model with people's labels; shared by the text and HTML reports. */
export function reviewedSentence(v: NonNullable<TypeReport["reviewed"]>): string {
  return (
    `against ${v.n} reviewed labels: ` +
    (v.host.answered > 0
      ? `host ${pct(v.host.rate)} (${pct(v.host.wilson.lo)}–${pct(v.host.wilson.hi)}) of ${v.host.answered} asked apart`
      : "host not asked apart (people answered in its place)") +
    ` · model ${pct(v.model.rate)} (${pct(v.model.wilson.lo)}–${pct(v.model.wilson.hi)}) of ${v.model.answered} answered` +
    (v.n < SMALL_SAMPLE ? FEW : "")
  );
}

const ms = (x: number | null): string => (x === null ? "–" : `${Math.round(x)} ms`);
const usd = (x: number | null): string => (x === null ? "–" : `$${x.toFixed(6)}`);
const tokens = (s: SideFigures): string =>
  s.mean_input_tokens === null ? "–" : `${Math.round(s.mean_input_tokens)}/${Math.round(s.mean_output_tokens ?? 0)}`;

/** Cost and latency per model on both sides, and the savings at the recommended threshold. */
function costLines(cost: NonNullable<TypeReport["cost"]>): string[] {
  const out = ["", "  cost and latency per decision (tokens in/out; cost where the answers reported one)"];
  const rows = [["model", "side", "answers", "mean latency", "p95 latency", "tokens", "cost"]];
  for (const m of cost.models) {
    for (const [side, s] of [
      ["model", m.model_side],
      ["host", m.host],
    ] as const) {
      rows.push([m.model, side, String(s.n), ms(s.mean_latency_ms), ms(s.p95_latency_ms), tokens(s), usd(s.mean_cost_usd)]);
    }
  }
  out.push(...table(rows, "    ", [0, 1]));
  out.push(`  ${savingsSentence(cost.savings)}`);
  return out;
}

/** What turning the type on would have saved on these pairs; shared by the text and HTML reports. */
export function savingsSentence(s: Savings | null): string {
  if (s === null) return "savings: – (no recommended threshold, or these pairs did not record the host's side)";
  return (
    `turned on at ${s.threshold.toFixed(2)}, on the ${s.host_recorded} pairs that recorded the host: the model decides ${s.covered}; ` +
    `host cost avoided ${usd(s.host_cost_avoided_usd)}, model cost ${usd(s.model_cost_usd)}, saved ${usd(s.saved_usd)}; ` +
    `host time avoided ${ms(s.host_latency_avoided_ms)}, model time ${ms(s.model_latency_ms)}, saved ${ms(s.saved_latency_ms)}`
  );
}

/** Marks a figure resting on fewer than SMALL_SAMPLE pairs. */
const FEW = " (few pairs)";

/** The first table: one line per type, what a team decides on. */
export function summaryRows(report: HarvestReport): string[][] {
  const rows = [["type", "pairs", "agreement (95% CI)", "kappa (95% CI)", "threshold", "coverage", "calibration", "audit", "verdict"]];
  for (const r of report.types) {
    const cal = r.calibration && r.calibration.status !== "stale" ? r.calibration : null;
    const rec = cal ? cal.recommended : r.recommended;
    const w = r.agreement.wilson;
    rows.push([
      r.type,
      String(r.pairs) + (r.pairs < SMALL_SAMPLE ? "*" : ""),
      `${pct(r.agreement.rate)} (${w ? `${pct(w.lo)}–${pct(w.hi)}` : "–"})${r.agreement.small_sample ? "*" : ""}`,
      r.kappa ? `${fmt(r.kappa.kappa, 2)} (${fmt(r.kappa.lo, 2)}–${fmt(r.kappa.hi, 2)})` : "–",
      rec ? rec.threshold.toFixed(2) + (cal ? " cal" : "") : "–",
      rec ? pct(rec.coverage) + (rec.covered < SMALL_SAMPLE ? "*" : "") : "–",
      r.calibration ? `${r.calibration.status} ${r.calibration.method}` : "none",
      r.audit
        ? `${pct(r.audit.agreement.rate)} of ${r.audit.answered}${r.audit.agreement.small_sample ? "*" : ""}${r.audit.drift ? " DRIFT" : ""}`
        : "–",
      r.verdict?.text ?? "–",
    ]);
  }
  return rows;
}

/** The harvest report as text for a terminal. */
export function renderText(report: HarvestReport): string {
  const out: string[] = [];
  out.push(
    `harvest of ${report.lab ?? report.file}: ${report.overall.pairs} pairs, ${report.types.length} judgement type(s), target ${pct(report.target)}` +
      (report.duplicates > 0 ? `, ${report.duplicates} duplicate pairs not counted (--all counts them)` : ""),
  );
  for (const w of report.warnings) out.push(`warning: ${w}`);
  if (report.types.length > 0) {
    out.push("");
    out.push(...table(summaryRows(report), "  ", [0, 6, 8]));
    out.push(`  * fewer than ${SMALL_SAMPLE} pairs behind this figure: weak evidence`);
    const lines = report.types.filter((t) => t.config_line);
    if (lines.length > 0) {
      out.push("");
      out.push("to turn a type on, paste its line into [decisions.types] of your machine config:");
      for (const t of lines) out.push(`  ${t.config_line}${t.verdict?.status === "ready" ? "" : `   # ${t.verdict?.text}`}`);
    }
    for (const t of report.drift) out.push(`DRIFT: ${t}: audit agreement has dropped below its shadow agreement beyond chance`);
  }
  for (const t of report.types) {
    out.push("");
    out.push(...section(t, report.target));
  }
  if (report.types.length !== 1) {
    out.push("");
    out.push(...section(report.overall, report.target));
  }
  return out.join("\n") + "\n";
}
