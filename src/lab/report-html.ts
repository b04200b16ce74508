// The harvest as one self-contained HTML file (H-2): inline CSS and SVG, no scripts, no fetches.
// Per judgement type: a reliability diagram (band's mean confidence vs observed agreement, with
// the diagonal of perfect calibration), the coverage/agreement curve over thresholds, the band
// table and the confusion matrix.

import type { BandReport, HarvestReport, TypeReport } from "./harvest.js";
import { auditSentence, calibrationSentence, reviewedSentence, savingsSentence, summaryRows } from "./report-text.js";
import { itemAt } from "../shared/checked-index.js";

/** Text made safe to place in HTML text or a quoted attribute. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

const pct = (x: number | null): string => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null, d = 3): string => (x === null ? "–" : x.toFixed(d));

// Plot geometry: a square of side S with margins for the axes' labels.
const S = 260;
const M = { left: 44, top: 14, right: 14, bottom: 40 };
const W = M.left + S + M.right;
const H = M.top + S + M.bottom;
const px = (x: number) => (M.left + x * S).toFixed(1);
const py = (y: number) => (M.top + (1 - y) * S).toFixed(1);

function axes(xLabel: string, yLabel: string): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const grid = ticks
    .map(
      (t) =>
        `<line class="grid" x1="${px(t)}" y1="${py(0)}" x2="${px(t)}" y2="${py(1)}"/>` +
        `<line class="grid" x1="${px(0)}" y1="${py(t)}" x2="${px(1)}" y2="${py(t)}"/>` +
        `<text class="tick" x="${px(t)}" y="${(M.top + S + 14).toFixed(1)}" text-anchor="middle">${t}</text>` +
        `<text class="tick" x="${M.left - 6}" y="${(Number(py(t)) + 4).toFixed(1)}" text-anchor="end">${t}</text>`,
    )
    .join("");
  return (
    grid +
    `<rect class="frame" x="${M.left}" y="${M.top}" width="${S}" height="${S}"/>` +
    `<text class="axis" x="${px(0.5)}" y="${H - 6}" text-anchor="middle">${xLabel}</text>` +
    `<text class="axis" transform="translate(12 ${py(0.5)}) rotate(-90)" text-anchor="middle">${yLabel}</text>`
  );
}

/**
 * Reliability diagram: one point per non-empty band at (mean confidence, agreement). `stage` is
 * "before" for the model's own confidences, "after" for the same answers through a calibration.
 */
function reliabilitySvg(r: TypeReport, bandsIn: BandReport[] = r.bands, stage: "before" | "after" = "before"): string {
  const bars = bandsIn
    .filter((b) => b.n > 0 && b.agreement !== null)
    .map((b) => {
      const h = (b.agreement as number) * S;
      return `<rect class="bar" x="${px(b.lo)}" y="${py(b.agreement as number)}" width="${((b.hi - b.lo) * S).toFixed(1)}" height="${h.toFixed(1)}"/>`;
    })
    .join("");
  const points = bandsIn
    .filter((b) => b.n > 0 && b.agreement !== null && b.mean_confidence !== null)
    .map(
      (b) =>
        `<circle class="point" cx="${px(b.mean_confidence as number)}" cy="${py(b.agreement as number)}" r="${Math.min(9, 3 + Math.log10(b.n + 1) * 1.5).toFixed(1)}">` +
        `<title>${escapeHtml(b.band)}: ${b.n} answers, mean confidence ${num(b.mean_confidence)}, agreement ${pct(b.agreement)}</title></circle>`,
    )
    .join("");
  return (
    `<svg class="reliability ${stage}" data-stage="${stage}" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="reliability diagram ${stage === "after" ? "after calibration " : ""}for ${escapeHtml(r.type)}">` +
    axes(stage === "after" ? "calibrated confidence" : "model confidence", "agreement with host") +
    bars +
    `<line class="diagonal" x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(1)}"/>` +
    points +
    `</svg>`
  );
}

/** Coverage and agreement against the min_confidence threshold, with the target and the pick. */
function coverageSvg(r: TypeReport, target: number): string {
  const cov = r.thresholds.map((p) => `${px(p.t)},${py(p.coverage ?? 0)}`).join(" ");
  const agr = r.thresholds
    .filter((p) => p.agreement !== null)
    .map((p) => `${px(p.t)},${py(p.agreement as number)}`)
    .join(" ");
  const rec = r.recommended
    ? `<line class="pick" x1="${px(r.recommended.threshold)}" y1="${py(0)}" x2="${px(r.recommended.threshold)}" y2="${py(1)}"><title>lowest threshold reaching the target: ${r.recommended.threshold.toFixed(2)}</title></line>`
    : "";
  return (
    `<svg class="coverage-curve" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="coverage and agreement by threshold for ${escapeHtml(r.type)}">` +
    axes("min_confidence threshold", "fraction") +
    `<line class="target" x1="${px(0)}" y1="${py(target)}" x2="${px(1)}" y2="${py(target)}"><title>target ${pct(target)}</title></line>` +
    rec +
    `<polyline class="coverage" points="${cov}"><title>coverage</title></polyline>` +
    (agr ? `<polyline class="agreement" points="${agr}"><title>agreement</title></polyline>` : "") +
    `</svg>`
  );
}

/** Where a pair's cell is shown (the web view's cell page); without it, keys are plain text. */
export type CellLink = (run: string, task: string, key: string | null) => string;

function disagreements(r: TypeReport, link?: CellLink): string {
  const d = r.disagreements;
  if (!d || d.total === 0) return "";
  const keyCell = (x: (typeof d.listed)[number]) => {
    const text = escapeHtml(x.key ?? "–");
    return link ? `<a href="${escapeHtml(link(x.run, x.task, x.key))}">${text}</a>` : text;
  };
  const rows = d.listed
    .map(
      (x) =>
        `<tr><td>${escapeHtml(x.host_label)}</td><td>${escapeHtml(x.model_label)}</td><td>${x.confidence.toFixed(3)}</td><td>${escapeHtml(x.run)}</td><td>${keyCell(x)}</td></tr>`,
    )
    .join("");
  return `<table class="disagreements"><caption>${d.total} disagreeing pair(s)${d.total > d.listed.length ? `, first ${d.listed.length} listed` : ""}</caption><tr><th>host</th><th>model</th><th>confidence</th><th>run</th><th>key</th></tr>${rows}</table>`;
}

/** Whether a type's section marks any figure with "*" (fewer than SMALL_SAMPLE pairs behind it). */
function sectionStarred(r: TypeReport): boolean {
  return (r.agreement.small_sample && r.answered > 0) || !!r.recommended?.small_sample || r.bands.some((b) => b.small_sample && b.n > 0);
}

function summary(report: HarvestReport, sections: TypeReport[]): string {
  const [head = [], ...rows] = summaryRows(report);
  const lines = report.types.flatMap((t) => (t.config_line ? [`<code>${escapeHtml(t.config_line)}</code>`] : []));
  // The footnote explains the star: shown only when a figure of the page has one.
  const starred = rows.some((r) => r.some((c) => c.includes("*"))) || sections.some(sectionStarred);
  return `<table class="summary"><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("")}</table>
${starred ? `<p class="meta footnote">* fewer than 30 pairs behind this figure.</p>` : ""}${lines.length > 0 ? `<p>To turn a type on, paste its line into [decisions.types]:<br>${lines.join("<br>")}</p>` : ""}`;
}

function section(r: TypeReport, target: number, link?: CellLink): string {
  const title = r.type === "(overall)" ? "Overall" : r.type;
  const reasons = Object.entries(r.skipped.by_reason)
    .map(([k, v]) => `${escapeHtml(k)} ${v}`)
    .join(", ");
  const rec = r.recommended
    ? `min_confidence <b>${r.recommended.threshold.toFixed(2)}</b> reaches ${pct(target)}: the model decides ${pct(r.recommended.coverage)} (${r.recommended.covered} of ${r.answered}) at ${pct(r.recommended.agreement)} agreement${r.recommended.small_sample ? "*" : ""}`
    : `no threshold reaches ${pct(target)} agreement`;
  const bandRows = r.bands
    .map(
      (b) =>
        `<tr><td>${escapeHtml(b.band)}</td><td>${b.n}</td><td>${b.agree}</td><td>${pct(b.agreement)}${b.small_sample && b.n > 0 ? "*" : ""}</td><td>${num(b.mean_confidence)}</td></tr>`,
    )
    .join("");
  const c = r.confusion;
  const confusion = !c
    ? ""
    : `<table class="confusion"><tr><th>host \\ model</th>${c.model_labels.map((m) => `<th>${escapeHtml(m)}</th>`).join("")}</tr>` +
      c.host_labels
        .map(
          (h, i) =>
            `<tr><th>${escapeHtml(h)}</th>${itemAt(c.counts, i)
              .map((n, j) => `<td class="${c.model_labels[j] === h ? "diag" : ""}">${n}</td>`)
              .join("")}</tr>`,
        )
        .join("") +
      `</table>`;
  return `<section class="type" data-type="${escapeHtml(r.type)}">
<h2>${escapeHtml(title)}</h2>
<p class="meta">${escapeHtml(r.kinds.join("/") || "–")} · ${escapeHtml(r.models.map((m) => m.model).join(", ") || "no model")}</p>
<p>pairs ${r.pairs} · answered ${r.answered} · skipped ${r.skipped.total}${reasons ? ` (${reasons})` : ""} · abstained ${r.abstained.total}<br>
agreement <b>${pct(r.agreement.rate)}</b> (${r.agreement.agree}/${r.answered})${r.agreement.small_sample && r.answered > 0 ? "*" : ""} · ECE ${num(r.ece)} · Brier ${num(r.brier)}<br>${rec}</p>
<div class="charts"><figure>${reliabilitySvg(r)}<figcaption>Reliability: each point is a confidence band (mean confidence, observed agreement); the diagonal is perfect calibration.</figcaption></figure>
${r.calibration && r.calibration.calibrated > 0 ? `<figure>${reliabilitySvg(r, r.calibration.bands, "after")}<figcaption>After calibration (${escapeHtml(r.calibration.method)} ${escapeHtml(r.calibration.id)}): the same answers, their confidence mapped.</figcaption></figure>\n` : ""}<figure>${coverageSvg(r, target)}<figcaption><span class="k cov"></span>coverage <span class="k agr"></span>agreement <span class="k tgt"></span>target${r.recommended ? ` <span class="k pk"></span>pick` : ""}</figcaption></figure></div>
${r.reviewed ? `<p class="reviewed">${escapeHtml(reviewedSentence(r.reviewed))}</p>` : ""}${r.cost && r.cost.models.length > 0 ? `<p class="savings">${escapeHtml(savingsSentence(r.cost.savings))}</p>` : ""}
${r.score ? `<p class="score">levels: mean absolute distance ${num(r.score.mean_abs_level_distance)} · quadratic-weighted kappa ${num(r.score.quadratic_kappa)}</p>` : ""}${r.calibration ? `<p class="calibration">${escapeHtml(calibrationSentence(r.calibration, target))}</p>` : ""}${r.audit ? `<p class="audit${r.audit.drift ? " drift" : ""}">${escapeHtml(auditSentence(r.audit))}</p>` : ""}
${disagreements(r, link)}
<div class="tables"><table class="bands"><tr><th>confidence</th><th>answers</th><th>agree</th><th>agreement</th><th>mean conf</th></tr>${bandRows}</table>
${confusion}</div>
</section>`;
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1000px;color:#1d232b;padding:0 16px}
h1{font-size:20px}h2{font-size:17px;margin:0 0 4px;font-family:ui-monospace,Menlo,monospace}
section{border-top:1px solid #d5dae1;padding:16px 0}.meta{color:#5b6675;margin:0}
.charts{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0}figcaption{font-size:12px;color:#5b6675;max-width:330px}
table{border-collapse:collapse;margin:8px 16px 8px 0;font-variant-numeric:tabular-nums}td,th{border:1px solid #d5dae1;padding:2px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}.tables{display:flex;flex-wrap:wrap;align-items:flex-start}td.diag{background:#e3f1e6}
.grid{stroke:#eef0f3}.frame{fill:none;stroke:#9aa4b1}.tick{font-size:10px;fill:#5b6675}.axis{font-size:11px;fill:#1d232b}
.bar{fill:#bcd3f0;opacity:.6}.diagonal{stroke:#8a94a3;stroke-dasharray:4 3}.point{fill:#1f5fbf;stroke:#fff}
.coverage{fill:none;stroke:#1f5fbf;stroke-width:2}.agreement{fill:none;stroke:#2d8a46;stroke-width:2}
.target{stroke:#c0392b;stroke-dasharray:5 3}.pick{stroke:#e08e0b;stroke-width:1.5}
.k{display:inline-block;width:14px;height:3px;vertical-align:middle;margin:0 4px 0 8px}.cov{background:#1f5fbf}.agr{background:#2d8a46}.tgt{background:#c0392b}.pk{background:#e08e0b}
.warn{color:#9a5b00}.drift{color:#b03a2e;font-weight:600}`;

/**
 * The harvest report as one self-contained HTML page with its diagrams (no scripts, no outside
 * resources). With `cellLink` (the web view), each listed disagreement's key links to its cell.
 */
export function renderHtml(report: HarvestReport, cellLink?: CellLink): string {
  const name = report.lab ?? report.file;
  const shown = report.types.length !== 1 ? [...report.types, report.overall] : report.types;
  const sections = shown.map((t) => section(t, report.target, cellLink));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>switchyard lab harvest: ${escapeHtml(name)}</title><style>${CSS}</style></head>
<body><h1>Lab harvest: ${escapeHtml(name)}</h1>
<p>${report.overall.pairs} pairs in ${report.types.length} judgement type(s), ${report.lines} lines read; target agreement ${pct(report.target)}. Agreement means the model's label equals the host's; refused and unlabelled answers count as disagreement and are never covered by a threshold (see docs/lab.md).</p>
${report.warnings.map((w) => `<p class="warn">warning: ${escapeHtml(w)}</p>`).join("\n")}
${summary(report, shown)}
${sections.join("\n")}
</body></html>
`;
}
