// What the end-to-end tests share: a copy of the appendix pack (test/fixtures/packs/e2e-triage)
// with scripted tickets, the real CLI in a child process (asynchronously, so that test servers in
// this process keep answering), machine configs, the scripted agent/host's log, and per-key
// request counts on the decision test servers.

import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ShowJson } from "../../../src/run/index.js";
import type { RecordedRequest } from "../../support/scripted-server.js";
import { runCliInProcess } from "../../support/cli-in-process.js";
import { scriptedAgent } from "./agent-sh.js";

export const ROOT = process.cwd();
export const BIN = join(ROOT, "bin", "switchyard.js");
const FIXTURE = join(ROOT, "test", "fixtures", "packs", "e2e-triage");

/** The three model-decided questions of the appendix playbook, by route. */
export const QUESTION_OF: Record<string, string> = { match: "package", gate: "depth", judge: "supported" };
export const ROUTE_OF: Record<string, string> = { package: "match", depth: "gate", supported: "judge" };

export interface Staged {
  members: string[];
  facts: Record<string, unknown>;
  packages: Record<string, unknown>;
}

export interface Option {
  value: string;
  description: string;
}

export const PKG: Option[] = [
  { value: "p1", description: "golang.org/x/net 0.17.0" },
  { value: "p2", description: "golang.org/x/crypto 0.14.0" },
  { value: "none", description: "No shipped package matches this flaw" },
];

/** Staged tickets: every key gets facts and (unless given) the PKG options. */
export function tickets(keys: string[], packages: Record<string, unknown> = {}): Staged {
  const facts: Record<string, unknown> = {};
  const pk: Record<string, unknown> = {};
  for (const k of keys) {
    facts[k] = { cve: `CVE-${k}`, affected: `flaw in ticket ${k}` };
    pk[k] = Object.hasOwn(packages, k) ? packages[k] : PKG;
  }
  return { members: keys, facts, packages: pk };
}

export class E2E {
  readonly dir: string;
  readonly pack: string;
  readonly state: string;
  readonly log: string;
  readonly hostAnswers: string;

  constructor(staged: Staged, prefix = "sy-e2e-") {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.pack = join(this.dir, "pack");
    cpSync(FIXTURE, this.pack, { recursive: true });
    writeFileSync(join(this.pack, "tickets.json"), JSON.stringify(staged));
    this.state = join(this.dir, "state");
    this.log = join(this.dir, "agent.log");
    this.hostAnswers = join(this.dir, "host.json");
  }

  /** Writes the machine config (with the scripted agent as `[agents.default]`, the host). */
  config(body: string): string {
    const p = join(this.dir, "config.toml");
    writeFileSync(
      p,
      `[agents.default]\ncommand = ${JSON.stringify(scriptedAgent(this.dir))}\n\n${body}\n` +
        (/^\[decisions\]/m.test(body) ? "" : `[decisions]\nhost = "default"\n`),
    );
    return p;
  }

  /** The host's scripted answers: {TASK: {KEY: LABEL}}. */
  host(answers: Record<string, Record<string, string>>): void {
    writeFileSync(this.hostAnswers, JSON.stringify(answers));
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { E2E_LOG: this.log, E2E_HOST: this.hostAnswers, XDG_CONFIG_HOME: join(this.dir, "xdg"), ...extra };
  }

  /** `switchyard ARGS --state-dir STATE` in a child process. */
  sy(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return cli([...args, "--state-dir", this.state], { cwd: this.dir, env: this.env(env) });
  }

  /** Starts `switchyard ARGS` without waiting (to kill it). */
  start(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
    return startCli([...args, "--state-dir", this.state], { cwd: this.dir, env: this.env(env) });
  }

  /**
   * `switchyard ARGS --state-dir STATE` in this process (test/support/cli-in-process.ts), in the
   * same folder and environment as sy(): for the commands that only read what a run left (show,
   * lab) or refuse before running anything, which are not about processes.
   */
  async here(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const r = await runCliInProcess([...args, "--state-dir", this.state], { cwd: this.dir, env: { ...process.env, ...this.env(env) } });
    return { code: r.code, signal: null, out: r.stdout, err: r.stderr };
  }

  async show(run = "latest"): Promise<ShowJson & { receipts?: ReceiptRow[] }> {
    const r = await this.here(["show", run, "--json", "--receipts"]);
    if (r.code !== 0) throw new Error(`show failed (${r.code}): ${r.err}`);
    return JSON.parse(r.out) as ShowJson & { receipts?: ReceiptRow[] };
  }

  /** Lines the scripted agent/host logged: "host TASK[KEY]" and "turn TASK[KEY] EFFORT". */
  agentLog(): string[] {
    return existsSync(this.log) ? readFileSync(this.log, "utf8").split("\n").filter(Boolean) : [];
  }

  hostCalls(): string[] {
    return this.agentLog().filter((l) => l.startsWith("host "));
  }

  turns(): string[] {
    return this.agentLog()
      .filter((l) => l.startsWith("turn "))
      .map((l) => l.slice(5))
      .sort();
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface ReceiptRow {
  task: string;
  question: string;
  type: string;
  key: string | null;
  provider: string;
  model: string;
  reason: string;
  time: string;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export function startCli(
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): { child: ChildProcess; done: Promise<CliResult> } {
  mkdirSync(opts.cwd, { recursive: true });
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const done = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, out, err })));
  return { child, done };
}

export function cli(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return startCli(args, opts).done;
}

/** Requests per "QUESTION:KEY" seen by a System One server (state.key; question ids). */
export function systemOneCounts(requests: RecordedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const b = r.body as { state?: { key?: string }; questions?: Record<string, unknown> } | undefined;
    for (const q of Object.keys(b?.questions ?? {})) {
      const k = `${q}:${b?.state?.key}`;
      out[k] = (out[k] ?? 0) + 1;
    }
  }
  return out;
}

/** Requests per "QUESTION:KEY" seen by a Decisions server (input is the state's JSON text). */
export function decisionsCounts(requests: RecordedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const b = r.body as { input?: string; questions?: { name?: string }[] } | undefined;
    let key: string | undefined;
    try {
      key = (JSON.parse(b?.input ?? "null") as { key?: string } | null)?.key;
    } catch {
      key = undefined;
    }
    for (const q of b?.questions ?? []) {
      const k = `${q.name}:${key}`;
      out[k] = (out[k] ?? 0) + 1;
    }
  }
  return out;
}

/** Label per key of a mapped route's question, from show --json. */
export function labels(show: ShowJson, route: string): Record<string, string> {
  const q = QUESTION_OF[route]!;
  const out: Record<string, string> = {};
  for (const [k, i] of Object.entries(show.tasks[route]!.instances ?? {})) {
    if (i.status === "passed") out[k] = (i.output as Record<string, { label: string }>)[q]!.label;
  }
  return out;
}

/** Status per key of a mapped task, with the closing label for not_taken ("not_taken:settled"). */
export function rows(show: ShowJson, task: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, i] of Object.entries(show.tasks[task]!.instances ?? {}))
    out[k] = i.status === "not_taken" && i.label ? `not_taken:${i.label}` : i.status;
  return out;
}

/** Waits until `check` returns true (polling), or fails after `ms`. */
export async function until(what: string, check: () => boolean, ms = 20000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
