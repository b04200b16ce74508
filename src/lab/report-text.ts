// The harvest as plain text for a terminal: per judgement type, then overall, aligned tables.

import type { HarvestReport, ThresholdPoint, TypeReport } from "./harvest.js";

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
          const pad = " ".repeat(widths[i] - [...cell].length);
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
  out.push(`  ${r.kinds.join("/") || "–"} · ${models}`);
  const reasons = Object.entries(r.skipped.by_reason)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  out.push(
    `  pairs ${r.pairs} · answered ${r.answered} · skipped ${r.skipped.total}${reasons ? ` (${reasons})` : ""} · abstained ${r.abstained.total}` +
      (r.abstained.total > 0 ? ` (refused ${r.abstained.refused}, no label ${r.abstained.no_label})` : ""),
  );
  out.push(`  agreement ${pct(r.agreement.rate)} (${r.agreement.agree}/${r.answered}) · ECE ${fmt(r.ece)} · Brier ${fmt(r.brier)}`);
  if (r.recommended) {
    const rec = r.recommended;
    out.push(
      `  min_confidence for ${pct(target)} agreement: ${rec.threshold.toFixed(2)} — the model decides ${pct(rec.coverage)} (${rec.covered}/${r.answered}) at ${pct(rec.agreement)} agreement`,
    );
  } else {
    out.push(`  min_confidence for ${pct(target)} agreement: none — no threshold reaches it`);
  }
  if (r.answered === 0) return out;
  out.push("");
  out.push(
    ...table([
      ["confidence", "answers", "agree", "agreement", "mean conf"],
      ...r.bands.map((b) => [b.band, String(b.n), String(b.agree), pct(b.agreement), fmt(b.mean_confidence)]),
    ]),
  );
  out.push("");
  const shown: ThresholdPoint[] = r.thresholds.filter((p) => SHOWN.includes(p.t) || p.t === r.recommended?.threshold);
  out.push(
    ...table([
      ["threshold", "decides", "coverage", "agreement"],
      ...shown.map((p) => [p.t.toFixed(2) + (p.t === r.recommended?.threshold ? " *" : ""), String(p.covered), pct(p.coverage), pct(p.agreement)]),
    ]),
  );
  out.push("");
  const c = r.confusion;
  out.push("  confusion (rows: host label, columns: model label)");
  out.push(...table([["host \\ model", ...c.model_labels], ...c.host_labels.map((h, i) => [h, ...c.counts[i].map(String)])], "    "));
  return out;
}

export function renderText(report: HarvestReport): string {
  const out: string[] = [];
  out.push(`harvest of ${report.lab ?? report.file}: ${report.overall.pairs} pairs, ${report.types.length} judgement type(s), target ${pct(report.target)}`);
  for (const w of report.warnings) out.push(`warning: ${w}`);
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
