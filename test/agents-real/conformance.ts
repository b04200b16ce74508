// The conformance suite against the real agent CLIs: each case is a real pack run by the
// switchyard CLI (`switchyard run PACK --config CONFIG`) whose machine config names the installed
// tool with its preset; the tool talks to the project's own model server on 127.0.0.1 in its
// vendor's wire format (test/support/*-server.ts) and the scripted model (wire-model.ts) makes it
// call its own write tool, answer, and report known token counts. What switchyard records (the
// reply, turns, tokens, cost, the worktree patch, the decision, the error) is checked against
// figures computed by hand from those counts and the published prices.
//
// One test file per tool (claude-code.test.ts, …) calls conformanceSuite(); a tool that is not
// installed is skipped, saying so (scripts/install-agent-clis.mjs installs them).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SqliteStore } from "../../src/run/index.js";
import { foldEvents } from "../../src/run/engine/fold-events.js";
import type { Usage } from "../../src/run/kinds/judge.js";
import { startAnthropicServer } from "../support/anthropic-wire-server.js";
import { startGeminiServer } from "../support/gemini-wire-server.js";
import { startOpenAIChatServer } from "../support/openai-chat-server.js";
import { startOpenAIResponsesServer } from "../support/openai-responses-server.js";
import { ERROR_MESSAGE, PER_REQUEST, defaultScript, type ModelScript, type WireServer } from "../support/wire-model.js";
import { installedClis, type AgentCli } from "./clis.js";
import { API_KEY, toolSetup } from "./homes.js";

const BIN = resolve("bin/switchyard.js");

export const CASES = [
  "scratch",
  "worktree",
  "host decision",
  "200 KB prompt",
  "turn limit",
  "API 400",
  "API 500",
  "429 rate limit",
  "refused tool",
  "host spends, then fails",
  "host 429 rate limit",
] as const;
export type Case = (typeof CASES)[number];

interface Facts {
  tool: string;
  server: (s: ModelScript) => Promise<WireServer>;
  /** Output tokens recorded per answered request (reasoning counted where the tool bills it). */
  output: number;
  /** The turns a write-then-answer turn reports. */
  turns: number;
  /** cost_usd of one answered request: the tool's own figure, or the price table's. */
  costPerRequest: number;
  /** The runner's price table (tools that report no cost). */
  price?: string;
  /** User args (or settings) making the tool stop after a few turns; undefined: the tool has none. */
  turnLimit?: { args?: string[]; settings?: (home: string) => void };
  /** The text of the tool's turn-limit report. */
  turnLimitText?: RegExp;
}

// Price tables for the tools that report tokens only: $/Mtok.
const PRICE = "price = { input_per_mtok = 1.25, cached_input_per_mtok = 0.125, output_per_mtok = 10.0 }";
const PRICED =
  ((PER_REQUEST.input - PER_REQUEST.cached) * 1.25 + PER_REQUEST.cached * 0.125 + (PER_REQUEST.output + PER_REQUEST.reasoning) * 10) / 1e6;

export const FACTS: Record<AgentCli, Facts> = {
  "claude-code": {
    tool: "Claude Code",
    server: startAnthropicServer,
    output: PER_REQUEST.output,
    turns: 2,
    // Claude Code's own figure for claude-sonnet-4-5 at Anthropic's published prices: $3 / Mtok
    // input, $0.30 cache reads, $15 output.
    costPerRequest: ((PER_REQUEST.input - PER_REQUEST.cached) * 3 + PER_REQUEST.cached * 0.3 + PER_REQUEST.output * 15) / 1e6,
    turnLimit: { args: ["--max-turns", "2"] },
    turnLimitText: /maximum number of turns/i,
  },
  codex: {
    tool: "Codex CLI",
    server: startOpenAIResponsesServer,
    output: PER_REQUEST.output + PER_REQUEST.reasoning,
    turns: 1,
    costPerRequest: PRICED,
    price: PRICE,
  },
  gemini: {
    tool: "Gemini CLI",
    server: startGeminiServer,
    // Gemini bills thoughts as output.
    output: PER_REQUEST.output + PER_REQUEST.reasoning,
    turns: 2,
    costPerRequest: PRICED,
    price: PRICE,
    turnLimit: {
      settings: (home) => {
        const p = join(home, ".gemini", "settings.json");
        const s = JSON.parse(readFileSync(p, "utf8")) as Record<string, unknown>;
        writeFileSync(p, JSON.stringify({ ...s, model: { maxSessionTurns: 2 } }));
      },
    },
    turnLimitText: /max session turns/i,
  },
  opencode: {
    tool: "opencode",
    server: startOpenAIChatServer,
    output: PER_REQUEST.output + PER_REQUEST.reasoning,
    turns: 2,
    costPerRequest: PRICED,
    price: PRICE,
  },
  "qwen-code": {
    tool: "Qwen Code",
    server: startOpenAIChatServer,
    output: PER_REQUEST.output + PER_REQUEST.reasoning,
    turns: 2,
    costPerRequest: PRICED,
    price: PRICE,
    turnLimit: { args: ["--max-session-turns", "2"] },
    turnLimitText: /max session turns/i,
  },
};

interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  run: string | undefined;
  state: string;
}

/**
 * Runs the switchyard CLI from `cwd` without blocking this process (the model server answers from
 * it). PWD is `cwd`, as a shell would set it: a tool that works where switchyard was started
 * instead of in its workspace shows as files in `cwd`.
 */
function switchyard(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...env, PWD: cwd }, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => ok({ status, stdout, stderr }));
  });
}

const toml = (s: string) => JSON.stringify(s);
const tomlList = (xs: string[]) => `[${xs.map(toml).join(", ")}]`;
const tomlTable = (o: Record<string, string>) =>
  `{ ${Object.entries(o)
    .map(([k, v]) => `${k} = ${toml(v)}`)
    .join(", ")} }`;

interface Setup {
  dir: string;
  server: WireServer;
  /** A folder outside every workspace and temp folder a tool may write to. */
  outside: string;
  /** Where switchyard is started from: a tool must leave it empty. */
  launch: string;
  run(
    star: string,
    opts?: { repo?: string; extraArgs?: string[]; settings?: (home: string) => void; decisions?: boolean },
  ): Promise<RunResult>;
}

/**
 * Where the runs live: never inside this checkout (the tests' TMPDIR usually is), so that a tool
 * escaping its workspace cannot touch the checkout.
 */
function runsBase(): string {
  const t = resolve(tmpdir());
  return t.startsWith(resolve(".") + "/") ? "/tmp" : t;
}

/**
 * Where the refused command aims: not under /tmp or TMPDIR, which Codex's workspace-write sandbox
 * lets a command write to (and a checkout may itself be under /tmp, as CI's clone can be): the
 * user's cache folder, else the checkout's .tmp.
 */
function outsideBase(): string {
  const writable = ["/tmp", resolve(tmpdir())];
  const cache = join(homedir(), ".cache");
  const base = writable.some((w) => cache === w || cache.startsWith(w + "/")) ? resolve(".tmp") : cache;
  mkdirSync(base, { recursive: true });
  return base;
}

async function setUp(cli: AgentCli, bin: string, script: ModelScript): Promise<Setup> {
  const dir = mkdtempSync(join(runsBase(), `sy-real-${cli}-`));
  const outside = mkdtempSync(join(outsideBase(), `agents-real-outside-${cli}-`));
  const server = await FACTS[cli].server(script);
  const launch = join(dir, "launch");
  mkdirSync(launch);
  return {
    dir,
    server,
    outside,
    launch,
    async run(star, opts = {}) {
      const setup = toolSetup(cli, server.url, dir);
      opts.settings?.(setup.env.HOME!);
      const pack = join(dir, "pack");
      mkdirSync(pack, { recursive: true });
      writeFileSync(join(pack, "main.star"), star);
      const config = join(dir, "config.toml");
      const f = FACTS[cli];
      writeFileSync(
        config,
        [
          "[agents.coder]",
          `preset = ${toml(cli)}`,
          `command = ${tomlList([bin])}`,
          `args = ${tomlList([...setup.args, ...(opts.extraArgs ?? [])])}`,
          `env = ${tomlTable(setup.env)}`,
          f.price ?? "",
          ...(opts.decisions ? ["", "[decisions]", 'default = "host"', 'host = "coder"'] : []),
          "",
        ].join("\n"),
      );
      const state = join(dir, "state");
      const args = ["run", pack, "--state-dir", state, "--config", config, ...(opts.repo ? ["--repo", opts.repo] : [])];
      const r = await switchyard(args, { ...process.env, XDG_CONFIG_HOME: join(dir, "no-xdg"), NO_COLOR: "1" }, launch);
      return { ...r, run: /^run (\S+):/m.exec(r.stdout)?.[1], state };
    },
  };
}

interface Recorded {
  status: string;
  output?: Record<string, unknown>;
  error?: string;
  /** Everything charged to the instance: every attempt's usage summed. */
  usage: Usage;
  attempts: number;
}

function recorded(state: string, run: string, task: string): Recorded {
  const store = new SqliteStore(state);
  try {
    const usage: Usage = {};
    let attempts = 0;
    let last: Recorded | undefined;
    for (const e of store.events(run)) {
      if (e.task !== task) continue;
      const p = e.payload as { usage?: Usage; status?: string; output?: unknown; error?: string };
      if (e.type === "instance_finished" || e.type === "instance_retried" || e.type === "instance_interrupted") {
        attempts += 1;
        for (const [k, v] of Object.entries(p.usage ?? {})) usage[k as keyof Usage] = (usage[k as keyof Usage] ?? 0) + v;
      }
      if (e.type === "instance_finished")
        last = { status: p.status!, output: p.output as Record<string, unknown>, ...(p.error ? { error: p.error } : {}), usage, attempts };
    }
    assert.ok(last, `no instance_finished for ${task}`);
    return { ...last, usage, attempts };
  } finally {
    store.close();
  }
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

function assertUsage(cli: AgentCli, u: Usage, requests: number, why: string): void {
  const f = FACTS[cli];
  assert.deepEqual(
    { input: u.input_tokens, cached: u.cached_input_tokens, output: u.output_tokens },
    { input: requests * PER_REQUEST.input, cached: requests * PER_REQUEST.cached, output: requests * f.output },
    `${why}: the tokens of ${requests} answered requests`,
  );
  assert.ok(
    u.cost_usd !== undefined && close(u.cost_usd, requests * f.costPerRequest),
    `${why}: cost ${u.cost_usd} where ${requests * f.costPerRequest} was expected`,
  );
}

/** A route over one element answered by the host (the runner under test), gating a command. */
const HOST_STAR = `playbook(description = "conformance host")
prepare = command(name = "prepare", run = """printf '%s' '{"members": ["a"]}' > "$SWITCHYARD_OUTPUT" """, emits = {"members": "list"})
gate = route(name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 10,
    questions = {"exploitable": noul(ask = "Exploitable?", drop = ["no", "uncertain"])})
after = command(name = "after", depends_on = [prepare, gate], over = prepare.members, max_fanout = 10,
    when = gate.exploitable, answers = "yes", run = "true")
`;

const agentTask = (prompt: string, extra = "") =>
  `playbook(description = "conformance")\nwork = agent(name = "work", runner = "coder", retries = 0, prompt = ${JSON.stringify(prompt)}${extra})\n`;

function gitRepo(dir: string): string {
  const repo = join(dir, "repo");
  mkdirSync(repo, { recursive: true });
  const git = (...a: string[]) => {
    const r = spawnSync("git", a, { cwd: repo, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
  };
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README.md"), "a repository\n");
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  return repo;
}

function scriptFor(c: Case): ModelScript {
  switch (c) {
    case "host decision":
      return defaultScript({ reply: "yes" });
    case "turn limit":
      return defaultScript({ mode: "loop" });
    case "API 400":
      return defaultScript({ mode: "api-400" });
    case "API 500":
      return defaultScript({ mode: "api-500" });
    case "429 rate limit":
      return defaultScript({ mode: "rate-limit", rateLimited: 1 });
    case "host 429 rate limit":
      return defaultScript({ mode: "rate-limit", rateLimited: 1, reply: "yes" });
    case "host spends, then fails":
      return defaultScript({ mode: "loop" });
    case "refused tool":
      return defaultScript({ mode: "refused" });
    default:
      return defaultScript();
  }
}

async function runCase(cli: AgentCli, bin: string, c: Case): Promise<void> {
  const f = FACTS[cli];
  const script = scriptFor(c);
  const s = await setUp(cli, bin, script);
  const show = (r: RunResult) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;
  try {
    if (c === "scratch" || c === "429 rate limit") {
      const r = await s.run(agentTask("Write RESULT.json, then say DONE."));
      assert.ok(r.run, show(r));
      const rec = recorded(r.state, r.run, "work");
      assert.equal(rec.status, "passed", `${rec.error ?? ""}\n${show(r)}`);
      assert.equal(rec.output?.reply, script.reply);
      assert.equal(rec.output?.turns, f.turns);
      assert.equal(s.server.answered, 2, "one request for the write, one for the answer");
      if (c === "429 rate limit") assert.ok(s.server.refused >= 1, "the rate limit was met");
      assertUsage(cli, rec.usage, s.server.answered, c);
      assert.equal(r.status, 0, show(r));
    } else if (c === "worktree") {
      const repo = gitRepo(s.dir);
      const r = await s.run(agentTask("Write RESULT.json, then say DONE.", `, workspace = "worktree"`), { repo });
      assert.ok(r.run, show(r));
      const rec = recorded(r.state, r.run, "work");
      assert.equal(rec.status, "passed", `${rec.error ?? ""}\n${show(r)}`);
      assert.deepEqual(rec.output?.files_changed, [script.file]);
      const patch = readFileSync(String(rec.output?.patch), "utf8");
      assert.ok(patch.includes(`+++ b/${script.file}`) && patch.includes(`+${script.content.trim()}`), patch);
      assert.ok(!existsSync(join(repo, script.file)), "your checkout is never touched");
      assertUsage(cli, rec.usage, s.server.answered, c);
    } else if (c === "host decision" || c === "host 429 rate limit") {
      const r = await s.run(HOST_STAR, { decisions: true });
      assert.equal(r.status, 0, show(r));
      if (c === "host 429 rate limit") assert.ok(s.server.refused >= 1, "the rate limit was met");
      const store = new SqliteStore(r.state);
      try {
        const records = [...store.events(r.run!)]
          .filter((e) => e.type === "decision_recorded")
          .map((e) => (e.payload as { record: Record<string, { label?: string; provider?: string; usage?: Usage }> }).record.exploitable!);
        assert.equal(records.length, 1, "asked once, recorded once");
        assert.equal(records[0]!.label, "yes");
        assert.equal(records[0]!.provider, "host");
        assertUsage(cli, records[0]!.usage ?? {}, s.server.answered, c);
        // The host's cost is charged to the run (budget_usd).
        assert.ok(close(foldEvents(store, r.run!).spentUsd, s.server.answered * f.costPerRequest), "the host's cost is charged");
      } finally {
        store.close();
      }
    } else if (c === "host spends, then fails") {
      if (!f.turnLimit) return;
      const r = await s.run(HOST_STAR, { decisions: true, extraArgs: f.turnLimit.args, settings: f.turnLimit.settings });
      assert.ok(r.run, show(r));
      assert.notEqual(r.status, 0, show(r));
      assert.ok(s.server.answered >= 1, "the host spent tokens before it failed");
      const rec = recorded(r.state, r.run, "gate");
      assert.equal(rec.status, "failed");
      assert.match(rec.error ?? "", /host-failed/, rec.error);
      assert.ok(rec.error!.includes(f.tool), rec.error);
      assert.match(rec.error!, f.turnLimitText!);
      // Only Claude Code reports what the stopped turn cost: recorded with the failed decision and
      // charged to the run.
      if (cli === "claude-code") {
        assertUsage(cli, rec.usage, s.server.answered, c);
        const store = new SqliteStore(r.state);
        try {
          assert.ok(close(foldEvents(store, r.run).spentUsd, s.server.answered * f.costPerRequest), "the failed call is charged");
        } finally {
          store.close();
        }
      }
    } else if (c === "200 KB prompt") {
      const filler = Array.from({ length: 2600 }, (_, i) => `line ${String(i).padStart(5, "0")}: ${"x".repeat(68)}`).join("\n");
      const prompt = `Write RESULT.json, then say DONE.\n${filler}\nEND OF THE LONG PROMPT`;
      assert.ok(Buffer.byteLength(prompt) > 200 * 1024);
      const r = await s.run(agentTask(prompt));
      assert.ok(r.run, show(r));
      const rec = recorded(r.state, r.run, "work");
      assert.equal(rec.status, "passed", `${rec.error ?? ""}\n${show(r)}`);
      assert.ok(
        s.server.requests.some((q) => q.text.includes("END OF THE LONG PROMPT") && q.text.includes("line 02599")),
        "the whole prompt reached the model",
      );
      assertUsage(cli, rec.usage, s.server.answered, c);
    } else if (c === "turn limit") {
      if (!f.turnLimit) return;
      const r = await s.run(agentTask("Write RESULT.json again and again."), {
        extraArgs: f.turnLimit.args,
        settings: f.turnLimit.settings,
      });
      assert.ok(r.run, show(r));
      const rec = recorded(r.state, r.run, "work");
      assert.equal(rec.status, "failed");
      assert.match(rec.error ?? "", /agent-output-invalid/, rec.error);
      assert.ok(rec.error!.includes(f.tool), rec.error);
      assert.match(rec.error!, f.turnLimitText!);
      // Only Claude Code reports what the stopped turn cost.
      if (cli === "claude-code") assertUsage(cli, rec.usage, s.server.answered, c);
    } else if (c === "API 400" || c === "API 500") {
      const status = c === "API 400" ? 400 : 500;
      const r = await s.run(agentTask("Write RESULT.json, then say DONE."));
      assert.ok(r.run, show(r));
      const rec = recorded(r.state, r.run, "work");
      assert.equal(rec.status, "failed");
      assert.equal(s.server.answered, 0);
      assert.ok(s.server.refused >= 1);
      assert.match(rec.error ?? "", /agent-output-invalid/, rec.error);
      assert.ok(rec.error!.includes(f.tool), rec.error);
      // Codex words a 5xx its own way ("high demand"); every tool passes a 400's message on.
      if (status === 400 || cli !== "codex")
        assert.ok(rec.error!.includes(ERROR_MESSAGE(status)) || rec.error!.includes(String(status)), rec.error);
      assert.ok(!rec.error!.includes(API_KEY));
    } else if (c === "refused tool") {
      const repo = gitRepo(s.dir);
      const target = join(s.outside, "refused.txt");
      script.refusedCommand = `printf refused > ${target} && printf refused > refused.txt`;
      const r = await s.run(agentTask("Run the command, then say DONE.", `, workspace = "worktree"`), { repo });
      assert.ok(r.run, show(r));
      const rec = recorded(r.state, r.run, "work");
      assert.ok(!existsSync(target), "the refused command did not run");
      assert.equal(rec.status, "passed", `${rec.error ?? ""}\n${show(r)}`);
      assert.deepEqual(rec.output?.files_changed ?? [], [], "nothing changed in the worktree");
      assertUsage(cli, rec.usage, s.server.answered, c);
    }
    assert.deepEqual(readdirSync(s.launch), [], "the tool wrote nothing where switchyard was started");
  } finally {
    await s.server.close();
    // SWITCHYARD_AGENTS_REAL_KEEP=1 keeps a case's folder (the tool's stdout, the state) to look at.
    if (process.env.SWITCHYARD_AGENTS_REAL_KEEP) process.stdout.write(`# kept ${s.dir}\n`);
    else rmSync(s.dir, { recursive: true, force: true });
    rmSync(s.outside, { recursive: true, force: true });
  }
}

/** The suite for one tool: every case, or one skipped test saying why. */
export function conformanceSuite(cli: AgentCli): void {
  const installed = installedClis()[cli];
  if (!installed) {
    test(
      `${cli}: the real CLI against the local model server`,
      { skip: `not installed: run node scripts/install-agent-clis.mjs ${cli}` },
      () => {},
    );
    return;
  }
  for (const c of CASES) {
    const skip =
      (c === "turn limit" || c === "host spends, then fails") && !FACTS[cli].turnLimit
        ? `${FACTS[cli].tool} has no turn limit a run can set`
        : false;
    test(`real ${installed.package}@${installed.version} through the ${cli} preset: ${c}`, { skip, timeout: 240_000 }, () =>
      runCase(cli, installed.bin, c),
    );
  }
}
