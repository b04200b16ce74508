// The CLI's entry function (what bin/switchyard.js calls) run in the test's own process, for tests
// about what a short command prints and the status it returns. Starting the CLI as a process costs
// 0.15-0.65 s of CPU, nearly all of it loading its command's modules; a call here costs milliseconds once the
// modules are loaded. Tests about processes — exit codes as the shell sees them, signals, crashes,
// pipes, the environment or folder a command starts in — start bin/switchyard.js instead.

import { main } from "../../src/cli/main.js";

export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The whole environment the command sees (as a child process's `env`), instead of this process's. */
  env?: NodeJS.ProcessEnv;
}

let busy = false;

/** Keeps what is written to `stream` as text while `f` runs. Buffers pass through: node:test writes its reports to stdout as serialised buffers. */
function capture(stream: NodeJS.WriteStream): { text: () => string; restore: () => void } {
  const write = stream.write;
  let text = "";
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== "string") return write.call(stream, chunk as Uint8Array, ...(rest as [BufferEncoding]));
    text += chunk;
    const done = rest.find((r): r is () => void => typeof r === "function");
    if (done) process.nextTick(done);
    return true;
  }) as typeof stream.write;
  return { text: () => text, restore: () => (stream.write = write) };
}

/** Runs `switchyard ARGS` in this process: its exit status and what it printed. One call at a time. */
export async function runCliInProcess(args: string[], options: CliOptions = {}): Promise<CliOutput> {
  if (busy) throw new Error("runCliInProcess: one call at a time (calls share this process's output and environment)");
  busy = true;
  const saved = { ...process.env };
  const setEnv = (env: NodeJS.ProcessEnv) => {
    for (const name of Object.keys(process.env)) if (env[name] === undefined) delete process.env[name];
    for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
  };
  const out = capture(process.stdout);
  const err = capture(process.stderr);
  try {
    if (options.env) setEnv(options.env);
    const code = await main(args);
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    out.restore();
    err.restore();
    setEnv(saved);
    busy = false;
  }
}
