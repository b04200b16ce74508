// Labels from people (docs/lab.md): `lab export` writes the elements to label — the question, the
// state's digest and where it was asked, the host's and the model's answers — as CSV or JSONL,
// with an empty `label` column; `lab import` reads the filled-in file back and appends one
// `reviewed` pair per labelled element, which harvest measures the host and the model against.

import { appendFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { readFile } from "node:fs/promises";
import type { ShadowPair } from "../decide/pair.js";
import { modelLabel } from "./harvest.js";
import { pairFilter, pairKind, pairModel, type PairFilters } from "./pair-filter.js";
import { pairLine } from "./pair-line.js";
import { scanPairs } from "./pairs-reader.js";
import { LabError } from "./store.js";
import { isPlainObject, UNCERTAIN } from "../shared/primitives.js";

/** The columns of an export, in order; people fill in `label` (and may fill in `by`). */
export const EXPORT_COLUMNS = [
  "element",
  "type",
  "question",
  "labels",
  "run",
  "task",
  "key",
  "state_digest",
  "host_label",
  "model",
  "model_label",
  "confidence",
  "label",
  "by",
] as const;

/** One row of an export. */
export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string>;

/** The element a pair is about, as a short stable id: the same question about the same state. */
export function elementId(pair: ShadowPair): string {
  const text = JSON.stringify([pair.type, pair.task, pair.key, pair.question.id, pair.state_digest]);
  return "el-" + createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The rows to label: one per element of the shadow pairs (only disagreements with `disagreements`). */
export async function exportRows(
  file: string,
  options: PairFilters & { disagreements?: boolean },
): Promise<{ rows: ExportRow[]; warnings: string[] }> {
  const selection = pairFilter(options);
  const seen = new Set<string>();
  const rows: ExportRow[] = [];
  const scan = await scanPairs(file, (pair) => {
    if (pairKind(pair) !== "shadow" || !selection.keep(pair) || !pair.model) return;
    const label = modelLabel(pair);
    if (options.disagreements && label === pair.host_label) return;
    const element = elementId(pair);
    if (seen.has(element)) return;
    seen.add(element);
    rows.push({
      element,
      type: pair.type,
      question: pair.question.id,
      labels: pair.question.labels.join("|"),
      run: pair.run,
      task: pair.task,
      key: pair.key ?? "",
      state_digest: pair.state_digest,
      host_label: pair.host_label,
      model: pairModel(pair),
      model_label: label ?? UNCERTAIN,
      confidence: String(pair.model.confidence),
      label: "",
      by: "",
    });
  });
  return { rows, warnings: scan.warnings };
}

/** A field as CSV writes it: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The rows as CSV (a header line, then one line per row) or as JSONL. */
export function formatRows(rows: ExportRow[], format: "csv" | "jsonl"): string {
  if (format === "jsonl") return rows.map((r) => JSON.stringify(r) + "\n").join("");
  const lines = [EXPORT_COLUMNS.join(","), ...rows.map((r) => EXPORT_COLUMNS.map((c) => csvField(r[c])).join(","))];
  return lines.join("\r\n") + "\r\n";
}

/** CSV records (RFC 4180: quoted fields may hold commas, quotes and line breaks), each with its first line number. */
export function parseCsv(text: string): Array<{ line: number; fields: string[] }> {
  const records: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (ch === '"') quoted = false;
      else field += ch;
      if (ch === "\n") line++;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") (fields.push(field), (field = ""));
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      fields.push(field);
      if (fields.length > 1 || fields[0] !== "") records.push({ line: start, fields });
      fields = [];
      field = "";
      start = ++line;
    } else field += ch;
  }
  if (field !== "" || fields.length > 0) records.push({ line: start, fields: [...fields, field] });
  return records;
}

/** The labelled rows of a filled-in export: element, label and who, with the line each came from. */
async function labelledRows(
  labelsFile: string,
): Promise<{ labelled: Array<{ line: number; element: string; label: string; by: string | null }>; unlabelled: number }> {
  const text = await readFile(labelsFile, "utf8");
  const problem = (line: number, what: string) =>
    new LabError("lab-labels-file", `${labelsFile}:${line}: ${what}`, { hint: "fill in the `label` column of a file `lab export` wrote" });
  const rows: Array<{ line: number; value: Record<string, unknown> }> = [];
  if (labelsFile.endsWith(".csv")) {
    const [head, ...records] = parseCsv(text);
    const columns = head?.fields ?? [];
    if (!columns.includes("element") || !columns.includes("label")) throw problem(1, "the header has no `element` and `label` columns");
    for (const r of records) rows.push({ line: r.line, value: Object.fromEntries(columns.map((c, i) => [c, r.fields[i] ?? ""])) });
  } else {
    text.split("\n").forEach((t, i) => {
      if (t.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(t);
      } catch {
        throw problem(i + 1, "not a JSON object");
      }
      if (!isPlainObject(value)) throw problem(i + 1, "not a JSON object");
      rows.push({ line: i + 1, value });
    });
  }
  const out: Array<{ line: number; element: string; label: string; by: string | null }> = [];
  let unlabelled = 0;
  for (const { line, value } of rows) {
    const label = typeof value.label === "string" ? value.label.trim() : "";
    if (label === "") {
      unlabelled++;
      continue;
    }
    if (typeof value.element !== "string" || value.element === "") throw problem(line, "a labelled row without its `element` id");
    const by = typeof value.by === "string" && value.by.trim() !== "" ? value.by.trim() : null;
    out.push({ line, element: value.element, label, by });
  }
  return { labelled: out, unlabelled };
}

/** What `lab import` did: the reviewed pairs it appended and the rows it skipped. */
export interface ImportResult {
  imported: number;
  unlabelled: number;
  warnings: string[];
}

/**
 * Reads the labels back into the lab: per labelled row, the element's first shadow pair in the
 * lab — of each model, when several candidates shadowed the type (H-6) — is copied as a `reviewed`
 * pair carrying the person's label, and appended to its pairs file.
 * A label that is not one of the question's, or an element the lab does not have, is an error
 * naming the line (nothing is appended then).
 */
export async function importLabels(pairsFile: string, labelsFile: string, now: Date = new Date()): Promise<ImportResult> {
  const { labelled: wanted, unlabelled } = await labelledRows(labelsFile);
  const elements = new Set(wanted.map((w) => w.element));
  // Element → its first shadow pair of each model, in file order.
  const found = new Map<string, ShadowPair[]>();
  const scan = await scanPairs(pairsFile, (pair) => {
    if (pairKind(pair) !== "shadow") return;
    const id = elementId(pair);
    if (!elements.has(id)) return;
    const pairs = found.get(id) ?? [];
    if (!pairs.some((p) => pairModel(p) === pairModel(pair))) pairs.push(pair);
    found.set(id, pairs);
  });
  const lines: string[] = [];
  for (const w of wanted) {
    const pairs = found.get(w.element) ?? [];
    const pair = pairs[0];
    if (!pair) throw new LabError("lab-labels-file", `${labelsFile}:${w.line}: element ${w.element} is not in ${pairsFile}`);
    if (!pair.question.labels.includes(w.label))
      throw new LabError(
        "lab-labels-file",
        `${labelsFile}:${w.line}: '${w.label}' is not a label of question ${pair.question.id} (${pair.question.labels.join(", ")})`,
      );
    for (const { kind: _kind, ...rest } of pairs)
      lines.push(
        pairLine({
          ...rest,
          kind: "reviewed",
          time: now.toISOString(),
          reviewed: { label: w.label, by: w.by, source: basename(labelsFile), time: now.toISOString() },
        }),
      );
  }
  // One write in append mode: whole lines, beside whatever shadows append meanwhile.
  if (lines.length > 0) appendFileSync(pairsFile, lines.join("\n") + "\n");
  return { imported: wanted.length, unlabelled, warnings: scan.warnings };
}
