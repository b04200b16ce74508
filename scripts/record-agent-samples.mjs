#!/usr/bin/env node
// Re-captures the recordings the fake agent CLIs replay (test/fixtures/real-agents/) from the REAL
// installed CLIs, offline, in one command:
//
//   npm run record:agents [-- --latest] [--out DIR] [--tools claude-code,codex] [--cases success,api-error-400]
//
// Each case starts the conformance suite's own model server for the tool's wire API
// (test/support/*-server.ts, the scripted model of test/support/wire-model.ts) on 127.0.0.1, sets
// the tool up as the suite does (test/agents-real/homes.ts: a private HOME, telemetry and update
// checks off, API-key auth pointing at the server), runs it with switchyard's own preset argv and
// environment (the compiled presets: `npx tsc -p .` first, which `npm run record:agents` does) in
// a fresh working folder, and writes what it printed as TOOL-VERSION-CASE.{stdout,stderr,exit}.txt.
// Machine-specific text is replaced — the case's folder by $WORK (the tool runs in $WORK/ws), the
// tool's private home by $HOME, the temp folder by $TMPDIR, the tool's install folder by
// $AGENT_CLI_DIR, the server's port by PORT —
// so the files are the same on every machine. The CLIs are those of the manifest
// scripts/install-agent-clis.mjs wrote (pinned.json, or latest.json with --latest; run
// `node scripts/install-agent-clis.mjs [--latest]` first). Nothing leaves 127.0.0.1.
//
// Review the diff before committing: the fakes' tests read figures off these files, and a new
// tool version gives new file names (update RECORDED_VERSIONS and SUCCESS in test/support/fake-agent-output.ts).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    latest: { type: "boolean", default: false },
    out: { type: "string", default: "test/fixtures/real-agents" },
    tools: { type: "string" },
    cases: { type: "string" },
  },
});

const dist = (p) => import(resolve("dist", p));
const { invocation, runnerEnv } = await dist("src/run/agents/presets/invocation.js");
const { FACTS } = await dist("test/agents-real/conformance.js");
const { toolSetup } = await dist("test/agents-real/homes.js");
const { installedClis } = await dist("test/agents-real/clis.js");
const { defaultScript } = await dist("test/support/wire-model.js");
const { cacheDir, manifestPath } = await import("./install-agent-clis.mjs");

/**
 * Per tool: the file-name prefix and its cases. A case is the scripted model's behaviour (the
 * conformance suite's modes), plus what the run changes: extra args, environment, settings in the
 * tool's private home.
 */
const TOOLS = {
  "claude-code": {
    prefix: "claude",
    cases: {
      success: {},
      // The preset's own --max-turns 10.
      "error-max-turns": { script: { mode: "loop" } },
      "api-error-400": { script: { mode: "api-400" } },
      // The tool's own retries are off (homes.ts: CLAUDE_CODE_MAX_RETRIES=0): its report of the 429.
      "api-error-429": { script: { mode: "rate-limit", rateLimited: 1000 } },
      "permission-denied": { script: { mode: "refused" } },
    },
  },
  codex: {
    prefix: "codex",
    cases: {
      "success-shell": {},
      "api-error-400": { script: { mode: "api-400" } },
      "api-error-500": { script: { mode: "api-500" } },
      "api-error-429": { script: { mode: "rate-limit", rateLimited: 1000 } },
      "preset-argv-rejected": { args: ["--full-auto"] },
    },
  },
  gemini: {
    prefix: "gemini",
    cases: {
      success: {},
      "turn-limit": { script: { mode: "loop" }, settings: { model: { maxSessionTurns: 1 } } },
      "api-error-400": { script: { mode: "api-400" } },
      "api-error-429": { script: { mode: "rate-limit", rateLimited: 1000 } },
      "untrusted-folder": { env: { GEMINI_CLI_TRUST_WORKSPACE: "false" } },
    },
  },
  opencode: {
    prefix: "opencode",
    cases: {
      success: {},
      "api-error-400": { script: { mode: "api-400" } },
      "permission-rejected": { script: { mode: "refused" } },
    },
  },
  "qwen-code": {
    prefix: "qwen-code",
    cases: {
      success: {},
      "api-error-400": { script: { mode: "api-400" } },
      "turn-limit": { script: { mode: "loop" }, args: ["--max-session-turns", "3"] },
    },
  },
};

const PROMPT = "Write RESULT.json, then reply DONE.";

/** Runs argv to its end without blocking this process (the model server answers from it). */
function run(argv, { cwd, env, input }) {
  return new Promise((done) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", (e) => err.push(Buffer.from(String(e))));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), exit: code ?? signal });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/** Settings merged into the tool's settings file in its private home (Gemini CLI, Qwen Code). */
function mergeSettings(home, prefix, settings) {
  const file = join(home, prefix === "qwen-code" ? ".qwen" : ".gemini", "settings.json");
  const had = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, JSON.stringify({ ...had, ...settings }));
}

async function recordCase(cli, installed, prefix, name, c, out) {
  const work = realpathSync(mkdtempSync(join(tmpdir(), `record-${cli}-`)));
  const server = await FACTS[cli].server(defaultScript(c.script ?? {}));
  try {
    const setup = toolSetup(cli, server.url, work);
    if (c.settings) mergeSettings(setup.env.HOME, prefix, c.settings);
    const ws = join(work, "ws");
    mkdirSync(ws);
    const runner = {
      name: "rec",
      preset: cli,
      command: [installed.bin],
      args: [...setup.args, ...(c.args ?? [])],
      env: { ...setup.env, ...(c.env ?? {}) },
    };
    const promptFile = join(work, "prompt.txt");
    writeFileSync(promptFile, PROMPT);
    const call = invocation(runner, "low", PROMPT, promptFile);
    const env = { PATH: process.env.PATH, TMPDIR: tmpdir(), PWD: ws, ...runnerEnv(runner) };
    const r = await run(call.argv, { cwd: ws, env, input: call.promptOnStdin ? PROMPT : "" });
    const cliDir = dirname(dirname(dirname(installed.bin)));
    const port = new URL(server.url).port;
    const normalise = (text) =>
      text
        .split(setup.env.HOME)
        .join("$HOME")
        .split(work)
        .join("$WORK")
        .split(realpathSync(tmpdir()))
        .join("$TMPDIR")
        .split(cliDir)
        .join("$AGENT_CLI_DIR")
        .split(`127.0.0.1:${port}`)
        .join("127.0.0.1:PORT");
    const stem = join(out, `${prefix}-${installed.version}-${name}`);
    writeFileSync(`${stem}.stdout.txt`, normalise(r.stdout));
    writeFileSync(`${stem}.stderr.txt`, normalise(r.stderr));
    writeFileSync(`${stem}.exit.txt`, `${r.exit}\n`);
    return `${prefix} ${installed.version} ${name}: exit ${r.exit}, ${server.answered} answered, ${server.refused} refused`;
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const manifest = opt.latest ? manifestPath(true) : manifestPath(false);
process.env.SWITCHYARD_AGENT_CLIS_MANIFEST ??= manifest;
const clis = installedClis();
const wantedTools = opt.tools ? opt.tools.split(",") : Object.keys(TOOLS);
const wantedCases = opt.cases ? new Set(opt.cases.split(",")) : undefined;
for (const t of wantedTools) if (!TOOLS[t]) throw new Error(`unknown tool ${t}; known: ${Object.keys(TOOLS).join(", ")}`);
const out = resolve(opt.out);
mkdirSync(out, { recursive: true });
let failed = false;
for (const cli of wantedTools) {
  const installed = clis[cli];
  if (!installed) {
    process.stderr.write(
      `${cli}: not installed (${manifest} under ${cacheDir()}): run node scripts/install-agent-clis.mjs ${opt.latest ? "--latest " : ""}${cli}\n`,
    );
    failed = true;
    continue;
  }
  const { prefix, cases } = TOOLS[cli];
  for (const [name, c] of Object.entries(cases)) {
    if (wantedCases && !wantedCases.has(name)) continue;
    process.stdout.write(`${await recordCase(cli, installed, prefix, name, c, out)}\n`);
  }
}
process.exit(failed ? 1 : 0);
