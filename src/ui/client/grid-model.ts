// The grid's data in the browser: per mapped task, a status letter, a label and a confidence per
// key, loaded once (GET /api/runs/ID/grid) and then kept current by applying the run's events as
// they stream in — the same transitions the store's projection makes for an instance row.

import type { ApiEvent, GridDoc, QuestionAnswer } from "../api-types.js";
import { STATUS_LETTER, type StatusName } from "../api-types.js";
import { routeCell } from "../decisions.js";

/** One task's column of the grid: its name, kind (a route's questions), and per key a status letter, label(s), confidence(s) and a failed cell's code. */
export interface Column {
  name: string;
  kind: string;
  questions: string[];
  status: string[];
  label: Array<string | null>;
  confidence: Array<number | null>;
  answers: Array<QuestionAnswer[] | null>;
  code: Array<string | null>;
}

/** The grid's data: keys in rows, mapped tasks in columns, updated cell by cell as events arrive. */
export class GridModel {
  readonly keys: string[];
  readonly columns: Column[];
  private readonly index = new Map<string, number>();
  private readonly byName = new Map<string, Column>();
  lastSeq: number;

  constructor(doc: GridDoc) {
    this.keys = doc.keys.slice();
    this.keys.forEach((k, i) => this.index.set(k, i));
    this.columns = doc.tasks.map((t) => {
      const label = doc.label[t.name]!.slice();
      const confidence = doc.confidence[t.name]!.slice();
      const codes = doc.code[t.name] ?? {};
      return {
        name: t.name,
        kind: t.kind,
        questions: t.questions ?? [],
        status: Array.from(doc.status[t.name] ?? ""),
        label,
        confidence,
        answers: doc.answers[t.name]?.slice() ?? oneAnswer(t.questions, label, confidence),
        code: label.map((_, i) => codes[i] ?? null),
      };
    });
    for (const c of this.columns) this.byName.set(c.name, c);
    this.lastSeq = doc.last_seq;
  }

  column(name: string): Column | undefined {
    return this.byName.get(name);
  }

  private row(key: string): number {
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.keys.length;
      this.keys.push(key);
      this.index.set(key, i);
      for (const c of this.columns) {
        c.status.push("-");
        c.label.push(null);
        c.confidence.push(null);
        c.answers.push(null);
        c.code.push(null);
      }
    }
    return i;
  }

  /**
   * Applies events in order. Returns whether any touched a grid cell, and whether any concerns
   * the run or an unmapped task (the caller then reloads the run's header and task list).
   */
  apply(events: ApiEvent[]): { cells: boolean; run: boolean } {
    let cells = false;
    let run = false;
    for (const e of events) {
      if (e.seq <= this.lastSeq) continue;
      this.lastSeq = e.seq;
      const col = e.task === null ? undefined : this.byName.get(e.task);
      // Task-level events (expanded, failed, settled) have no key.
      if (!col || e.key === null) {
        run = true;
        continue;
      }
      const i = this.row(e.key);
      const p = e.payload;
      let letter: string | undefined;
      let label: string | null = null;
      let confidence: number | null = null;
      let answers: QuestionAnswer[] | null = null;
      let code: string | null = null;
      switch (e.type) {
        case "instance_started":
          letter = STATUS_LETTER.running;
          break;
        case "instance_finished":
          letter = STATUS_LETTER[p.status as StatusName];
          if (p.status === "failed" && typeof p.code === "string") code = p.code;
          break;
        case "instance_retried":
        case "instance_interrupted":
          letter = STATUS_LETTER.pending;
          break;
        case "gate_closed":
          letter = STATUS_LETTER.not_taken;
          label = typeof p.label === "string" ? p.label : null;
          break;
        case "decision_recorded": {
          letter = STATUS_LETTER.passed;
          ({ label, confidence, answers } = routeCell(p.record));
          break;
        }
      }
      if (letter === undefined) continue;
      col.status[i] = letter;
      col.label[i] = label;
      col.confidence[i] = confidence;
      col.answers[i] = answers;
      col.code[i] = code;
      cells = true;
    }
    return { cells, run };
  }
}

/** A one-question route's answers, from its labels and confidences (nulls for any other task). */
function oneAnswer(
  questions: string[] | undefined,
  label: Array<string | null>,
  confidence: Array<number | null>,
): Array<QuestionAnswer[] | null> {
  const question = questions?.length === 1 ? questions[0] : undefined;
  return label.map((l, i) => {
    const c = confidence[i];
    return question !== undefined && l !== null && c !== null && c !== undefined ? [{ question, label: l, confidence: c }] : null;
  });
}
