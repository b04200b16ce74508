// The end of a failed run's summary: per failed task its code, the first failing keys, the last
// lines of the first one's log and the exact command to run next — so the summary (under -q too)
// says what went wrong and where to look, not only "failed". A task that failed before it had any
// instance (a list longer than its max_fanout) gets its own error, not "failed total 0".

import type { RunOutcome, Store, TaskProgress } from "../run/index.js";
import type { RunTally } from "./run-summary.js";
import type { InstanceRow, TaskRow } from "../run/store/index.js";
import { itemAt } from "../shared/checked-index.js";
import { logTail } from "./instance-log.js";
import { forPeople } from "./words.js";

/** How many failing keys a task's line names, and how many lines of the first one's log it quotes. */
export const FIRST_KEYS = 3;
const TAIL_LINES = 3;

/** One failed task as the summary's `--json` gives it (`failures`). */
export interface FailedTask {
  task: string;
  /** The code of the first failure (error[CODE]); per code, how many instances failed with it. */
  code: string;
  codes: Record<string, number>;
  /** Instances failed, and the task's instances in all (0 for a task that failed before any). */
  failed: number;
  total: number;
  /** The first failing keys, up to FIRST_KEYS (none for an unmapped task). */
  keys: string[];
  /** The first failure's message, without its code. */
  message: string;
  /** The last lines of the first failing instance's log, when it left one. */
  log_tail: string[];
  /** The commands to run next, exactly. */
  next: string[];
}

/** A word for the shell: as it is when it needs no quoting, else in single quotes. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `code: message` (how the engine records an error) split; an error without a code is `failed`. */
export function splitError(error: string | null, task?: string): { code: string; message: string } {
  let text = error ?? "";
  // A task's own error starts with its name ("small: over-max-fanout: …").
  if (task !== undefined && text.startsWith(`${task}: `)) text = text.slice(task.length + 2);
  const m = /^([a-z][a-z0-9-]*): ([\s\S]*)$/.exec(text);
  const message = (m?.[2] ?? text).replace(/ \(log: [^)]*\)$/, "");
  return { code: m?.[1] ?? "failed", message: message || "failed" };
}

/** The run's failed tasks, in the order of the plan: each with its code, first keys, log tail and next commands. */
export function failedTasks(store: Store, run: string): FailedTask[] {
  const out: FailedTask[] = [];
  for (const t of store.tasks(run)) {
    const failed = store.instances(run, t.task).filter((i) => i.status === "failed");
    if (failed.length > 0) out.push(instanceFailures(store, run, t, failed));
    else if (t.status === "failed" && t.error) out.push(taskFailure(run, t));
  }
  return out;
}

function instanceFailures(store: Store, run: string, t: TaskRow, failed: InstanceRow[]): FailedTask {
  const codes: Record<string, number> = {};
  for (const i of failed) {
    const { code } = splitError(i.error);
    codes[code] = (codes[code] ?? 0) + 1;
  }
  const first = itemAt(failed, 0);
  const { code, message } = splitError(first.error);
  const spec = `${t.task}${first.key !== null ? `[${first.key}]` : ""}`;
  const tail = first.attempts > 0 ? logTail(store, run, t.task, first.key, first.attempts, t.kind, TAIL_LINES) : undefined;
  const next = [`switchyard logs ${run} ${shellWord(spec)}`];
  if (t.mapped) next.push(`switchyard show ${run} --task ${t.task} --status failed`);
  return {
    task: t.task,
    code,
    codes,
    failed: failed.length,
    total: t.mapped ? (t.count ?? failed.length) : 1,
    keys: failed.flatMap((i) => (i.key !== null ? [i.key] : [])).slice(0, FIRST_KEYS),
    message,
    log_tail: tail ?? [],
    next,
  };
}

function taskFailure(run: string, t: TaskRow): FailedTask {
  const { code, message } = splitError(t.error, t.task);
  return {
    task: t.task,
    code,
    codes: { [code]: 1 },
    failed: 0,
    total: t.count ?? 0,
    keys: [],
    message,
    log_tail: [],
    next: [`switchyard show ${run} --task ${t.task}`],
  };
}

/** The summary's lines for the failed tasks (none when nothing failed). */
export function failureLines(failures: FailedTask[]): string[] {
  const out: string[] = [];
  for (const f of failures) {
    if (f.failed === 0) {
      out.push(`FAILED ${f.task}: error[${f.code}]: ${forPeople(f.message)}`);
    } else {
      const codes = Object.entries(f.codes)
        .map(([c, n]) => `${c} ×${n}`)
        .join(", ");
      const more = f.failed > f.keys.length && f.keys.length > 0 ? `, …` : "";
      const keys = f.keys.length > 0 ? ` (${f.keys.join(", ")}${more})` : "";
      out.push(`FAILED ${f.task}: ${f.failed} of ${f.total} failed${keys}: ${codes}`);
      const first = f.keys.length > 0 ? `${f.task}[${f.keys[0]}]` : f.task;
      out.push(`  ${first}: error[${f.code}]: ${forPeople(f.message)}`);
      if (f.log_tail.length > 0) {
        out.push(`  the end of its log:`);
        for (const l of f.log_tail) out.push(`    | ${l}`);
      }
    }
    for (const n of f.next) out.push(`  next: ${n}`);
  }
  return out;
}

/** The end-of-run summary: the tally's lines and JSON, then (unless the run passed) its failures. */
export function endSummary(
  tally: RunTally,
  store: Store,
  outcome: RunOutcome,
  spentUsd: number,
  tasks: TaskProgress[],
): { lines: string[]; json: object } {
  const failures = outcome.status === "passed" ? [] : failedTasks(store, outcome.run);
  return {
    lines: [...tally.lines(outcome.run, spentUsd, tasks), ...failureLines(failures)],
    json: { ...tally.json(spentUsd), failures },
  };
}
