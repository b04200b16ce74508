// `switchyard logs RUN TASK[KEY] [--attempt N] [--round N [--reviewer]] [-f]`: prints
// the log (stdout and stderr) of one instance's attempt, the latest by default; for a revise loop,
// the log of one round's body (or reviewer), the latest round by default; -f keeps printing what
// is appended until the attempt is over. Reads only.
//
// A log sits beside the attempt's workspace, where the command or agent could replace it with a
// symbolic link (to /etc/passwd, say): it is read as an untrusted file — opened without following
// a link, only if it is a regular file in the run's own folder, and read through that one
// descriptor, so nothing swapped in afterwards is read either. (readUntrustedFile does not fit a
// log: a log is printed byte for byte, UTF-8 or not, it may be larger than any output limit, and
// -f reads on from where it was.)

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Command } from "commander";
import { nearestName } from "../lang/diagnostic.js";
import { keyDirName } from "../run/engine/index.js";
import type { Store } from "../run/index.js";
import { CommandFailed, UsageError } from "./common.js";
import { findRun, noRuns, openForReading } from "./run-lookup.js";
import { STORE_HELP } from "./store-option.js";

const POLL_MS = 200;

/** `task`, or `task[key]` (the key may itself hold brackets: everything up to the last `]`). */
function parseInstance(spec: string): { task: string; key: string | null } {
  const open = spec.indexOf("[");
  if (open < 0) return { task: spec, key: null };
  if (!spec.endsWith("]"))
    throw new UsageError("usage", `cannot read the instance ${JSON.stringify(spec)}`, {
      hint: "write TASK for an unmapped task, or TASK[KEY] for one element, e.g. review[T7] (quote it in the shell)",
    });
  return { task: spec.slice(0, open), key: spec.slice(open + 1, -1) };
}

/** An attempt's files are named from this: `STEM.log`, and for a revise round `STEM-rN-body.log`. */
function attemptStem(store: Store, run: string, task: string, key: string | null, attempt: number): string {
  const base = join(store.runDir(run), "work", task);
  return key !== null ? join(base, `${keyDirName(key)}.a${attempt}`) : join(base, `a${attempt}`);
}

/** The rounds of a revise attempt whose body left a log (`STEM-rN-body.log`), in order. */
function roundsWithLogs(stem: string): number[] {
  const prefix = `${basename(stem)}-r`;
  const suffix = "-body.log";
  let names: string[];
  try {
    names = readdirSync(dirname(stem));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith(suffix))
    .map((n) => n.slice(prefix.length, -suffix.length))
    .filter((r) => /^[1-9]\d*$/.test(r))
    .map(Number)
    .sort((x, y) => x - y);
}

/**
 * Opens a log as an untrusted file: not through a symbolic link (of the file, or of its folder in
 * place of the run's `work/TASK`), only a regular file. Returns its descriptor.
 */
function openLog(path: string, runDir: string, task: string, what: string): number {
  const refuse = (why: string) =>
    new CommandFailed(
      "failed",
      `the log of ${what} ${why}, not the log the engine wrote; it is not printed (something in that attempt replaced it)`,
    );
  let realFolder: string;
  try {
    realFolder = realpathSync(dirname(path));
  } catch {
    throw refuse("cannot be reached");
  }
  if (realFolder !== join(realpathSync(runDir), "work", task)) throw refuse(`is in a folder that leads to ${realFolder}`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      let target = "";
      try {
        target = ` (to ${readlinkSync(path)})`;
      } catch {
        // gone meanwhile: said without its target
      }
      throw refuse(`is a symbolic link${target}`);
    }
    throw refuse(`cannot be opened (${code})`);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw refuse("is not a regular file");
  }
  return fd;
}

/** Adds `switchyard logs`: prints the log of one instance's attempt (or of one round of a revise loop). */
// eslint-disable-next-line max-lines-per-function -- not split yet: `logs` and its options; the action is to move into a named function
export function register(program: Command): void {
  program
    .command("logs")
    .description("print the log of one instance's attempt (the latest by default; for a revise loop, of one round)")
    .argument("<run>", "the run id (or a unique prefix), or `latest`")
    .argument("<instance>", "TASK for an unmapped task, TASK[KEY] for one element")
    .option("--attempt <n>", "which attempt (1, 2, ...)")
    .option("--round <n>", "a revise loop: which round's body log (the latest by default)")
    .option("--reviewer", "a revise loop: the reviewer's log of that round, not the body's")
    .option("-f, --follow", "keep printing what the attempt writes until it ends")
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
  switchyard logs latest 'fix[T7]' --round 2 --reviewer`,
    )
    .action(
      async (id: string, spec: string, flags: LogFlags & { attempt?: string; follow?: boolean; stateDir?: string; store?: string }) => {
        const store = openForReading(flags.stateDir, flags.store);
        if (!store) throw noRuns(flags.stateDir);
        try {
          const run = findRun(store, id);
          const { task, key } = parseInstance(spec);
          const tasks = store.tasks(run);
          const t = tasks.find((x) => x.task === task);
          if (!t) {
            const near = nearestName(
              task,
              tasks.map((x) => x.task),
            );
            throw new UsageError("usage", `run ${run} has no task ${task}`, {
              hint: near ? `did you mean ${near}?` : `tasks: ${tasks.map((x) => x.task).join(", ")}`,
            });
          }
          if (t.mapped && key === null)
            throw new UsageError("usage", `${task} is mapped: say which element, e.g. ${task}[KEY]`, {
              hint: `keys: switchyard show ${run} --task ${task}`,
            });
          if (!t.mapped && key !== null) throw new UsageError("usage", `${task} is not mapped: write just ${task}`);
          const rows = store.instances(run, task);
          const inst = rows.find((r) => r.key === key);
          if (!inst) {
            const near = nearestName(
              key ?? "",
              rows.map((r) => r.key ?? ""),
            );
            throw new UsageError("usage", `${task} has no instance ${spec} in run ${run}`, {
              hint: near ? `did you mean ${task}[${near}]?` : "it may not have been reached yet",
            });
          }
          const attempt = flags.attempt === undefined ? inst.attempts : Number(flags.attempt);
          if (!Number.isSafeInteger(attempt) || attempt < 1 || attempt > Math.max(1, inst.attempts)) {
            if (inst.attempts === 0)
              throw new UsageError(
                "usage",
                `${spec} has no attempt: it is ${inst.status}${inst.label ? ` (${inst.label})` : ""} and never ran`,
              );
            throw new UsageError(
              "usage",
              `--attempt must be between 1 and ${inst.attempts} for ${spec}, got ${JSON.stringify(flags.attempt)}`,
            );
          }
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
        } finally {
          store.close();
        }
      },
    );
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

/** Whether anything is at `path`, a link to nothing included (it is refused when opened). */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
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
  if (rounds.length === 0) throw new UsageError("usage", `${spec} attempt ${attempt} has no round logs: no round of its body has started`);
  const listed = `rounds with logs: ${rounds.join(", ")}`;
  if (flags.round === undefined) {
    const latest = rounds[rounds.length - 1]!;
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
