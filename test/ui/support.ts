// What the web view's tests share: the CVE triage example run into a fresh state folder (with a
// provider key in the environment, named by the machine config, which no page may show), and a
// real `switchyard ui` child process serving a state folder.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { ShowJson } from "../../src/run/index.js";

export const BIN = resolve("bin/switchyard.js");
export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** A provider key that must never reach a page or an API response. */
export const SECRET = "sk-switchyard-ui-test-7f3a9c1e5b";
export const KEY_ENV = "SWITCHYARD_UI_TEST_KEY";

export interface Triage {
  dir: string;
  state: string;
  run: string;
  shown: ShowJson;
}

/** Runs examples/cve-triage (40 tickets) with a config that also names a keyed provider. */
export function runTriage(): Triage {
  const dir = mkdtempSync(join(tmpdir(), "sy-ui-"));
  const pack = join(dir, "cve-triage");
  cpSync(resolve("examples/cve-triage"), pack, { recursive: true });
  const config = join(pack, "switchyard.toml");
  writeFileSync(
    config,
    readFileSync(config, "utf8") +
      `\n[providers.keyed]\nkind = "openai"\nvendor = "openai"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "${KEY_ENV}"\nmodels = ["m"]\ncontext_window = { m = 32000 }\n`,
  );
  const state = join(dir, "state");
  const env = { ...process.env, [KEY_ENV]: SECRET };
  const r = spawnSync(process.execPath, [BIN, "run", pack, "--config", config, "--state-dir", state, "--json"], { encoding: "utf8", env });
  if (r.status !== 0) throw new Error(`the triage run failed: ${r.stderr}`);
  const summary = JSON.parse(r.stdout.trim().split("\n").pop()!) as { run: string };
  const show = spawnSync(process.execPath, [BIN, "show", summary.run, "--json", "--state-dir", state], { encoding: "utf8" });
  return { dir, state, run: summary.run, shown: JSON.parse(show.stdout) as ShowJson };
}

export interface Ui {
  /** The address without the write token: what the read-only tests build paths on. */
  url: string;
  /** The address as printed, with `#token=…`. */
  printed: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `switchyard ui --port 0` over a state folder and waits for the URL it prints. */
export async function startUi(state: string): Promise<Ui> {
  const child = spawn(process.execPath, [BIN, "ui", "--port", "0", "--state-dir", state], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, [KEY_ENV]: SECRET },
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const printed = await new Promise<string>((done, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (l) => done(l.trim()));
    child.once("exit", (code) => fail(new Error(`switchyard ui exited ${code}: ${stderr}`)));
  });
  return {
    url: printed.replace(/#.*$/, ""),
    printed,
    child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGINT");
      }),
  };
}

export async function get(url: string, init: RequestInit = {}): Promise<{ status: number; text: string; type: string }> {
  const r = await fetch(url, init);
  return { status: r.status, text: await r.text(), type: r.headers.get("content-type") ?? "" };
}
