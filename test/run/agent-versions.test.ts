// Version awareness: `run` reads each preset runner's `--version` once (fake CLIs print
// the version of their recordings, or FAKE_AGENT_VERSION, in the tool's own format), records it
// in plan_admitted, refuses a version known not to work naming the range and the fix (nothing
// admitted), and warns on one newer than the verified range. Through the real CLI.
// One store is enough: the agent CLIs' version formats and the refusals before anything runs are the
// subject; the version is a field of plan_admitted, stored like every other field.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeAgentBin } from "../support/fake-agent-bin.js";
import { storeEnv, storeIn } from "../support/test-store.js";
import { compareVersions, parseVersion } from "../../src/run/agents/presets/versions.js";

const BIN = resolve("bin/switchyard.js");
const dir = mkdtempSync(join(tmpdir(), "sy-agent-versions-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const PATH = `${fakeAgentBin(dir, ["codex", "gemini"])}:${process.env.PATH}`;

const pack = join(dir, "pack");
mkdirSync(pack);
writeFileSync(
  join(pack, "main.star"),
  `playbook(description = "versions fixture")
a = agent(name = "a", runner = "cx", prompt = "WRITE a.txt")
b = agent(name = "b", runner = "gm", prompt = "WRITE b.txt")
`,
);

function run(name: string, config: string) {
  const configFile = join(dir, `${name}.toml`);
  writeFileSync(configFile, config);
  const state = join(dir, `state-${name}`);
  const log = join(dir, `${name}.calls.jsonl`);
  const r = spawnSync(process.execPath, [BIN, "run", pack, "--state-dir", state, "--config", configFile], {
    encoding: "utf8",
    env: { ...process.env, ...storeEnv(state), PATH, XDG_CONFIG_HOME: join(dir, "no-xdg"), FAKE_AGENT_LOG: log },
  });
  const id = /^run (\S+):/m.exec(r.stdout)?.[1];
  let versions: unknown;
  if (id) {
    const store = storeIn(state);
    try {
      const first = [...store.events(id)][0]!;
      versions = (first.payload as { agent_versions?: unknown }).agent_versions;
    } finally {
      store.close();
    }
  }
  let calls = 0;
  try {
    calls = readFileSync(log, "utf8").trim().split("\n").length;
  } catch {
    // no turn ran
  }
  return { code: r.status, stderr: r.stderr, id, versions, calls };
}

test("versions are compared as numbers (0.99.0 < 0.145.0 < 0.171.0), from the tools' own formats", () => {
  assert.deepEqual(parseVersion("codex-cli 0.171.0"), [0, 171, 0]);
  assert.deepEqual(parseVersion("2.1.197 (Claude Code)"), [2, 1, 197]);
  assert.ok(compareVersions("0.99.0", "0.145.0") < 0);
  assert.ok(compareVersions("0.171.0", "0.145.0") > 0);
  assert.equal(compareVersions("0.145.0", "0.145.0"), 0);
});

test("each preset runner's version is read once and recorded with the run; verified versions pass without a warning", () => {
  const r = run("verified", `[agents.cx]\npreset = "codex"\n[agents.gm]\npreset = "gemini"\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.versions, { cx: "0.171.0", gm: "0.61.0" });
  assert.doesNotMatch(r.stderr, /verified with/);
});

test("Codex older than 0.145.0 is refused before anything runs, naming the range and the fix; exactly 0.145.0 is accepted", () => {
  const old = run("old", `[agents.cx]\npreset = "codex"\nenv = { FAKE_AGENT_VERSION = "0.144.9" }\n[agents.gm]\npreset = "gemini"\n`);
  assert.equal(old.code, 2, old.stderr);
  assert.equal(old.id, undefined, "no run admitted");
  assert.equal(old.calls, 0);
  assert.match(
    old.stderr,
    /error\[agent-preflight\].*\n.*agent runner "cx" \(Codex CLI 0\.144\.9\) is older than 0\.145\.0, the oldest version the codex preset works with \(.*verified with 0\.145\.0–0\.171\.0\); upgrade Codex CLI, or set command = \["\/path\/to\/codex"\] in \[agents\.cx\] to a newer one/,
  );
  const edge = run("edge", `[agents.cx]\npreset = "codex"\nenv = { FAKE_AGENT_VERSION = "0.145.0" }\n[agents.gm]\npreset = "gemini"\n`);
  assert.equal(edge.code, 0, edge.stderr);
  assert.deepEqual(edge.versions, { cx: "0.145.0", gm: "0.61.0" });
});

test("a --full-auto added to Codex 0.147.0 or later is refused; on 0.146.1 it is not", () => {
  const bad = run(
    "full-auto",
    `[agents.cx]\npreset = "codex"\nargs = ["--full-auto"]\nenv = { FAKE_AGENT_VERSION = "0.147.0" }\n[agents.gm]\npreset = "gemini"\n`,
  );
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(
    bad.stderr,
    /agent runner "cx" \(Codex CLI 0\.147\.0\) rejects --full-auto \(removed in 0\.147\.0\), which \[agents\.cx\] passes; take it out of args \(or base_args\) — the preset passes --sandbox workspace-write instead/,
  );
  const before = run(
    "full-auto-ok",
    `[agents.cx]\npreset = "codex"\nargs = ["--full-auto"]\nenv = { FAKE_AGENT_VERSION = "0.146.1" }\n[agents.gm]\npreset = "gemini"\n`,
  );
  assert.doesNotMatch(before.stderr, /rejects --full-auto/);
});

test("a version newer than the verified range is run, with a warning naming the range and remove_args / base_args", () => {
  const r = run("newer", `[agents.cx]\npreset = "codex"\n[agents.gm]\npreset = "gemini"\nenv = { FAKE_AGENT_VERSION = "0.62.0" }\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning: agent runner "gm" \(Gemini CLI 0\.62\.0\) is newer than the versions the gemini preset was verified with \(0\.61\.0–0\.61\.0\); if its turns fail, remove or replace the preset's flags with remove_args \/ base_args in \[agents\.gm\] \(docs\/agents\/gemini\.md\)/,
  );
  assert.deepEqual(r.versions, { cx: "0.171.0", gm: "0.62.0" });
});
