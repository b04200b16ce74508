// `switchyard logs RUN TASK[KEY] [--attempt N] [--round N [--reviewer]] [-f]`: prints
// the log (stdout and stderr) of one instance's attempt, the latest by default; for a revise loop,
// the log of one round's body (or reviewer), the latest round by default; -f keeps printing what
// is appended until the attempt is over. `logs RUN --failed [TASK]`: the latest attempt's log of
// every failed instance, each under a header. Reads only; logs are read as untrusted files
// (instance-log.ts).

import { closeSync, fstatSync, readSync } from "node:fs";
import type { Command } from "commander";
import type { Store } from "../run/index.js";
import type { InstanceRow } from "../run/store/index.js";
import { instanceOf, parseInstance, taskOf } from "./instance-spec.js";
import { UsageError } from "./common.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";
import { attemptLogPath, attemptStem, openLog, present, roundsWithLogs } from "./instance-log.js";

const POLL_MS = 200;

/** The flags of `logs`. */
interface LogsFlags extends LogFlags {
  attempt?: string;
  follow?: boolean;
  failed?: boolean;
  stateDir?: string;
  store?: string;
}

/** Adds `switchyard logs`: prints the log of one instance's attempt (or of one round of a revise loop). */
export function register(program: Command): void {
  program
    .command("logs")
    .description("print the log of one instance's attempt (the latest by default; for a revise loop, of one round)")
    .argument("<run>", "the run id (or a unique prefix), or `latest`")
    .argument("[instance]", "TASK for an unmapped task, TASK[KEY] for one element (with --failed: only this task's)")
    .option("--attempt <n>", "which attempt (1, 2, ...)")
    .option("--round <n>", "a revise loop: which round's body log (the latest by default)")
    .option("--reviewer", "a revise loop: the reviewer's log of that round, not the body's")
    .option("-f, --follow", "keep printing what the attempt writes until it ends")
    .option("--failed", "the latest attempt's log of every failed instance (of one task with TASK), each under a header")
    .option("--state-dir <dir>", "the state folder")
    .option("--store <url>", STORE_HELP)
    .addHelpText(
      "after",
      `
Examples:
  switchyard logs latest prepare
  switchyard logs latest 'review[T7]' --attempt 1
  switchyard logs latest 'deep[T3]' -f          # while it runs
  switchyard logs latest 'fix[T7]' --round 2    # a revise loop's round 2 (its body)
  switchyard logs latest 'fix[T7]' --round 2 --reviewer
  switchyard logs latest --failed               # every failed instance's log
  switchyard logs latest review --failed        # review's failed instances only`,
    )
    .action(logsAction);
}

async function logsAction(id: string, spec: string | undefined, flags: LogsFlags): Promise<void> {
  if (flags.failed && (flags.attempt !== undefined || flags.round !== undefined || flags.reviewer || flags.follow))
    throw new UsageError(
      "usage",
      "--failed prints each failed instance's latest attempt: it takes no --attempt, --round, --reviewer or -f",
    );
  if (!flags.failed && spec === undefined)
    throw new UsageError("usage", "say which instance: TASK, or TASK[KEY] for one element", {
      hint: "or --failed for the log of every failed instance",
    });
  const store = openForReading(flags.stateDir, flags.store);
  if (!store) throw noRuns(flags.stateDir);
  try {
    const run = findRun(store, id);
    if (flags.failed) printFailedLogs(store, run, spec);
    else if (spec !== undefined) await printInstanceLog(store, run, spec, flags);
  } finally {
    store.close();
  }
}

/** The attempt --attempt names (the latest by default), checked against the instance's attempts. */
function chosenAttempt(inst: InstanceRow, spec: string, flag: string | undefined): number {
  const attempt = flag === undefined ? inst.attempts : Number(flag);
  if (Number.isSafeInteger(attempt) && attempt >= 1 && attempt <= Math.max(1, inst.attempts)) return attempt;
  if (inst.attempts === 0)
    throw new UsageError("usage", `${spec} has no attempt: it is ${inst.status}${inst.label ? ` (${inst.label})` : ""} and never ran`);
  throw new UsageError("usage", `--attempt must be between 1 and ${inst.attempts} for ${spec}, got ${JSON.stringify(flag)}`);
}

/** `logs RUN TASK[KEY]`: one attempt's log (or one round's), followed with -f while it runs. */
async function printInstanceLog(store: Store, run: string, spec: string, flags: LogsFlags): Promise<void> {
  const { t, inst } = instanceOf(store, run, spec);
  const { task, key } = inst;
  const attempt = chosenAttempt(inst, spec, flags.attempt);
  const stem = attemptStem(store, run, task, key, attempt);
  const chosen = t.kind === "revise" ? roundLog(stem, spec, attempt, flags) : plainLog(stem, spec, attempt, t.kind, flags);
  if (chosen.note) process.stderr.write(chosen.note + "\n");
  if (!present(chosen.path))
    throw new UsageError("usage", `${spec} attempt ${attempt} has no log (${t.kind} tasks run in the engine and write none)`, {
      hint: `its output: switchyard show ${run} --task ${task}${key !== null ? ` --key ${key}` : ""}`,
    });
  const fd = openLog(chosen.path, store.runDir(run), task, `${spec} attempt ${attempt}${chosen.what}`);
  let offset = 0;
  const drain = () => {
    const size = fstatSync(fd).size;
    if (size <= offset) return;
    const buf = Buffer.alloc(size - offset);
    const n = readSync(fd, buf, 0, buf.length, offset);
    process.stdout.write(buf.subarray(0, n));
    offset += n;
  };
  try {
    await printLog(drain, flags.follow === true, () => {
      const now = store.instances(run, task).find((r) => r.key === key);
      return (
        now !== undefined &&
        now.attempts === attempt &&
        (now.status === "running" || now.status === "pending") &&
        store.run(run)?.status === "running"
      );
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * `logs RUN --failed [TASK]`: per failed instance (in the order of the run's tasks, then keys), a
 * header `==> TASK[KEY] attempt N: ERROR <==` and its latest attempt's log (for a revise loop, the
 * latest round's body), or a line saying it left none. Nothing failed: said on stderr, exit 0.
 */
function printFailedLogs(store: Store, run: string, only: string | undefined): void {
  const tasks = only !== undefined ? [taskOf(store, run, parseInstance(only).task)] : store.tasks(run);
  let printed = 0;
  for (const t of tasks) {
    for (const inst of store.instances(run, t.task).filter((i) => i.status === "failed")) {
      const spec = `${t.task}${inst.key !== null ? `[${inst.key}]` : ""}`;
      if (printed++ > 0) process.stdout.write("\n");
      process.stdout.write(`==> ${spec} attempt ${inst.attempts}: ${inst.error ?? "failed"} <==\n`);
      const path = attemptLogPath(store, run, t.task, inst.key, Math.max(1, inst.attempts), t.kind);
      if (inst.attempts === 0 || !present(path)) {
        process.stdout.write(`(no log: ${inst.attempts === 0 ? "it never ran" : `${t.kind} tasks run in the engine and write none`})\n`);
        continue;
      }
      const fd = openLog(path, store.runDir(run), t.task, `${spec} attempt ${inst.attempts}`);
      try {
        const buf = Buffer.alloc(fstatSync(fd).size);
        const n = readSync(fd, buf, 0, buf.length, 0);
        process.stdout.write(buf.subarray(0, n));
        if (n > 0 && buf[n - 1] !== 10) process.stdout.write("\n");
      } finally {
        closeSync(fd);
      }
    }
  }
  if (printed === 0) process.stderr.write(`run ${run} has no failed instance${only !== undefined ? ` of ${only}` : ""}\n`);
}

/** Prints what the log holds; with `follow`, then what is appended while `running()`. */
async function printLog(drain: () => void, follow: boolean, running: () => boolean): Promise<void> {
  drain();
  if (!follow) return;
  while (running()) {
    await new Promise((res) => setTimeout(res, POLL_MS));
    drain();
  }
  drain();
}

interface ChosenLog {
  path: string;
  /** After "attempt N" in messages: which round's log. */
  what: string;
  /** Said on stderr before the log. */
  note?: string;
}

interface LogFlags {
  round?: string;
  reviewer?: boolean;
}

function plainLog(stem: string, spec: string, attempt: number, kind: string, flags: LogFlags): ChosenLog {
  if (flags.round !== undefined || flags.reviewer)
    throw new UsageError("usage", `${flags.round !== undefined ? "--round" : "--reviewer"} is for revise loops; ${spec} is a ${kind}`);
  return { path: `${stem}.log`, what: "" };
}

/**
 * A revise loop's attempt has a log per round: its body's (`STEM-rN-body.log`) and, for a command
 * or agent reviewer, the reviewer's (`STEM-rN-review.log`). Without --round: the latest round's,
 * saying on stderr which rounds have logs.
 */
function roundLog(stem: string, spec: string, attempt: number, flags: LogFlags): ChosenLog {
  const rounds = roundsWithLogs(stem);
  const part = flags.reviewer ? "review" : "body";
  const whose = flags.reviewer ? "reviewer" : "body";
  const latest = rounds.at(-1);
  if (latest === undefined) throw new UsageError("usage", `${spec} attempt ${attempt} has no round logs: no round of its body has started`);
  const listed = `rounds with logs: ${rounds.join(", ")}`;
  if (flags.round === undefined) {
    return {
      ...chosenRound(stem, latest, part, spec, attempt, flags.reviewer === true),
      note: `${spec} attempt ${attempt}: round ${latest}'s ${whose} log (${listed}; choose one with --round N)`,
    };
  }
  const round = Number(flags.round);
  if (!Number.isSafeInteger(round) || !rounds.includes(round))
    throw new UsageError("usage", `${spec} attempt ${attempt} has no log for round ${JSON.stringify(flags.round)} (${listed})`);
  return chosenRound(stem, round, part, spec, attempt, flags.reviewer === true);
}

function chosenRound(stem: string, round: number, part: string, spec: string, attempt: number, reviewer: boolean): ChosenLog {
  const path = `${stem}-r${round}-${part}.log`;
  if (reviewer && !present(path))
    throw new UsageError(
      "usage",
      `${spec} attempt ${attempt}: round ${round}'s reviewer left no log (an evaluate reviewer runs in the engine and writes none; nor does a round the body failed)`,
    );
  return { path, what: `, round ${round}'s ${reviewer ? "reviewer" : "body"}` };
}
