// The CLI's entry function (what bin/switchyard.js calls) run in the test's own process, for tests
// about what a short command prints and the status it returns. Starting the CLI as a process costs
// 0.15-0.65 s of CPU, nearly all of it loading its command's modules; a call here costs milliseconds once the
// modules are loaded. Tests about processes — exit codes as the shell sees them, signals, crashes,
// pipes, a terminal, a command that could hang, one racing other processes — start
// bin/switchyard.js instead. A command that must see a folder and an environment of its own
// (relative paths, the state folder and machine config found from where it runs, $HOME) gets them
// through `cwd` and `env`: both are this process's for the length of the call and are put back
// after it, so the command reads them as it would in a child started with them.

import { Serializer } from "node:v8";
import { main } from "../../src/cli/main.js";

export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The whole environment the command sees (as a child process's `env`), instead of this process's. */
  env?: NodeJS.ProcessEnv;
  /** The folder the command runs in (as a child process's `cwd`), instead of this process's. */
  cwd?: string;
}

let busy = false;

// The framing of node:test's reports from a test file's process (node's v8-serializer reporter):
// a V8 serializer header, the message's length in 4 bytes (big-endian), the header again, then the
// message. The CLI writes bytes too (`logs` prints a log file as it is), so a write is told apart
// by that framing, not by its type.
const V8_HEADER = (() => {
  const s = new Serializer();
  s.writeHeader();
  return s.releaseBuffer();
})();

/** Whether `chunk` is one of node:test's own reports (see V8_HEADER), which must reach stdout. */
function isTestReport(chunk: Uint8Array): boolean {
  const h = V8_HEADER.length;
  if (chunk.length < 2 * h + 4) return false;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return (
    bytes.subarray(0, h).equals(V8_HEADER) &&
    bytes.readUInt32BE(h) === bytes.length - 4 - h &&
    bytes.subarray(h + 4, 2 * h + 4).equals(V8_HEADER)
  );
}

/**
 * Keeps what is written to `stream` while the command runs, strings and bytes alike, and decodes it
 * as UTF-8 at the end (as spawnSync with `encoding: "utf8"` decodes a child's output). node:test's
 * reports pass through.
 */
function capture(stream: NodeJS.WriteStream): { text: () => string; restore: () => void } {
  const write = stream.write;
  const chunks: Buffer[] = [];
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk !== "string" && isTestReport(chunk)) return write.call(stream, chunk, ...(rest as [BufferEncoding]));
    const encoding = typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8";
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk, encoding) : Buffer.from(chunk));
    const done = rest.find((r): r is () => void => typeof r === "function");
    if (done) process.nextTick(done);
    return true;
  }) as typeof stream.write;
  return { text: () => Buffer.concat(chunks).toString("utf8"), restore: () => (stream.write = write) };
}

/** Runs `switchyard ARGS` in this process: its exit status and what it printed. One call at a time. */
export async function runCliInProcess(args: string[], options: CliOptions = {}): Promise<CliOutput> {
  if (busy) throw new Error("runCliInProcess: one call at a time (calls share this process's output and environment)");
  busy = true;
  const saved = { ...process.env };
  const savedCwd = process.cwd();
  const setEnv = (env: NodeJS.ProcessEnv) => {
    for (const name of Object.keys(process.env)) if (env[name] === undefined) delete process.env[name];
    for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
  };
  const out = capture(process.stdout);
  const err = capture(process.stderr);
  try {
    if (options.env) setEnv(options.env);
    if (options.cwd !== undefined) process.chdir(options.cwd);
    const code = await main(args);
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    out.restore();
    err.restore();
    setEnv(saved);
    process.chdir(savedCwd);
    busy = false;
  }
}

/** What spawnSync gives for a child process, the fields the tests read. */
export interface SpawnLike {
  status: number;
  stdout: string;
  stderr: string;
}

/** runCliInProcess with its result named as spawnSync names a child's: tests written against spawnSync keep their assertions. */
export async function spawnCliInProcess(args: string[], options: CliOptions = {}): Promise<SpawnLike> {
  const r = await runCliInProcess(args, options);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}
