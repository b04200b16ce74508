// A command at a real pseudo-terminal, for tests of what happens at a terminal: pty-driver.py
// (python3's pty module) gives the command a pty and relays it. The test waits for text the
// command prints (each chunk is checked as it arrives: an event, never a pause) and types keys.

import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";

const DRIVER = join(process.cwd(), "test", "support", "pty-driver.py");

/** How long a wait for text may take before the test fails saying what was printed (a bound, not a pace). */
const WAIT_LIMIT_MS = 90000;

/** One command running at a pseudo-terminal. */
export class PtySession {
  private raw = "";
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();
  /** The command's exit status (128 + N for a signal). */
  readonly exit: Promise<number | null>;
  private exited = false;

  constructor(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; columns?: number; rows?: number }) {
    const env = { ...opts.env, PTY_COLUMNS: String(opts.columns ?? 100), PTY_ROWS: String(opts.rows ?? 40) };
    this.child = spawn("python3", [DRIVER, ...argv], { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const onData = (b: Buffer) => {
      this.raw += b.toString("utf8");
      for (const w of [...this.waiters]) w();
    };
    this.child.stdout!.on("data", onData);
    this.child.stderr!.on("data", onData);
    this.exit = new Promise((resolve) =>
      this.child.on("close", (code) => {
        this.exited = true;
        for (const w of [...this.waiters]) w();
        resolve(code);
      }),
    );
  }

  /** What the command printed, without terminal control sequences. */
  text(): string {
    return stripVTControlCharacters(this.raw).replace(/\r\n/g, "\n");
  }

  /** A mark in the output: waitFor(…, mark) looks only at what comes after it. */
  mark(): number {
    return this.text().length;
  }

  /** Waits until the output after `from` matches; resolves with the match. Fails if the command exits first. */
  waitFor(pattern: RegExp | string, from = 0): Promise<RegExpMatchArray> {
    const re = typeof pattern === "string" ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : pattern;
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = this.text().slice(from).match(re);
        if (m) return done(() => resolve(m));
        if (this.exited) return done(() => reject(new Error(`the command exited before printing ${re}; it printed:\n${this.text()}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${re} after ${WAIT_LIMIT_MS} ms; printed:\n${this.text()}`))),
        WAIT_LIMIT_MS,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        f();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Types `keys` at the terminal ("\x03" is Ctrl-C, "\r" Enter). */
  send(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Stops the command if it still runs. */
  kill(): void {
    if (!this.exited) this.child.kill("SIGKILL");
  }
}
