// Where an instance's attempt left its log, and reading it as an untrusted file: what `logs`
// prints and what the end-of-run summary quotes the end of.
//
// A log sits beside the attempt's workspace, where the command or agent could replace it with a
// symbolic link (to /etc/passwd, say): it is read as an untrusted file — opened without following
// a link, only if it is a regular file in the run's own folder, and read through that one
// descriptor, so nothing swapped in afterwards is read either. (readUntrustedFile does not fit a
// log: a log is printed byte for byte, UTF-8 or not, it may be larger than any output limit, and
// -f reads on from where it was.)

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { keyDirName } from "../run/engine/index.js";
import type { Store } from "../run/index.js";
import { CommandFailed } from "./common.js";
import { errnoCode } from "../shared/thrown.js";

/** An attempt's files are named from this: `STEM.log`, and for a revise round `STEM-rN-body.log`. */
export function attemptStem(store: Store, run: string, task: string, key: string | null, attempt: number): string {
  const base = join(store.runDir(run), "work", task);
  return key !== null ? join(base, `${keyDirName(key)}.a${attempt}`) : join(base, `a${attempt}`);
}

/** The rounds of a revise attempt whose body left a log (`STEM-rN-body.log`), in order. */
export function roundsWithLogs(stem: string): number[] {
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
export function openLog(path: string, runDir: string, task: string, what: string): number {
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
    const code = errnoCode(err);
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

/** Whether anything is at `path`, a link to nothing included (it is refused when opened). */
export function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** An attempt's log: its own, or for a revise loop its latest round's body log. */
export function attemptLogPath(store: Store, run: string, task: string, key: string | null, attempt: number, kind: string): string {
  const stem = attemptStem(store, run, task, key, attempt);
  const round = kind === "revise" ? roundsWithLogs(stem).at(-1) : undefined;
  return round !== undefined ? `${stem}-r${round}-body.log` : `${stem}.log`;
}

/** How much of a log's end is read for its last lines. */
const TAIL_BYTES = 8192;

/**
 * The last `n` non-empty lines of an attempt's log (for a revise loop, its latest round's body
 * log): undefined when it left none, or a note when the file is not the one the engine wrote.
 */
export function logTail(
  store: Store,
  run: string,
  task: string,
  key: string | null,
  attempt: number,
  kind: string,
  n: number,
): string[] | undefined {
  const path = attemptLogPath(store, run, task, key, attempt, kind);
  if (!present(path)) return undefined;
  let fd: number;
  try {
    fd = openLog(path, store.runDir(run), task, `${task}${key !== null ? `[${key}]` : ""} attempt ${attempt}`);
  } catch (err) {
    return [`(${err instanceof Error ? err.message : String(err)})`];
  }
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, TAIL_BYTES));
    const read = readSync(fd, buf, 0, buf.length, size - buf.length);
    const lines = buf
      .subarray(0, read)
      .toString("utf8")
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "");
    // The first line of a cut read may be a part of a line: dropped unless the file was read whole.
    if (size > buf.length) lines.shift();
    return lines.slice(-n);
  } finally {
    closeSync(fd);
  }
}
