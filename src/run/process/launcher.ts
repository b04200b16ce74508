// A pool of small launcher processes for command instances. Forking a large Node process for
// every command is several times slower than forking a small program (what `xargs` does), so each
// concurrency slot keeps one launcher reading jobs on its stdin; a job runs in its own session and
// process group (so a timeout or cancel still kills the whole group, and the command has no
// controlling terminal), with its environment, its working folder, stdin, stdout and stderr
// redirected; the launcher reports the pid, the exit status and whether the job left an output
// file. Two launchers, the first one present is used:
// - "perl": a system Perl running launcher-perl.ts, which calls setsid() itself between fork and
//   exec (one fork and one exec per command, as xargs);
// - "sh": `/bin/sh` running each job through `setsid` (a subshell, then an exec of setsid, then
//   the exec of the command: about 1.4× the CPU of the Perl launcher per short command).
// Where neither works (no perl and no `setsid`), callers spawn directly from Node (process.ts).
// In both, the forked child waits for the engine's go before it runs anything, and the engine
// sends it only once the job's group is recorded (launcher-perl.ts): a command never runs
// unrecorded, even for a moment after the engine is killed.
//
// (A bash launcher with job control, `set -m` and `wait -f`, would save the `setsid` exec per
// command, but bash 5.2's `wait -f` can spin forever on a job already reaped: not used.)

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { resolve } from "node:path";
import type { ProcessResult, ProcessSpec } from "./process.js";
import { signalGroup } from "./signal-group.js";
import { GO_LINE, PERL_LAUNCHER, setsidSyscall } from "./launcher-perl.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KILL_GRACE_MS = 1000;

function q(s: string): string {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

/** Which launcher program is in use: Perl, or the POSIX shell fallback. */
export type LauncherDialect = "perl" | "sh";

/** A process to run: the launcher's environment plus `extraEnv` replaces `env`. */
export type LaunchSpec = Omit<ProcessSpec, "env">;

/** Where this machine's `setsid` and a Perl with POSIX are (null: missing); probed once. */
let tools: { setsid: string | null; perl: string | null } | undefined;
function findTools(): { setsid: string | null; perl: string | null } {
  if (tools === undefined) {
    const probe = 'p=$(command -v setsid) && echo "setsid $p"; p=$(command -v perl) && "$p" -MPOSIX -e 1 2>/dev/null && echo "perl $p"';
    const r = spawnSync("/bin/sh", ["-c", probe], { encoding: "utf8" });
    const found = new Map<string, string>();
    for (const line of (r.stdout ?? "").split("\n")) {
      const sp = line.indexOf(" ");
      if (sp > 0 && line[sp + 1] === "/") found.set(line.slice(0, sp), line.slice(sp + 1));
    }
    tools = { setsid: found.get("setsid") ?? null, perl: found.get("perl") ?? null };
  }
  return tools;
}

/** How a launcher program is started and how one job is written to its stdin. */
interface LaunchProgram {
  file: string;
  args: string[];
  /** Written once when the launcher starts. */
  preamble?: string;
  job(spec: LaunchSpec): string | Buffer;
}

function shProgram(setsid: string): LaunchProgram {
  return {
    file: "/bin/sh",
    args: [],
    // fd 3 is the engine's pipe in every job (an asynchronous job's stdin is /dev/null).
    preamble: "exec 3<&0\n",
    job: (s) => {
      const exports = Object.entries(s.extraEnv ?? {})
        .map(([k, v]) => `${k}=${q(v)}`)
        .join(" ");
      const argv = s.argv.map(q).join(" ");
      // A symlink counts even when it points at nothing: the engine then says what is wrong with it.
      const output =
        s.outputFile !== undefined ? `{ [ -e ${q(resolve(s.outputFile))} ] || [ -L ${q(resolve(s.outputFile))} ]; } && o=1; ` : "";
      // The subshell waits for the go line on fd 3 (the launcher's stdin, see launcher-perl.ts),
      // then becomes the group's leader through setsid.
      return (
        `( IFS= read -r go <&3 && [ "$go" = : ] || exit 125; exec 3<&-; cd ${q(resolve(s.cwd))} || exit 127; ${exports ? `export ${exports}; ` : ""}exec ${q(setsid)} ${argv} ) <${q(resolve(s.stdinFile ?? "/dev/null"))} >>${q(resolve(s.logFile))} 2>&1 &\n` +
        `echo "P $!"; wait $!; s=$?; o=0; ${output}echo "X $s $o"\n`
      );
    },
  };
}

function perlProgram(perl: string): LaunchProgram {
  const sys = setsidSyscall();
  return {
    file: perl,
    args: ["-e", PERL_LAUNCHER, "--", ...(sys !== null ? [String(sys)] : [])],
    job: (s) => {
      const env = Object.entries(s.extraEnv ?? {});
      const fields = [
        resolve(s.cwd),
        resolve(s.logFile),
        resolve(s.stdinFile ?? "/dev/null"),
        s.outputFile !== undefined ? resolve(s.outputFile) : "",
        String(env.length),
        ...env.flat(),
        ...s.argv,
      ];
      const body = Buffer.from(fields.join("\0"));
      return Buffer.concat([Buffer.from(`J ${body.length}\n`), body]);
    },
  };
}

const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, n]) => [n as number, name as NodeJS.Signals]),
);

interface Job {
  spec: LaunchSpec;
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
    private readonly program: LaunchProgram,
    onExit: (s: LauncherShell) => void,
  ) {
    this.proc = spawn(program.file, program.args, { stdio: ["pipe", "pipe", "ignore"], env });
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
    if (program.preamble !== undefined) this.proc.stdin!.write(program.preamble);
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
      } else if (line.startsWith("X ")) {
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
    this.proc.stdin!.write(this.program.job(job.spec));
  }

  /** Lets the job's child run its command (its group is recorded by now). */
  go(): void {
    this.proc.stdin!.write(GO_LINE);
  }
}

/** Runs processes through a pool of launchers (one per concurrency slot). */
export class Launcher {
  private idle: LauncherShell[] = [];
  private all = new Set<LauncherShell>();
  private readonly program: LaunchProgram | null;
  /** The launcher in use, or null when none works here. */
  readonly dialect: LauncherDialect | null;
  /** `only` restricts the choice to one launcher (tests, benchmarks). */
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    only?: LauncherDialect,
  ) {
    const { perl, setsid } = findTools();
    if (perl && only !== "sh") [this.program, this.dialect] = [perlProgram(perl), "perl"];
    else if (setsid && only !== "perl") [this.program, this.dialect] = [shProgram(setsid), "sh"];
    else [this.program, this.dialect] = [null, null];
  }

  get available(): boolean {
    return this.program !== null;
  }

  /**
   * Whether a job adding these variables to the launcher's environment can run here: names must
   * be identifiers (the shell exports them) and no text may hold a NUL (it separates the Perl
   * launcher's fields; Node refuses it too).
   */
  accepts(extraEnv: Record<string, string>, argv: string[] = []): boolean {
    for (const [k, v] of Object.entries(extraEnv)) {
      if (!IDENT.test(k) || v.includes("\0")) return false;
    }
    return !argv.some((a) => a.includes("\0"));
  }

  /** Like runProcess, with the launcher's env plus `spec.extraEnv` as the environment. */
  run(spec: LaunchSpec): Promise<ProcessResult> {
    if (!this.program || !this.accepts(spec.extraEnv ?? {}, spec.argv))
      return Promise.reject(
        new Error(`internal: the launcher cannot pass these environment variables: ${Object.keys(spec.extraEnv ?? {}).join(", ")}`),
      );
    let shell = this.idle.pop();
    while (shell && shell.dead) shell = this.idle.pop();
    if (!shell) {
      shell = new LauncherShell(this.env, this.program, (s) => this.all.delete(s));
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
        if (pid !== undefined && pid > 1 && !signalGroup(pid, sig) && lone) {
          // No such group: gone, or the job has not reached setsid yet, so it is still a lone
          // process that the launcher has not reaped.
          try {
            process.kill(pid, sig);
          } catch {
            // gone
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
        // The child waits until its group is recorded (a synchronous commit), then is let go. A
        // stop asked for before the pid was known: its SIGTERM is sent now instead (the grace
        // runs on), and the child never runs the command.
        onPid: () => {
          spec.groups?.started(job.pid!);
          if (stopping) kill("SIGTERM");
          else sh.go();
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
