// A pool of small launcher shells for command instances. Forking a large Node process for every
// command is several times slower than forking a shell (what `xargs` does), so each concurrency
// slot keeps one `/bin/sh` reading jobs on its stdin; a job runs in its own session and process
// group via `setsid` (so a timeout or cancel still kills the whole group, and the command has no
// controlling terminal), with its environment exported, its working folder, stdin, stdout and
// stderr redirected; the shell reports its pid, its exit status and whether it left an output
// file. Where `setsid` is missing, callers spawn directly from Node (process.ts).
//
// (A bash launcher with job control, `set -m` and `wait -f`, would save the `setsid` exec per
// command, but bash 5.2's `wait -f` can spin forever on a job already reaped: not used.)

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { resolve } from "node:path";
import type { ProcessResult, ProcessSpec } from "./process.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KILL_GRACE_MS = 1000;

function q(s: string): string {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

let setsidPath: string | null | undefined;
function findSetsid(): string | null {
  if (setsidPath === undefined) {
    const r = spawnSync("/bin/sh", ["-c", "command -v setsid"], { encoding: "utf8" });
    const p = r.status === 0 ? r.stdout.trim() : "";
    setsidPath = p.startsWith("/") ? p : null;
  }
  return setsidPath;
}

const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(Object.entries(constants.signals).map(([name, n]) => [n as number, name as NodeJS.Signals]));

interface Job {
  spec: ProcessSpec;
  resolve: (r: ProcessResult) => void;
  pid?: number;
  /** Called once the pid is known (a stop asked for earlier is carried out then). */
  onPid: () => void;
}

class LauncherShell {
  readonly proc: ChildProcess;
  private buf = "";
  job: Job | null = null;
  dead = false;
  constructor(
    env: NodeJS.ProcessEnv,
    private readonly setsid: string,
    onExit: (s: LauncherShell) => void,
  ) {
    this.proc = spawn("/bin/sh", [], { stdio: ["pipe", "pipe", "ignore"], env });
    this.proc.stdout!.setEncoding("utf8");
    this.proc.stdout!.on("data", (d: string) => this.data(d));
    this.proc.on("exit", () => {
      this.dead = true;
      onExit(this);
      const job = this.job;
      this.job = null;
      job?.resolve({ code: null, signal: "SIGKILL", timedOut: false, aborted: false });
    });
    this.proc.on("error", () => {
      this.dead = true;
    });
    this.proc.stdin!.on("error", () => {
      this.dead = true;
    });
  }

  private data(d: string): void {
    this.buf += d;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      const job = this.job;
      if (!job) continue;
      if (line.startsWith("P ")) {
        job.pid = Number(line.slice(2));
        job.onPid();
      }
      else if (line.startsWith("X ")) {
        this.job = null;
        const [statusText, outputText] = line.slice(2).split(" ");
        const status = Number(statusText);
        const r: ProcessResult =
          status > 128 && SIGNAL_NAMES.has(status - 128)
            ? { code: null, signal: SIGNAL_NAMES.get(status - 128)!, timedOut: false, aborted: false }
            : { code: status, signal: null, timedOut: false, aborted: false };
        if (job.spec.outputFile !== undefined) r.outputExists = outputText === "1";
        job.resolve(r);
      }
    }
  }

  start(job: Job): void {
    this.job = job;
    const s = job.spec;
    const exports = Object.entries(s.extraEnv ?? {})
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(" ");
    const argv = s.argv.map(q).join(" ");
    // A symlink counts even when it points at nothing: the engine then says what is wrong with it.
    const output = s.outputFile !== undefined ? `{ [ -e ${q(resolve(s.outputFile))} ] || [ -L ${q(resolve(s.outputFile))} ]; } && o=1; ` : "";
    const script =
      `( cd ${q(resolve(s.cwd))} || exit 127; ${exports ? `export ${exports}; ` : ""}exec ${q(this.setsid)} ${argv} ) <${q(resolve(s.stdinFile ?? "/dev/null"))} >>${q(resolve(s.logFile))} 2>&1 &\n` +
      `echo "P $!"; wait $!; s=$?; o=0; ${output}echo "X $s $o"\n`;
    this.proc.stdin!.write(script);
  }
}

/** Runs processes through a pool of launcher shells (one per concurrency slot). */
export class Launcher {
  private idle: LauncherShell[] = [];
  private all = new Set<LauncherShell>();
  private readonly setsid: string | null;
  constructor(private readonly env: NodeJS.ProcessEnv) {
    this.setsid = findSetsid();
  }

  get available(): boolean {
    return this.setsid !== null;
  }

  /** Whether a job adding these variables to the launcher's environment can run here. */
  accepts(extraEnv: Record<string, string>): boolean {
    for (const k of Object.keys(extraEnv)) {
      if (!IDENT.test(k)) return false;
    }
    return true;
  }

  /** Like runProcess, but `spec.env` must be the launcher's env plus `spec.extraEnv`. */
  run(spec: ProcessSpec): Promise<ProcessResult> {
    if (!this.accepts(spec.extraEnv ?? {})) return Promise.reject(new Error(`internal: the launcher cannot pass these environment variables: ${Object.keys(spec.extraEnv ?? {}).join(", ")}`));
    let shell = this.idle.pop();
    while (shell && shell.dead) shell = this.idle.pop();
    if (!shell) {
      shell = new LauncherShell(this.env, this.setsid!, (s) => this.all.delete(s));
      this.all.add(shell);
    }
    const sh = shell;
    return new Promise((resolve) => {
      let timedOut = false;
      let aborted = false;
      let grace: NodeJS.Timeout | null = null;
      let stopping = false;
      const kill = (sig: NodeJS.Signals, lone = true) => {
        const pid = job.pid;
        if (pid) {
          try {
            process.kill(-pid, sig);
          } catch {
            // No such group: gone, or the job has not reached setsid yet, so it is still a lone
            // process that the launcher has not reaped.
            if (!lone) return;
            try {
              process.kill(pid, sig);
            } catch {
              // gone
            }
          }
        }
      };
      const stop = () => {
        if (stopping) return;
        stopping = true;
        kill("SIGTERM");
        grace = setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
      };
      const onAbort = () => {
        aborted = true;
        stop();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, spec.timeoutMs);
      const job: Job = {
        spec,
        // A stop asked for before the pid was known: send its SIGTERM now (the grace runs on).
        onPid: () => {
          spec.groups?.started(job.pid!);
          if (stopping) kill("SIGTERM");
        },
        resolve: (r) => {
          clearTimeout(timer);
          if (grace) clearTimeout(grace);
          spec.signal.removeEventListener("abort", onAbort);
          // The job was reaped: only what is left of its group may be signalled.
          if (timedOut || aborted) kill("SIGKILL", false);
          if (job.pid) spec.groups?.ended(job.pid);
          if (!sh.dead) this.idle.push(sh);
          resolve({ ...r, timedOut, aborted });
        },
      };
      if (spec.signal.aborted) aborted = true;
      else spec.signal.addEventListener("abort", onAbort);
      sh.start(job);
      if (aborted) stop();
    });
  }

  /** Ends every launcher shell (their stdin closes; they exit once their job is done). */
  close(): void {
    for (const s of this.all) s.proc.stdin!.end();
    this.all.clear();
    this.idle = [];
  }
}
