// Live output of a run (R-30): on a terminal, a header with the elapsed time and cost
// and per-task counts with a bar for mapped tasks, redrawn in place at most every 100 ms, each
// line cut to the terminal's width (never wrapped), cleared while the \`tty\` host asks a
// question; elsewhere one plain line per event; with --json, one JSON object per line; with
// --quiet, nothing until the summary; with -v on a terminal, the event lines scroll above the
// live block. At the end, a summary table and the run id.
//
// Libraries, for what they do well: log-update redraws a block in place (erasing exactly the
// lines it drew, hiding the cursor, coping with a resized terminal); cli-truncate cuts a line to
// a display width, counting wide characters and keeping colour codes whole; picocolors colours
// text and decides whether to (NO_COLOR, FORCE_COLOR, --no-color, a non-TTY, TERM=dumb).

import type { createLogUpdate } from "log-update";
import pc from "picocolors";
import { dispatch, type EventHandlers, type RunEvent, type RunOutcome, type TaskProgress } from "../run/index.js";
import { formatElapsed } from "./run-lookup.js";
import { forPeople } from "./words.js";

/** How a run's progress is shown: redrawn on a terminal, plain lines, JSON lines, or nothing. */
export type ProgressMode = "tty" | "plain" | "json" | "quiet";

/** The progress mode for the flags and the terminal: --json, then --quiet, then a redrawn block on a TTY, else plain lines. */
export function progressMode(json: boolean | undefined, quiet?: boolean): ProgressMode {
  if (json) return "json";
  if (quiet) return "quiet";
  return process.stdout.isTTY ? "tty" : "plain";
}

/** What the live header shows besides the counts. */
export interface LiveFigures {
  run: string;
  elapsedMs: () => number;
  spentUsd: () => number;
}

type Colors = ReturnType<typeof pc.createColors>;

const REDRAW_MS = 100;

/** What draws the live block on a terminal (liveDrawing). */
export interface LiveDrawing {
  createLogUpdate: typeof createLogUpdate;
  truncate: (text: string, columns: number) => string;
}

/**
 * The packages that draw the live block, loaded for mode "tty" only: a pipe, `--json` and
 * `--quiet` never load them (about 20 modules). Loaded before the run starts, so no event waits.
 */
export async function liveDrawing(mode: ProgressMode): Promise<LiveDrawing | null> {
  if (mode !== "tty") return null;
  const [logUpdate, truncate] = await Promise.all([import("log-update"), import("cli-truncate")]);
  return { createLogUpdate: logUpdate.createLogUpdate, truncate: truncate.default };
}

/** A run's progress on stderr: a live block of per-task counts on a terminal, or one line per event; writes are batched. */
export class Progress {
  private timer: NodeJS.Timeout | null = null;
  /**
   * Event lines not yet written. Writing to a pipe is a system call that wakes the reader, and a
   * run of many short instances makes thousands of events a second: the lines of one turn of the
   * event loop go out as one write, in order, before anything else this writes.
   */
  private pending = "";
  private last = 0;
  private paused = false;
  private readonly colors: Colors;
  /** The redrawn block: there exactly in "tty" mode. */
  private readonly live: ReturnType<typeof createLogUpdate> | null;
  constructor(
    private readonly mode: ProgressMode,
    private readonly snapshot: () => TaskProgress[],
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly opts: { verbose?: boolean; color?: boolean; figures?: LiveFigures; drawing?: LiveDrawing | null } = {},
  ) {
    this.colors = pc.createColors(opts.color !== false && mode === "tty" && pc.isColorSupported);
    this.live = mode === "tty" && opts.drawing ? opts.drawing.createLogUpdate(out, { showCursor: false }) : null;
  }

  /** The terminal's width: what every live line is cut to. */
  private width(): number {
    return this.out.columns && this.out.columns > 0 ? this.out.columns : 80;
  }

  private fit(line: string): string {
    return this.opts.drawing ? this.opts.drawing.truncate(line, this.width()) : line;
  }

  event(e: RunEvent): void {
    if (this.mode === "json") {
      this.line(JSON.stringify({ run: e.run, seq: e.seq, time: e.time, type: e.type, task: e.task, key: e.key, payload: e.payload }));
    } else if (this.mode === "plain") {
      this.line(plainLine(e));
    } else if (this.mode === "tty") {
      if (this.opts.verbose && !this.paused) this.live?.persist(this.fit(plainLine(e)));
      const now = Date.now();
      if (now - this.last >= REDRAW_MS) this.redraw();
      else if (!this.timer) this.timer = setTimeout(() => this.redraw(), REDRAW_MS - (now - this.last));
    }
  }

  private line(text: string): void {
    if (this.pending === "") setImmediate(() => this.flush());
    this.pending += text + "\n";
  }

  /** Writes the event lines still held (before an exit that skips the event loop). */
  flush(): void {
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.out.write(text);
  }

  /** The \`tty\` host is about to ask a question at this terminal: clear the block and hold it. */
  pause(): void {
    if (this.mode !== "tty" || this.paused) return;
    this.paused = true;
    this.live?.clear();
  }

  /** The question was answered: draw again. */
  resume(): void {
    if (this.mode !== "tty" || !this.paused) return;
    this.paused = false;
    this.redraw();
  }

  private redraw(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.last = Date.now();
    if (this.paused) return;
    const c = this.colors;
    const f = this.opts.figures;
    const head = f
      ? [c.bold(`run ${f.run}`) + c.dim(`  ${formatElapsed(f.elapsedMs())}  $${f.spentUsd().toFixed(4)}  (Ctrl-C cancels; resume later)`)]
      : [];
    const rows = progressRows(this.snapshot(), c);
    this.live?.([...head, ...rows].map((l) => this.fit(l)).join("\n"));
  }

  finish(outcome: RunOutcome, tasks: TaskProgress[], honest?: { lines: string[]; json: object }): void {
    this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.mode === "tty") {
      this.paused = false;
      this.redraw();
      this.live?.done();
    }
    if (this.mode === "json") {
      this.out.write(
        JSON.stringify({
          type: "summary",
          run: outcome.run,
          status: outcome.status,
          reason: outcome.reason ?? null,
          tasks: summaryObject(tasks),
          ...honest?.json,
        }) + "\n",
      );
      return;
    }
    // On a terminal every line fits its width; elsewhere (a file, a pipe) lines are whole.
    const put = (l: string) => this.out.write((this.mode === "tty" ? this.fit(l) : l) + "\n");
    this.out.write("\n");
    for (const l of summaryTable(tasks).split("\n")) put(l);
    for (const l of honest?.lines ?? []) put(l.startsWith("WARNING") ? this.colors.yellow(this.colors.bold(l)) : l);
    const status = outcome.status === "passed" ? this.colors.green(outcome.status) : this.colors.red(outcome.status);
    put(`run ${outcome.run}: ${status}${outcome.reason ? ` (${forPeople(outcome.reason)})` : ""}`);
  }
}

/** What each event says after its type and place on a plain progress line (empty: nothing more). */
const DETAIL: EventHandlers<[], string> = {
  plan_admitted: (e) => e.payload.plan.playbook,
  run_resumed: () => "",
  task_expanded: (e) => `${e.payload.count} elements`,
  task_failed: (e) => e.payload.error,
  instance_started: (e) => `attempt ${e.payload.attempt}`,
  instance_finished: (e) =>
    e.payload.status +
    (e.payload.error ? `: ${e.payload.error}` : "") +
    (e.payload.runner_concurrency
      ? ` (no rate limit for a while: runner "${e.payload.runner_concurrency.runner}" ${e.payload.runner_concurrency.limit === null ? "is no longer limited" : `may run ${e.payload.runner_concurrency.limit} at once`})`
      : ""),
  instance_retried: (e) =>
    e.payload.rate_limited
      ? `attempt ${e.payload.attempt} rate limited (not counted as a failure; runner "${e.payload.rate_limited.runner}" now runs at most ${e.payload.rate_limited.concurrency} at once), retrying in ${e.payload.delay_ms} ms: ${e.payload.error}`
      : `attempt ${e.payload.attempt} failed, retrying in ${e.payload.delay_ms} ms: ${e.payload.error}`,
  instance_interrupted: (e) => `attempt ${e.payload.attempt}`,
  gate_closed: (e) => `not_taken${e.payload.label ? ` (${e.payload.label})` : ""}`,
  decision_recorded: (e) =>
    Object.entries(e.payload.record)
      .map(([q, d]) => `${q}=${d.label}`)
      .join(" "),
  review_requested: (e) =>
    `waiting for review: ${e.payload.questions.map((q) => (q.model ? `${q.id} (model: ${q.model.label}, confidence ${q.model.confidence.toFixed(2)})` : q.id)).join(", ")}`,
  review_answered: (e) =>
    `${e.payload.question}=${e.payload.label} (${e.payload.timeout ? "review timed out" : `answered by ${e.payload.by}`})`,
  run_waiting: (e) => e.payload.reason,
  revise_round: (e) => `round ${e.payload.round}: ${e.payload.verdict}`,
  fold_settled: (e) => e.payload.status,
  task_settled: (e) => e.payload.status,
  run_stopped: (e) => e.payload.reason,
  run_cancelled: (e) => e.payload.reason,
  run_finished: (e) => e.payload.status,
  rerun_requested: (e) => `${e.payload.tasks.join(", ")}: ${e.payload.reset} instances cleared`,
  instance_reset: (e) => `cleared (was ${e.payload.previous.status})`,
  task_reset: () => "",
  pack_refreshed: () => "",
};

/** One event as a line of text (plain progress, `show --follow`). */
export function plainLine(e: RunEvent): string {
  const where = e.task ? (e.key !== null ? `${e.task}[${e.key}]` : e.task) : "";
  const detail = dispatch(DETAIL, e);
  return `${e.time.slice(11, 23)} ${e.type.padEnd(20)} ${where}${detail ? `  ${forPeople(detail)}` : ""}`;
}

function bar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round((done / total) * width) : width;
  return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
}

const NO_COLORS = pc.createColors(false);

function progressRows(tasks: TaskProgress[], c: Colors = NO_COLORS): string[] {
  const w = Math.max(4, ...tasks.map((t) => t.task.length));
  const tint = (status: string, text: string) =>
    status === "passed"
      ? c.green(text)
      : status === "failed" || status === "blocked"
        ? c.red(text)
        : status === "running"
          ? c.cyan(text)
          : status === "not_taken"
            ? c.dim(text)
            : text;
  return tasks.map((t) => {
    const n = t.counts;
    const done = n.passed + n.failed + n.not_taken + n.blocked;
    const head = `${t.task.padEnd(w)} ${tint(t.status, t.status.padEnd(9))}`;
    const counts = `passed ${n.passed}  ${n.failed ? c.red(`failed ${n.failed}`) : `failed ${n.failed}`}  not_taken ${n.not_taken}  blocked ${n.blocked}  running ${n.running}`;
    if (t.mapped && t.total !== null) return `${head} ${bar(done, t.total)} ${String(done).padStart(5)}/${t.total}  ${counts}`;
    return `${head} ${counts}`;
  });
}

function summaryObject(tasks: TaskProgress[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of tasks) out[t.task] = { kind: t.kind, status: t.status, mapped: t.mapped, total: t.total, ...t.counts };
  return out;
}

function summaryTable(tasks: TaskProgress[]): string {
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

/** Rows as a text table with left-aligned columns as wide as their widest cell. */
export function table(header: string[], rows: string[][]): string {
  // A row shorter than the header has empty cells at its end.
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i >= 3 && /^\d/.test(c) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
