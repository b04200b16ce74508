// Child processes for commands and agent runners (T-1, D-40): each runs detached in its own
// process group, so a timeout or a cancel kills the whole group (the shell and whatever it
// started), with stdout and stderr appended straight to the instance's log file.

import { spawn } from "node:child_process";
import { resolve as absolute } from "node:path";
import { open } from "node:fs/promises";
import type { GroupHooks } from "./process-groups.js";
import { signalGroup } from "./signal-group.js";

/** How a process ended: its exit code or signal, and whether it was stopped for its timeout. */
export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all (ENOENT, EACCES, ...). */
  spawnError?: NodeJS.ErrnoException;
  /** Whether `spec.outputFile` existed once it ended, when the runner checked (launcher shells). */
  outputExists?: boolean;
}

/** A process to run: its argv, folder, environment, its log and optional stdin and stdout files, and its timeout. */
export interface ProcessSpec {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The variables `env` adds to the base environment (what a launcher shell exports). */
  extraEnv?: Record<string, string>;
  logFile: string;
  /** A file whose contents become stdin; none means /dev/null. */
  stdinFile?: string;
  /** A file that receives stdout (created or truncated); none means the log. */
  stdoutFile?: string;
  /** The output file the caller reads next; a runner may report whether it exists (outputExists). */
  outputFile?: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Told the process group once it exists and once it is done (process-groups.ts). */
  groups?: GroupHooks;
}

const KILL_GRACE_MS = 1000;

function killGroup(pid: number, sig: NodeJS.Signals): void {
  signalGroup(pid, sig);
}

/** Runs a process in its own group, its output to the log, and kills the whole group at its timeout or abort. */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const logHandle = await open(spec.logFile, "a");
  const stdinHandle = spec.stdinFile ? await open(spec.stdinFile, "r") : null;
  const stdoutHandle = spec.stdoutFile ? await open(spec.stdoutFile, "w") : null;
  return new Promise((resolve) => {
    const log = logHandle.fd;
    const stdin = stdinHandle ? stdinHandle.fd : "ignore";
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let timer: NodeJS.Timeout | null = null;
    let grace: NodeJS.Timeout | null = null;
    const finish = (r: ProcessResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (grace) clearTimeout(grace);
      spec.signal.removeEventListener("abort", onAbort);
      if (child.pid !== undefined) spec.groups?.ended(child.pid);
      resolve(r);
    };
    const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      // PWD names the folder it runs in, as a shell's `cd` would set it: tools that take PWD for
      // their working folder (opencode does) would otherwise work in switchyard's own folder.
      env: { ...spec.env, PWD: absolute(spec.cwd) },
      stdio: [stdin, stdoutHandle ? stdoutHandle.fd : log, log],
      detached: true,
    });
    void logHandle.close();
    void stdinHandle?.close();
    void stdoutHandle?.close();
    if (child.pid !== undefined) spec.groups?.started(child.pid);
    const stop = () => {
      if (child.pid === undefined) return;
      killGroup(child.pid, "SIGTERM");
      grace = setTimeout(() => child.pid !== undefined && killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    child.on("error", (err: NodeJS.ErrnoException) => finish({ code: null, signal: null, timedOut, aborted, spawnError: err }));
    child.on("exit", (code, signal) => {
      // The group may still hold children of the shell; they belong to this instance only.
      if (child.pid !== undefined && (timedOut || aborted)) killGroup(child.pid, "SIGKILL");
      finish({ code, signal, timedOut, aborted });
    });
    if (spec.signal.aborted) onAbort();
    else spec.signal.addEventListener("abort", onAbort);
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, spec.timeoutMs);
  });
}
