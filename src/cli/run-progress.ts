// Live output of a run (R-30): on a terminal, per-task counts and a bar for mapped tasks,
// redrawn in place at most every 100 ms; elsewhere one plain line per event; with --json, one
// JSON object per line. At the end, a summary table and the run id.

import type { RunEvent, RunOutcome, TaskProgress } from "../run/index.js";
import { forPeople } from "./words.js";

export type ProgressMode = "tty" | "plain" | "json";

export function progressMode(json: boolean | undefined): ProgressMode {
  if (json) return "json";
  return process.stdout.isTTY ? "tty" : "plain";
}

const REDRAW_MS = 100;

export class Progress {
  private lines = 0;
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  constructor(
    private readonly mode: ProgressMode,
    private readonly snapshot: () => TaskProgress[],
    private readonly out: NodeJS.WriteStream = process.stdout,
  ) {}

  event(e: RunEvent): void {
    if (this.mode === "json") {
      this.out.write(JSON.stringify({ run: e.run, seq: e.seq, time: e.time, type: e.type, task: e.task, key: e.key, payload: e.payload }) + "\n");
    } else if (this.mode === "plain") {
      this.out.write(plainLine(e) + "\n");
    } else {
      const now = Date.now();
      if (now - this.last >= REDRAW_MS) this.redraw();
      else if (!this.timer) this.timer = setTimeout(() => this.redraw(), REDRAW_MS - (now - this.last));
    }
  }

  private redraw(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.last = Date.now();
    const rows = progressRows(this.snapshot());
    let text = this.lines > 0 ? `\x1b[${this.lines}F` : "";
    for (const r of rows) text += `\x1b[2K${r}\n`;
    this.lines = rows.length;
    this.out.write(text);
  }

  /** `honest`: the decisions, fallbacks, retries, cost and slowest instances (run-summary.ts). */
  finish(outcome: RunOutcome, tasks: TaskProgress[], honest?: { lines: string[]; json: object }): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.mode === "tty") this.redraw();
    if (this.mode === "json") {
      this.out.write(JSON.stringify({ type: "summary", run: outcome.run, status: outcome.status, reason: outcome.reason ?? null, tasks: summaryObject(tasks), ...honest?.json }) + "\n");
      return;
    }
    this.out.write("\n" + summaryTable(tasks) + "\n");
    const savings = savingsLine(tasks);
    if (savings) this.out.write(savings + "\n");
    for (const l of honest?.lines ?? []) this.out.write(l + "\n");
    this.out.write(`run ${outcome.run}: ${outcome.status}${outcome.reason ? ` (${forPeople(outcome.reason)})` : ""}\n`);
  }
}

/** One event as a line of text (plain progress, `show --follow`). */
export function plainLine(e: RunEvent): string {
  const where = e.task ? (e.key !== null ? `${e.task}[${e.key}]` : e.task) : "";
  const p = e.payload as Record<string, unknown>;
  let detail = "";
  switch (e.type) {
    case "instance_finished":
      detail = String(p.status) + (p.error ? `: ${p.error}` : "");
      break;
    case "instance_retried":
      detail = `attempt ${p.attempt} failed, retrying in ${p.delay_ms} ms: ${p.error}`;
      break;
    case "gate_closed":
      detail = `not_taken${p.label ? ` (${p.label})` : ""}`;
      break;
    case "decision_recorded":
      detail = Object.entries(p.record as Record<string, { label: string }>).map(([q, d]) => `${q}=${d.label}`).join(" ");
      break;
    case "fold_settled":
    case "task_settled":
    case "run_finished":
      detail = String(p.status);
      break;
    case "task_expanded":
      detail = `${p.count} elements`;
      break;
    case "task_failed":
    case "run_stopped":
    case "run_cancelled":
      detail = String(p.error ?? p.reason);
      break;
    case "instance_started":
    case "instance_interrupted":
      detail = `attempt ${p.attempt}`;
      break;
    case "revise_round":
      detail = `round ${p.round}: ${p.verdict}`;
      break;
    case "plan_admitted":
      detail = String((p.plan as { playbook: string }).playbook);
      break;
    case "instance_reset":
      detail = `cleared (was ${(p.previous as { status: string }).status})`;
      break;
    case "rerun_requested":
      detail = `${(p.tasks as string[]).join(", ")}: ${p.reset} instances cleared`;
      break;
    default:
      break;
  }
  return `${e.time.slice(11, 23)} ${e.type.padEnd(20)} ${where}${detail ? `  ${forPeople(detail)}` : ""}`;
}

function bar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round((done / total) * width) : width;
  return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
}

export function progressRows(tasks: TaskProgress[]): string[] {
  const w = Math.max(4, ...tasks.map((t) => t.task.length));
  return tasks.map((t) => {
    const c = t.counts;
    const done = c.passed + c.failed + c.not_taken + c.blocked;
    const head = `${t.task.padEnd(w)} ${t.status.padEnd(9)}`;
    const counts = `passed ${c.passed}  failed ${c.failed}  not_taken ${c.not_taken}  blocked ${c.blocked}  running ${c.running}`;
    if (t.mapped && t.total !== null) return `${head} ${bar(done, t.total)} ${String(done).padStart(5)}/${t.total}  ${counts}`;
    return `${head} ${counts}`;
  });
}

export function summaryObject(tasks: TaskProgress[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of tasks) out[t.task] = { kind: t.kind, status: t.status, mapped: t.mapped, total: t.total, ...t.counts };
  return out;
}

export function summaryTable(tasks: TaskProgress[]): string {
  const header = ["task", "kind", "status", "total", "passed", "failed", "not_taken", "blocked"];
  const rows = tasks.map((t) => [
    t.task,
    t.kind,
    t.status,
    String(t.mapped ? (t.total ?? 0) : 1),
    String(t.counts.passed),
    String(t.counts.failed),
    String(t.counts.not_taken),
    String(t.counts.blocked),
  ]);
  return table(header, rows);
}

/**
 * What the decisions bought: agent turns taken and not taken, and how many route answers gated
 * them. Agent turns are where the money goes, so this is the line a person looks for.
 */
export function savingsLine(tasks: TaskProgress[]): string | null {
  let taken = 0;
  let notTaken = 0;
  let answers = 0;
  for (const t of tasks) {
    if (t.kind === "agent") {
      taken += t.counts.passed + t.counts.failed;
      notTaken += t.counts.not_taken;
    } else if (t.kind === "route") answers += t.counts.passed;
  }
  if (answers === 0 || taken + notTaken === 0) return null;
  return `agent turns: ${taken} taken, ${notTaken} not taken, after ${answers} route answer${answers === 1 ? "" : "s"}`;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i >= 3 && /^\d/.test(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
