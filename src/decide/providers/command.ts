// The `command` provider (D-21): an executable that reads one System One request as JSON on stdin
// and writes one System One response on stdout — for in-house models and for tests. It runs in its
// own process group so a timeout kills it and everything it started, and the run records that group
// while it runs, so that a resume after the engine was killed stops it too. No retries: a program that
// fails once will most likely fail again, and its stderr says why.

import { spawn } from "node:child_process";
import { resolve as absolute } from "node:path";
import type { GroupHooks } from "../../run/process/index.js";
import { signalGroup } from "../../run/process/index.js";
import type { ProviderConfig } from "../config-types.js";
import { excerpt, parseJsonBody } from "../http-wording.js";
import { ProviderError, type Provider, type ProviderRequest, type ProviderResponse } from "../provider.js";
import { buildSystemOneRequest, parseSystemOneResponse } from "../systemone-wire.js";

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

/** A provider that runs a local command per request: the request as JSON on stdin, the answers as JSON on stdout. */
export class CommandProvider implements Provider {
  readonly name: string;

  constructor(
    private readonly config: ProviderConfig,
    /** The providers' key variables (api_key_env): an in-house model has no business reading them. */
    private readonly hideEnv: readonly string[] = [],
  ) {
    if (!config.command || config.command.length === 0)
      throw new ProviderError("decision-failed", `provider '${config.name}' (command) has no command`);
    this.name = config.name;
  }

  async ask(request: ProviderRequest): Promise<ProviderResponse> {
    const argv = this.config.command!;
    const who = `provider '${this.name}' (command ${JSON.stringify(argv[0])}, model ${request.model})`;
    const body = buildSystemOneRequest(request.model, request.state, request.state_text, request.questions);
    const started = performance.now();
    if (request.signal.aborted) throw new ProviderError("decision-failed", `${who}: cancelled`);
    const env = { ...process.env };
    for (const name of this.hideEnv) delete env[name];
    const r = await runWithInput(argv, JSON.stringify(body), this.config.timeout_ms, request.signal, {
      env,
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
    if (r.code !== 0) {
      const how = r.signal ? `was killed by ${r.signal}` : `exited with status ${r.code}`;
      throw new ProviderError("decision-failed", `${who}: ${how}${stderrNote(r.stderr)}`);
    }
    try {
      const parsed = parseJsonBody(r.stdout, `${who}: its stdout`);
      const { answers, usage } = parseSystemOneResponse(parsed, request.questions, `${who}: its response`);
      return { answers, usage, latency_ms };
    } catch (err) {
      if (err instanceof ProviderError) throw new ProviderError("decision-failed", `${err.message}${stderrNote(r.stderr)}`);
      throw err;
    }
  }
}
