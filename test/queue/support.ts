// Helpers for the workers-mode tests: the CLI as child processes — workers, a
// coordinator — against a fresh PostgreSQL database, and per-key records to compare runs by.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ShowJson } from "../../src/run/index.js";

export const BIN = resolve("bin/switchyard.js");

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A copy of examples/cve-triage (the pack and its machine config). */
export function triagePack(): { pack: string; config: string } {
  const pack = join(tempDir("sy-triage-"), "cve-triage");
  cpSync(resolve("examples/cve-triage"), pack, { recursive: true });
  return { pack, config: join(pack, "switchyard.toml") };
}

export interface WorkerProc {
  proc: ChildProcess;
  stateDir: string;
  exited: Promise<number | null>;
}

/** Starts `switchyard worker` in its own state folder; resolves once it has registered. */
export function startWorkerProc(url: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<WorkerProc> {
  const stateDir = tempDir("sy-w-");
  const proc = spawn(process.execPath, [BIN, "worker", "--store", url, "--state-dir", stateDir, ...args], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((res) => proc.on("exit", (code) => res(code)));
  return new Promise((res, rej) => {
    let err = "";
    proc.stderr!.setEncoding("utf8");
    const onData = (d: string) => {
      err += d;
      if (err.includes(" runs up to ")) {
        proc.stderr!.off("data", onData);
        proc.stderr!.resume();
        res({ proc, stateDir, exited });
      }
    };
    proc.stderr!.on("data", onData);
    void exited.then((code) => rej(new Error(`the worker exited (${code}) before it started: ${err}`)));
  });
}

export async function waitFor<T>(what: string, f: () => Promise<T | undefined>, ms = 30000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
}

/** `cli` without blocking this process: for a command that runs beside workers or another run. */
export function cliAsync(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", rej);
    child.on("close", (status) => res({ status, stdout, stderr }));
  });
}

export function lastJson<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split("\n").pop()!) as T;
}

/** Per task and key: status, output, error and gate label — what a run's records say, timing aside. */
export function records(shown: ShowJson): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [task, t] of Object.entries(shown.tasks)) {
    if (t.instances) {
      for (const [key, i] of Object.entries(t.instances))
        out[`${task}/${key}`] = { status: i.status, output: scrub(i.output), error: i.error, label: i.label };
    } else out[task] = { status: t.status, output: scrub(t.output), error: t.error ?? null, label: t.label };
  }
  return out;
}

/**
 * Leaves out what differs between two faithful runs: times, latencies, and the host audit of a
 * model decision, whose sample is drawn by a hash of the run id among others (decide/audit.ts), so
 * two runs audit different keys; and a decision's input_tokens, which the example's decider counts
 * from a prompt that carries upstream timings.
 */
function scrub(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(scrub);
  if (v && typeof v === "object") {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (/(_ms|_at|latency|elapsed|time)$/.test(k) || k === "audit" || k === "input_tokens") continue;
      o[k] = scrub(x);
    }
    return o;
  }
  return v;
}
