#!/usr/bin/env node
// Re-captures the recordings the fake agent CLIs replay (test/fixtures/real-agents/, issue 27):
// runs the REAL installed CLIs with switchyard's own preset argv (built by the compiled presets,
// so run `npx tsc -p .` first) against a local model server, and writes what each printed as
// TOOL-VERSION-CASE.{stdout,stderr,exit}.txt, with machine-specific paths replaced by $WORK,
// $TMPDIR, $AGENT_CLI_DIR and $HOME, so the files are the same on every machine.
//
//   node scripts/record-agent-samples.mjs --server http://127.0.0.1:PORT \
//     [--claude PATH] [--codex PATH] [--gemini PATH] [--out test/fixtures/real-agents] \
//     [--cases success,api-error-400,…] [--cli-dir DIR]
//
// The server is the conformance suite's (test/agents-real/, installed CLIs from
// scripts/install-agent-clis.mjs); this script only asks it for a CASE by the base URL it gives
// each tool: SERVER/case/CASE (Anthropic Messages at …/v1/messages, the OpenAI Responses API at
// …/v1/responses, the Gemini API at …/v1beta/models/M:streamGenerateContent), so one server
// process scripts every case by the path prefix. How each tool is pointed at it follows
// /work/shared/research/real-agents/README.md: private HOME / CODEX_HOME per call, telemetry and
// update checks off, API-key auth.
//
// Only the cases a tool has are recorded; a tool not given is skipped. Review the diff of
// test/fixtures/real-agents/ before committing it: the fakes' tests read figures off these files.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    server: { type: "string" },
    claude: { type: "string" },
    codex: { type: "string" },
    gemini: { type: "string" },
    out: { type: "string", default: "test/fixtures/real-agents" },
    cases: { type: "string" },
    "cli-dir": { type: "string" },
  },
});
if (!opt.server || !(opt.claude || opt.codex || opt.gemini)) {
  process.stderr.write(
    "usage: record-agent-samples.mjs --server URL [--claude PATH] [--codex PATH] [--gemini PATH] [--out DIR] [--cases A,B]\n",
  );
  process.exit(2);
}
const { invocation } = await import(resolve("dist/src/run/agents/presets/invocation.js"));
const { parseVersion } = await import(resolve("dist/src/run/agents/presets/versions.js"));

/** Per tool: the preset, the cases, and what a case changes (extra args, env, settings). */
const TOOLS = {
  claude: {
    preset: "claude-code",
    cases: {
      success: {},
      "error-max-turns": {},
      "api-error-400": {},
      "api-error-429": {},
      "permission-denied": {},
    },
  },
  codex: {
    preset: "codex",
    cases: {
      "success-shell": {},
      "success-apply-patch": {},
      "api-error-400": {},
      "api-error-500": {},
      "api-error-429": {},
      "preset-argv-rejected": { args: ["--full-auto"], server: "success-shell" },
    },
  },
  gemini: {
    preset: "gemini",
    cases: {
      success: {},
      "turn-limit": { settings: { model: { maxSessionTurns: 1 } } },
      "api-error-400": {},
      "api-error-429": {},
      "untrusted-folder": { env: { GEMINI_CLI_TRUST_WORKSPACE: "false" }, server: "success" },
    },
  },
};

const wanted = opt.cases ? new Set(opt.cases.split(",")) : undefined;
const work = realpathSync(mkdtempSync(join(tmpdir(), "record-agents-")));
const tmp = realpathSync(tmpdir());
const out = resolve(opt.out);
mkdirSync(out, { recursive: true });

/** The environment that points one tool at SERVER/case/CASE, in a private home. */
function envFor(tool, base, home, extra) {
  const env = { PATH: process.env.PATH, HOME: home, TMPDIR: tmp, NO_COLOR: "1", ...extra };
  if (tool === "claude")
    Object.assign(env, {
      ANTHROPIC_BASE_URL: base,
      ANTHROPIC_API_KEY: "recording",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
    });
  if (tool === "codex") {
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, "config.toml"),
      `model_provider = "local"\nmodel = "gpt-5-codex"\n[model_providers.local]\nname = "local"\nbase_url = "${base}/v1"\nenv_key = "LOCAL_KEY"\nwire_api = "responses"\n`,
    );
    Object.assign(env, { CODEX_HOME: codexHome, LOCAL_KEY: "recording" });
  }
  if (tool === "gemini") Object.assign(env, { GOOGLE_GEMINI_BASE_URL: base, GEMINI_API_KEY: "recording" });
  return env;
}

function normalise(text, cliDir) {
  let t = text.split(work).join("$WORK").split(tmp).join("$TMPDIR");
  if (cliDir) t = t.split(cliDir).join("$AGENT_CLI_DIR");
  return t;
}

for (const [tool, spec] of Object.entries(TOOLS)) {
  const bin = opt[tool];
  if (!bin) continue;
  const cliDir = opt["cli-dir"] ?? dirname(dirname(realpathSync(bin)));
  const v = spawnSync(bin, ["--version"], { encoding: "utf8" });
  const version = parseVersion(v.stdout ?? "")?.join(".");
  if (!version) throw new Error(`${bin} --version printed ${JSON.stringify(v.stdout + v.stderr)}`);
  for (const [name, c] of Object.entries(spec.cases)) {
    if (wanted && !wanted.has(name)) continue;
    const home = join(work, `home-${tool}-${name}`);
    const ws = join(work, `ws-${tool}-${name}`);
    mkdirSync(home, { recursive: true });
    mkdirSync(ws, { recursive: true });
    if (tool === "gemini") {
      mkdirSync(join(home, ".gemini"), { recursive: true });
      writeFileSync(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, ...(c.settings ?? {}) }, null, 2),
      );
    }
    const runner = { name: "rec", command: [bin], env: {}, preset: spec.preset, ...(c.args ? { args: c.args } : {}) };
    const prompt = "Write RESULT.json, then reply DONE.";
    const promptFile = join(work, `prompt-${tool}-${name}.txt`);
    writeFileSync(promptFile, prompt);
    const call = invocation(runner, "low", prompt, promptFile);
    const { PRESETS } = await import(resolve("dist/src/run/agents/presets/presets.js"));
    const env = envFor(tool, `${opt.server}/case/${c.server ?? name}`, home, { ...(PRESETS[spec.preset].env ?? {}), ...(c.env ?? {}) });
    const r = spawnSync(call.argv[0], call.argv.slice(1), {
      cwd: ws,
      env,
      input: call.promptOnStdin ? prompt : "",
      encoding: "utf8",
      timeout: 120_000,
    });
    const stem = join(out, `${tool}-${version}-${name}`);
    writeFileSync(`${stem}.stdout.txt`, normalise(r.stdout ?? "", cliDir));
    writeFileSync(`${stem}.stderr.txt`, normalise(r.stderr ?? "", cliDir));
    writeFileSync(`${stem}.exit.txt`, `${r.status ?? r.signal}\n`);
    process.stdout.write(`${tool} ${version} ${name}: exit ${r.status ?? r.signal}\n`);
  }
}
rmSync(work, { recursive: true, force: true });
