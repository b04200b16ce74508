// The `command` provider (D-21): an executable that reads one System One request as JSON on stdin
// and writes one System One response on stdout — for in-house models and for tests. With
// `protocol = "once"` (the default) it is started per request; with `protocol = "lines"` it is
// started once and answers a line per request (command-lines.ts), so that a model loads once. It
// runs in its own process group so a timeout kills it and everything it started, and the run records
// that group while it runs, so that a resume after the engine was killed stops it too. No retries: a
// program that fails once will most likely fail again, and its stderr says why.

import { spawn } from "node:child_process";
import { resolve as absolute } from "node:path";
import type { GroupHooks } from "../../run/process/index.js";
import { signalGroup } from "../../run/process/index.js";
import type { ProviderConfig } from "../config-types.js";
import { excerpt, parseJsonBody } from "../http-wording.js";
import { ProviderError, type Provider, type ProviderRequest, type ProviderResponse } from "../provider.js";
import { buildSystemOneRequest, parseSystemOneResponse } from "../systemone-wire.js";
import { LineSession, type LineFailure } from "./command-lines.js";

/** More output than this is not a System One response: the process is stopped. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const STDERR_KEEP = 4096;

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  tooLarge: boolean;
  spawnError?: Error;
}

/** How to run a command provider's process: its environment, folder, and the hooks that record its process group. */
export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Told the process group once it exists and once it is done (the run records it). */
  groups?: GroupHooks;
}

/** Runs argv with `input` on stdin; kills the whole process group on timeout or abort. */
export function runWithInput(
  argv: string[],
  input: string,
  timeoutMs: number,
  signal: AbortSignal,
  opts: RunOptions = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      // PWD names the folder it runs in (see src/run/process.ts).
      env: opts.cwd ? { ...(opts.env ?? process.env), PWD: absolute(opts.cwd) } : (opts.env ?? process.env),
      cwd: opts.cwd,
    });
    if (child.pid !== undefined) opts.groups?.started(child.pid);
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = "";
    let timedOut = false;
    let tooLarge = false;
    let spawnError: Error | undefined;
    const killGroup = () => {
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => killGroup();
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) {
        tooLarge = true;
        killGroup();
        return;
      }
      out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_KEEP);
    });
    child.on("error", (err) => {
      spawnError = err;
    });
    // A program that exits without reading its input closes the pipe: not our failure to report.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      killGroup(); // anything the program left running in its group
      if (child.pid !== undefined) opts.groups?.ended(child.pid);
      resolve({ code, signal: sig, stdout: Buffer.concat(out).toString("utf8"), stderr, timedOut, tooLarge, spawnError });
    });
  });
}

function stderrNote(stderr: string): string {
  const s = excerpt(stderr, 300);
  return s ? `; stderr: ${s}` : "";
}

/** How long close() gives a line-protocol process to exit once its stdin is closed, before killing its group. */
const CLOSE_GRACE_MS = 1000;
const RESTARTED = "; the process was stopped, and the next request starts a new one";

/** The words for a program that ended: its exit status or the signal that killed it. */
function ending(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with status ${code}`;
}

/**
 * A provider that runs a local command: per request (`protocol = "once"`, the request as JSON on
 * stdin, the answers as JSON on stdout), or once for its life (`protocol = "lines"`, a line per
 * request and per answer).
 */
export class CommandProvider implements Provider {
  readonly name: string;
  private readonly argv: string[];
  private lines: LineSession | undefined;

  constructor(
    private readonly config: ProviderConfig,
    /** The providers' key variables (api_key_env): an in-house model has no business reading them. */
    private readonly hideEnv: readonly string[] = [],
  ) {
    if (!config.command || config.command.length === 0)
      throw new ProviderError("decision-failed", `provider '${config.name}' (command) has no command`);
    this.name = config.name;
    this.argv = config.command;
  }

  /** The environment of the program: switchyard's, without the providers' key variables. */
  private env(): NodeJS.ProcessEnv {
    const env = { ...process.env };
    for (const name of this.hideEnv) delete env[name];
    return env;
  }

  async ask(request: ProviderRequest): Promise<ProviderResponse> {
    const who = `provider '${this.name}' (command ${JSON.stringify(this.argv[0])}, model ${request.model})`;
    const body = buildSystemOneRequest(request.model, request.state, request.state_text, request.questions);
    if (request.signal.aborted) throw new ProviderError("decision-failed", `${who}: cancelled`);
    return this.config.protocol === "lines"
      ? this.askLines(request, who, JSON.stringify(body))
      : this.askOnce(request, who, JSON.stringify(body));
  }

  /** The answers in `text`, the program's stdout (once) or answer line (lines). */
  private read(
    text: string,
    stderr: string,
    request: ProviderRequest,
    who: string,
    what: string,
    restarted = "",
  ): Omit<ProviderResponse, "latency_ms"> {
    try {
      const parsed = parseJsonBody(text, `${who}: ${what}`);
      const { answers, usage } = parseSystemOneResponse(parsed, request.questions, `${who}: its response`);
      return { answers, usage };
    } catch (err) {
      if (err instanceof ProviderError) throw new ProviderError("decision-failed", `${err.message}${restarted}${stderrNote(stderr)}`);
      throw err;
    }
  }

  private async askOnce(request: ProviderRequest, who: string, input: string): Promise<ProviderResponse> {
    const started = performance.now();
    const r = await runWithInput(this.argv, input, this.config.timeout_ms, request.signal, {
      env: this.env(),
      ...(request.groups ? { groups: request.groups } : {}),
    });
    const latency_ms = Math.round(performance.now() - started);
    if (r.spawnError) throw new ProviderError("decision-failed", `${who}: could not start: ${r.spawnError.message}`);
    if (request.signal.aborted) throw new ProviderError("decision-failed", `${who}: cancelled`);
    if (r.timedOut)
      throw new ProviderError(
        "decision-failed",
        `${who}: no answer within ${this.config.timeout_ms} ms (timeout); the process group was killed${stderrNote(r.stderr)}`,
        { retryable: true },
      );
    if (r.tooLarge) throw new ProviderError("decision-failed", `${who}: wrote more than ${MAX_OUTPUT_BYTES} bytes on stdout; stopped`);
    if (r.code !== 0) throw new ProviderError("decision-failed", `${who}: ${ending(r.code, r.signal)}${stderrNote(r.stderr)}`);
    const { answers, usage } = this.read(r.stdout, r.stderr, request, who, "its stdout");
    return { answers, usage, latency_ms };
  }

  private async askLines(request: ProviderRequest, who: string, line: string): Promise<ProviderResponse> {
    const started = performance.now();
    this.lines ??= new LineSession({
      argv: this.argv,
      env: () => this.env(),
      maxLineBytes: MAX_OUTPUT_BYTES,
      stderrKeep: STDERR_KEEP,
      closeGraceMs: CLOSE_GRACE_MS,
    });
    const r = await this.lines.exchange(line, this.config.timeout_ms, request.signal, request.groups, (text, stderr) =>
      this.read(text, stderr, request, who, "its answer line", RESTARTED),
    );
    if (r.ok) return { ...r.value, latency_ms: Math.round(performance.now() - started) };
    throw lineFailure(who, r.failure, r.stderr, this.config.timeout_ms);
  }

  /** Ends a line-protocol process (the run is over); a program that does not exit is killed. */
  async close(): Promise<void> {
    await this.lines?.close();
  }
}

/** The error for a line-protocol request that got no answer line. */
function lineFailure(who: string, f: LineFailure, stderr: string, timeoutMs: number): ProviderError {
  const fail = (message: string, retryable = false) =>
    new ProviderError("decision-failed", `${who}: ${message}${stderrNote(stderr)}`, { retryable });
  switch (f.kind) {
    case "cancelled":
      return fail("cancelled");
    case "closed":
      return fail("the provider is closed: the run is ending");
    case "spawn-error":
      return fail(`could not start: ${f.error.message}`);
    case "timeout":
      return fail(
        `no answer within ${timeoutMs} ms (timeout); the process group was killed, and the next request starts a new one ` +
          `(with protocol = "lines" the program must answer each line as it arrives, not wait for the end of its input)`,
        true,
      );
    case "too-large":
      return fail(`wrote more than ${MAX_OUTPUT_BYTES} bytes on stdout without a newline${RESTARTED}`);
    case "exited":
      return fail(`${ending(f.code, f.signal)} before answering; the next request starts a new process`);
  }
}
