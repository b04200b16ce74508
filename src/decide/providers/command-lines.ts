// The line protocol of the `command` provider (D-21, `protocol = "lines"`): the program is started
// at the first request and kept for the provider's life, so that a model loads its weights once.
// Each request is one line of JSON on its stdin, each answer one line of JSON on its stdout, in
// order, one request at a time (the others wait their turn, in order).
//
// The stream is trusted only while it is in step: whenever a request ends without its answer (a
// timeout, a cancellation, too long a line) or with a line that cannot be used (the caller's check
// throws), the process group is killed and waited for, and the next request starts a new process.
// A line written while no request waits stops the process for the same reason.
//
// Idle, the process keeps nothing alive: its handle and pipes are unref'd, so an embedder that
// never calls close() cannot hang on it. While a request waits, or while it is being stopped, the
// process is ref'd, since a pending promise alone would not keep the engine running.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { Socket } from "node:net";
import type { GroupHooks } from "../../run/process/index.js";
import { signalGroup } from "../../run/process/index.js";

/** How a request ended without an answer line. */
export type LineFailure =
  | { kind: "timeout" }
  | { kind: "cancelled" }
  | { kind: "closed" }
  | { kind: "too-large" }
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null }
  | { kind: "spawn-error"; error: Error };

/** What a request to the process came to: the caller's reading of its answer line, or why there is none. */
export type LineExchange<T> = { ok: true; value: T } | { ok: false; failure: LineFailure; stderr: string };

/** How the process is started and bounded. */
export interface LineOptions {
  argv: readonly string[];
  /** Its environment, computed when it is started (the providers' key variables removed). */
  env: () => NodeJS.ProcessEnv;
  /** More bytes than this on stdout without a newline: the process is killed. */
  maxLineBytes: number;
  /** How much of the end of stderr is kept for messages. */
  stderrKeep: number;
  /** How long close() waits for the process to exit once its stdin is closed, before killing it. */
  closeGraceMs: number;
}

function setRef(stream: unknown, on: boolean): void {
  if (!(stream instanceof Socket)) return;
  if (on) stream.ref();
  else stream.unref();
}

/** One running process of the line protocol. */
class LineProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pid: number | undefined;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private waiter: ((f: LineFailure | string) => void) | undefined;
  /** Set once the process has exited or could not start. */
  ended: LineFailure | undefined;
  /** Set once it is being killed: it takes no more requests, and nothing it writes counts. */
  private killed = false;
  /** Set once its stdin is closed (close()): it takes no more requests, but may still answer. */
  private closing = false;
  /** Set once it has exited, before the last of its output is read: it takes no more requests. */
  private exiting = false;
  stderr = "";
  readonly exited: Promise<void>;

  constructor(
    private readonly opts: LineOptions,
    groups: GroupHooks | undefined,
  ) {
    const [file = "", ...args] = opts.argv;
    this.child = spawn(file, args, { stdio: "pipe", detached: true, env: opts.env() });
    this.pid = this.child.pid;
    if (this.pid !== undefined) groups?.started(this.pid);
    setRef(this.child.stdin, false); // a write in progress keeps the loop alive by itself
    this.hold(false);
    this.child.stdout.on("data", (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-opts.stderrKeep);
    });
    // A program that exits without reading its input closes the pipe: its exit says why.
    this.child.stdin.on("error", () => {});
    // Anything the program left running in its group is killed as it exits, so that the pipes
    // close; it is done once they have, when the last of stdout and stderr has been read.
    this.child.on("exit", () => {
      this.exiting = true;
      this.killGroup();
    });
    this.exited = new Promise((resolve) => {
      const finish = (how: LineFailure): void => {
        if (this.ended) return;
        this.ended = how;
        if (this.pid !== undefined) groups?.ended(this.pid);
        this.settle(how);
        resolve();
      };
      this.child.on("error", (error) => {
        if (this.pid === undefined) finish({ kind: "spawn-error", error });
      });
      // Without a pid it never ran: the "error" event says why.
      this.child.on("close", (code, signal) => {
        if (this.pid !== undefined) finish({ kind: "exited", code, signal });
      });
    });
  }

  /** Whether it can take a request: running, and not being stopped. */
  get usable(): boolean {
    return !this.ended && !this.killed && !this.closing && !this.exiting;
  }

  /** Whether the process and its output keep the event loop alive: while it is waited for, and only then. */
  private hold(on: boolean): void {
    if (on) this.child.ref();
    else this.child.unref();
    setRef(this.child.stdout, on);
    setRef(this.child.stderr, on);
  }

  private killGroup(): void {
    if (this.pid !== undefined) signalGroup(this.pid, "SIGKILL");
  }

  private settle(outcome: LineFailure | string): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.(outcome);
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1 && !this.killed && !this.ended; nl = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, nl);
      const line = this.partialBytes > 0 ? Buffer.concat([...this.partial, piece]).toString("utf8") : piece.toString("utf8");
      this.partial = [];
      this.partialBytes = 0;
      start = nl + 1;
      // Blank lines between answers are tolerated (a print that adds its own newline).
      if (line.trim() === "") continue;
      if (this.waiter) this.settle(line);
      else void this.stop(); // an answer nobody asked for: the stream is out of step
    }
    if (start >= chunk.length || this.killed || this.ended) return;
    this.partialBytes += chunk.length - start;
    if (this.partialBytes > this.opts.maxLineBytes) {
      this.settle({ kind: "too-large" });
      void this.stop();
      return;
    }
    this.partial.push(chunk.subarray(start));
  }

  /** Writes one request line; resolves with the answer line, or why there is none. */
  request(text: string, timeoutMs: number, signal: AbortSignal): Promise<LineFailure | string> {
    if (this.ended) return Promise.resolve(this.ended);
    this.hold(true); // a pending promise alone would not keep the engine's process alive
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle({ kind: "timeout" }), timeoutMs);
      const onAbort = (): void => this.settle({ kind: "cancelled" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiter = (outcome) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (typeof outcome === "string") this.hold(false);
        resolve(outcome);
      };
      this.child.stdin.write(`${text}\n`);
    });
  }

  /** Kills the process group and waits until the process is gone. */
  async stop(): Promise<void> {
    if (!this.ended) {
      this.killed = true;
      this.hold(true);
      this.killGroup();
    }
    await this.exited;
  }

  /** Closes its stdin, gives it `graceMs` to exit, then kills its group; resolves once it is gone. */
  async close(graceMs: number): Promise<void> {
    if (!this.usable) return this.exited;
    this.closing = true;
    this.hold(true);
    this.child.stdin.end();
    const timer = setTimeout(() => this.killGroup(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The line protocol's process for one provider: started on demand, one request at a time, restarted when out of step. */
export class LineSession {
  private proc: LineProcess | undefined;
  private busy = false;
  private readonly queue: (() => void)[] = [];
  private closed = false;

  constructor(private readonly opts: LineOptions) {}

  /**
   * Sends `text` as one line once the requests before it are done, and gives its answer line to
   * `read`. When there is no answer, or `read` throws, the process is stopped before this returns
   * (or throws), so that the next request starts a new one. `groups` is told of a process this
   * request starts.
   */
  async exchange<T>(
    text: string,
    timeoutMs: number,
    signal: AbortSignal,
    groups: GroupHooks | undefined,
    read: (line: string, stderr: string) => T,
  ): Promise<LineExchange<T>> {
    if (!(await this.turn(signal))) return { ok: false, failure: { kind: "cancelled" }, stderr: "" };
    try {
      if (this.closed) return { ok: false, failure: { kind: "closed" }, stderr: "" };
      // One being stopped (it wrote a line nobody asked for) is waited for: never two at once.
      if (this.proc && !this.proc.usable) await this.proc.stop();
      if (!this.proc || !this.proc.usable) this.proc = new LineProcess(this.opts, groups);
      const proc = this.proc;
      const outcome = await proc.request(text, timeoutMs, signal);
      if (typeof outcome !== "string") {
        await proc.stop();
        return { ok: false, failure: outcome, stderr: proc.stderr };
      }
      try {
        return { ok: true, value: read(outcome, proc.stderr) };
      } catch (err) {
        await proc.stop(); // a line that cannot be used: the next one may not be this request's either
        throw err;
      }
    } finally {
      this.release();
    }
  }

  /** Waits for this request's turn, in order; false when it is cancelled while it waits. */
  private turn(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const go = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(go);
        if (i !== -1) this.queue.splice(i, 1);
        resolve(false);
      };
      this.queue.push(go);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }

  /** Ends the process: stdin closed, a short grace, then its group killed. Later requests fail. */
  async close(): Promise<void> {
    this.closed = true;
    const proc = this.proc;
    this.proc = undefined;
    await proc?.close(this.opts.closeGraceMs);
  }
}
