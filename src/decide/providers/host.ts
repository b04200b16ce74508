// The host (D-20): the question rendered as a prompt — the state, the question, each label with its
// description, "answer with exactly one label" — to an agent runner (the prompt on stdin, the reply
// on stdout) or to a person at the terminal (`tty`: the options numbered, a label or its number
// accepted). One label parsed from the reply has probability 1; an unparseable reply is asked once
// more, then the decision fails. Not a config provider kind, but a Provider like the others.

import { openSync, writeSync, closeSync, createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isatty, ReadStream as TtyReadStream } from "node:tty";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRunnerConfig } from "../../run/agents/index.js";
import { DecisionFailure, sumUsage, type ResolvedQuestion, type Usage } from "../../run/kinds/index.js";
import { invocation, presetOf, runnerEnv } from "../../run/agents/index.js";
import { readPresetOutput } from "../../run/agents/index.js";
import { MAX_RATE_LIMITED_TRIES, rateLimitDelay } from "../../run/agents/index.js";
import { hostContextEnv } from "./host-context.js";
import { excerpt } from "../http-wording.js";
import type { Provider, ProviderRequest, ProviderResponse, RawAnswer } from "../provider.js";
import { runWithInput } from "./command.js";
import { atTerminal } from "./terminal-turns.js";

/** Who the host is: an agent runner, or a person at the terminal. */
export interface HostOptions {
  /** An agent runner (D-40) answers: the prompt on its stdin, its reply on stdout. */
  runner?: AgentRunnerConfig;
  /** A person answers at the terminal. */
  tty?: boolean;
  /** The terminal to use (default /dev/tty). */
  ttyPath?: string;
  /** Where the runner runs (default: the current directory). */
  cwd?: string;
  /** Extra environment for the runner, over process.env and the runner's own env. */
  env?: Record<string, string>;
  /** Variables the runner must not see: the providers' keys (R-20, like every agent runner). */
  hideEnv?: readonly string[];
  /** How long a runner may take per reply (default 10 minutes). */
  timeout_ms?: number;
}

const DEFAULT_RUNNER_TIMEOUT_MS = 10 * 60 * 1000;

function described(text: string | undefined): string | undefined {
  return text && text.trim() !== "" ? text : undefined;
}

function where(request: ProviderRequest): string {
  const { run, task, key } = request.context;
  return `run ${run}, task ${task}${key === null ? "" : `[${key}]`}`;
}

/** The D-20 prompt for an agent runner. */
export function renderHostPrompt(q: ResolvedQuestion, request: ProviderRequest): string {
  const labels = q.labels.map((l) => {
    const d = described(q.descriptions[l]);
    return d ? `- ${l}: ${d}` : `- ${l}`;
  });
  return [
    `You are answering one decision for switchyard (${where(request)}).`,
    "",
    "## State",
    "",
    "```json",
    request.state_text,
    "```",
    "",
    "## Question",
    "",
    q.ask,
    "",
    "## Labels",
    "",
    ...labels,
    "",
    `Answer with exactly one label from the list above (${q.labels.join(", ")}): reply with the label alone, nothing else.`,
    "",
  ].join("\n");
}

function stripDecoration(text: string): string {
  return text
    .trim()
    .replace(/^(answer|label|choice)\s*[:=-]\s*/i, "")
    .replace(/^[\s"'`*_([{<]+|[\s"'`*_)\]}>.,;:!]+$/g, "")
    .trim();
}

/**
 * One label from a reply, or undefined: the reply (or its last non-empty line) is a label, give or
 * take quotes, emphasis, case and a final full stop; else exactly one label occurs in it as a whole
 * word. With `numbers`, a 1-based option number is accepted too (the terminal lists them).
 */
export function parseHostReply(reply: string, labels: string[], numbers = false): string | undefined {
  const byName = new Map(labels.map((l) => [l.toLowerCase(), l]));
  const exact = (text: string): string | undefined => {
    const t = stripDecoration(text);
    if (numbers && /^\d+$/.test(t)) {
      const n = Number(t);
      return n >= 1 && n <= labels.length ? labels[n - 1] : undefined;
    }
    return byName.get(t.toLowerCase());
  };
  const whole = exact(reply);
  if (whole) return whole;
  const lines = reply.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length > 1) {
    const last = exact(lines[lines.length - 1]!);
    if (last) return last;
  }
  const found = new Set<string>();
  for (const m of reply.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    const l = byName.get(m[0].toLowerCase());
    if (l) found.add(l);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

function oneHot(labels: string[], chosen: string): RawAnswer {
  const probabilities: Record<string, number> = {};
  for (const l of labels) probabilities[l] = l === chosen ? 1 : 0;
  return { probabilities };
}

/** Only one question at a time on a terminal, whatever the run's concurrency. */
let ttyQueue: Promise<unknown> = Promise.resolve();

class Terminal {
  private readonly fd: number;
  private readonly input: Readable;
  private readonly lines: AsyncIterator<string>;

  constructor(path: string) {
    this.fd = openSync(path, "r+");
    this.input = isatty(this.fd) ? new TtyReadStream(this.fd) : createReadStream("", { fd: this.fd, autoClose: false });
    this.lines = createInterface({ input: this.input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  }

  write(text: string): void {
    writeSync(this.fd, text);
  }

  async readLine(signal: AbortSignal): Promise<string | null> {
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new DecisionFailure("host-failed", "D-20: cancelled while waiting for an answer at the terminal"));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const r = await Promise.race([this.lines.next(), aborted]);
      return r.done ? null : r.value;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  close(): void {
    this.input.destroy();
    if (!(this.input instanceof TtyReadStream)) {
      try {
        closeSync(this.fd);
      } catch {
        // closed with the stream
      }
    }
  }
}

/** The same failure, carrying also what was spent on the questions answered before it. */
function spentBefore(err: DecisionFailure, usage: Usage): DecisionFailure {
  return new DecisionFailure(err.code, err.message, { usage: sumUsage(usage, err.usage), cause: err.cause });
}

/** Waits `ms`, or until `signal` aborts (then throws `cancelled()`). */
async function waitOut(ms: number, signal: AbortSignal, cancelled: () => Error): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw cancelled();
  }
}

/** The host (D-20) as a provider: asks an agent runner or a person, one question at a time, and takes exactly one label. */
export class HostProvider implements Provider {
  readonly name: string;

  constructor(private readonly options: HostOptions) {
    if (!options.runner && !options.tty) throw new Error("createHostProvider needs a runner or tty: true");
    this.name = options.runner ? `host:${options.runner.name}` : "host:tty";
  }

  async ask(request: ProviderRequest): Promise<ProviderResponse> {
    const started = performance.now();
    const answers: Record<string, RawAnswer> = {};
    let usage: Usage | undefined;
    for (const q of request.questions) {
      let asked: { label: string; usage?: Usage };
      try {
        asked = this.options.runner ? await this.askRunner(this.options.runner, q, request) : { label: await this.askTty(q, request) };
      } catch (err) {
        // The questions answered before this one were paid for too: the failure carries it all.
        if (err instanceof DecisionFailure && usage) throw spentBefore(err, usage);
        throw err;
      }
      answers[q.id] = oneHot(q.labels, asked.label);
      usage = sumUsage(usage, asked.usage);
    }
    return { answers, usage: usage ?? null, latency_ms: Math.round(performance.now() - started) };
  }

  /**
   * A runner with a preset is started the way its tool runs non-interactively, in a
   * fresh folder of its own (it may write there, never in yours), and its reply is read from the
   * tool's own output format, with the tokens and cost it reports. A generic runner gets the
   * prompt on stdin in the current directory and its stdout is the reply. A tool's rate-limit
   * report is waited out and the question asked again (at most MAX_RATE_LIMITED_TRIES in a row);
   * a failure carries the usage the tool reported on every try.
   */
  private async askRunner(
    runner: AgentRunnerConfig,
    q: ResolvedQuestion,
    request: ProviderRequest,
  ): Promise<{ label: string; usage?: Usage }> {
    const prompt = renderHostPrompt(q, request);
    const preset = presetOf(runner);
    const scratch = preset.name === "generic" ? undefined : mkdtempSync(join(tmpdir(), "switchyard-host-"));
    const workspace = scratch ?? this.options.cwd ?? process.cwd();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...(scratch ? runnerEnv(runner) : runner.env),
      ...(this.options.env ?? {}),
      ...hostContextEnv(q, request, workspace),
    };
    for (const name of this.options.hideEnv ?? []) delete env[name];
    const timeout = this.options.timeout_ms ?? DEFAULT_RUNNER_TIMEOUT_MS;
    let reply = "";
    let usage: Usage | undefined;
    /** Every failure from here on carries what the tool reported so far (a failed call is paid for). */
    const failure = (code: string, message: string) => new DecisionFailure(code, message, { usage });
    let rateLimits = 0;
    try {
      // Two tries at a readable label; tries that met a rate limit are not counted.
      for (let attempt = 1; attempt <= 2;) {
        const input =
          attempt === 1
            ? prompt
            : `${prompt}\nYour previous reply could not be read as one label: '${excerpt(reply, 200)}'. Reply with exactly one of: ${q.labels.join(", ")}.\n`;
        const promptFile = join(scratch ?? tmpdir(), "prompt.txt");
        if (scratch) writeFileSync(promptFile, input);
        const call = scratch ? invocation(runner, "low", input, promptFile) : { argv: runner.command, promptOnStdin: true };
        const r = await runWithInput(call.argv, call.promptOnStdin ? input : "", timeout, request.signal, {
          env,
          cwd: workspace,
          ...(request.groups ? { groups: request.groups } : {}),
        });
        const who = `D-20: host runner '${runner.name}'${scratch ? ` (${preset.tool})` : ""} for question '${q.id}' (${where(request)})`;
        if (r.spawnError) throw failure("host-failed", `${who} could not start: ${r.spawnError.message}`);
        if (request.signal.aborted) throw failure("host-failed", `${who}: cancelled`);
        if (r.timedOut) throw failure("host-failed", `${who} gave no reply within ${timeout} ms`);
        // The tool's own report first: its error, in its words, with its exit status.
        const read = scratch
          ? readPresetOutput(runner, { stdout: r.stdout, stderr: r.stderr, exit: r.code }, who, { signal: r.signal })
          : undefined;
        usage = sumUsage(usage, read ? (read.ok ? read.report.usage : read.usage) : undefined);
        const limited = read && !read.ok ? read.toolError?.rateLimit : undefined;
        if (limited && rateLimits < MAX_RATE_LIMITED_TRIES) {
          // A rate limit is neither an answer nor a bad reply: wait as an agent turn would, then
          // ask the same question again.
          rateLimits += 1;
          await waitOut(rateLimitDelay(limited.delayMs, rateLimits), request.signal, () => failure("host-failed", `${who}: cancelled`));
          continue;
        }
        if (read && !read.ok)
          throw failure("host-failed", limited ? `${read.error} (rate limited ${rateLimits + 1} times in a row)` : read.error);
        if (r.code !== 0) {
          const err = excerpt(r.stderr, 300);
          throw failure(
            "host-failed",
            `${who} ${r.signal ? `was killed by ${r.signal}` : `exited with status ${r.code}`}${err ? `; stderr: ${err}` : ""}`,
          );
        }
        rateLimits = 0;
        reply = read?.ok ? read.report.reply : r.stdout;
        const label = parseHostReply(reply, q.labels);
        if (label) return { label, ...(usage ? { usage } : {}) };
        attempt += 1;
      }
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
    throw failure(
      "host-unparseable",
      `D-20: the host's reply to question '${q.id}' (${where(request)}) could not be read as one label of ${q.labels.join(", ")} after 2 tries; last reply: '${excerpt(reply, 200)}'`,
    );
  }

  private askTty(q: ResolvedQuestion, request: ProviderRequest): Promise<string> {
    const turn = ttyQueue.then(() => atTerminal(() => this.ttyDialogue(q, request)));
    ttyQueue = turn.catch(() => undefined);
    return turn;
  }

  private async ttyDialogue(q: ResolvedQuestion, request: ProviderRequest): Promise<string> {
    const path = this.options.ttyPath ?? "/dev/tty";
    let term: Terminal;
    try {
      term = new Terminal(path);
    } catch (e) {
      throw new DecisionFailure(
        "host-failed",
        `D-20: the host is tty but ${path} cannot be opened (${(e as Error).message}); run switchyard at a terminal or set [decisions] host to an agent runner`,
      );
    }
    try {
      const options = q.labels.map((l, i) => {
        const d = described(q.descriptions[l]);
        return `  ${i + 1}) ${l}${d ? ` — ${d}` : ""}`;
      });
      term.write(
        [
          "",
          `── switchyard needs a decision (${where(request)}) ──`,
          "State:",
          request.state_text,
          "",
          `Question '${q.id}': ${q.ask}`,
          ...options,
          `Answer with a label or its number (1–${q.labels.length}): `,
        ].join("\n"),
      );
      let reply: string | null = "";
      for (let attempt = 1; attempt <= 2; attempt++) {
        reply = await term.readLine(request.signal);
        if (reply === null) {
          throw new DecisionFailure("host-failed", `D-20: the terminal closed before question '${q.id}' (${where(request)}) was answered`);
        }
        const label = parseHostReply(reply, q.labels, true);
        if (label) {
          term.write(`→ ${label}\n`);
          return label;
        }
        if (attempt === 1)
          term.write(
            `'${excerpt(reply, 60)}' is not one of the labels. Answer with one of ${q.labels.join(", ")} or its number (1–${q.labels.length}): `,
          );
      }
      term.write("No answer could be read; this decision fails.\n");
      throw new DecisionFailure(
        "host-unparseable",
        `D-20: the answer to question '${q.id}' (${where(request)}) at the terminal could not be read as one label of ${q.labels.join(", ")} after 2 tries; last reply: '${excerpt(reply ?? "", 200)}'`,
      );
    } finally {
      term.close();
    }
  }
}
