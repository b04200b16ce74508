// Which version of each agent CLI a run drives: `TOOL --version` is read once per run
// by preflight and recorded with the run; a version the preset is known not to work with is
// refused with the range and the fix, and one newer (or older) than the versions it was verified
// with is warned about, naming how to change the preset's flags.

import { spawnSync } from "node:child_process";
import type { AgentRunnerConfig } from "../agent-runner-config.js";
import { presetArgsAnyEffort, presetOf, runnerEnv } from "./invocation.js";

/** How long `TOOL --version` may take (Node CLIs start in about a second). */
const VERSION_TIMEOUT_MS = 20_000;

/** "codex-cli 0.171.0" → [0, 171, 0]; the first dotted triple in the text. */
export function parseVersion(text: string): [number, number, number] | undefined {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** a < b: negative; a = b: 0; a > b: positive. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a) ?? [0, 0, 0];
  const y = parseVersion(b) ?? [0, 0, 0];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** The tool's version as it prints it (`X.Y.Z`), or undefined with why it could not be read. */
export function readToolVersion(runner: AgentRunnerConfig, env: NodeJS.ProcessEnv): { version?: string; why?: string } {
  const [exe, ...lead] = runner.command;
  const r = spawnSync(exe!, [...lead, "--version"], {
    encoding: "utf8",
    timeout: VERSION_TIMEOUT_MS,
    env: { ...env, ...runnerEnv(runner) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (r.error) return { why: r.error.message };
  const v = parseVersion(`${r.stdout}`);
  if (r.status !== 0 || !v)
    return { why: `\`${runner.command.join(" ")} --version\` printed ${JSON.stringify(`${r.stdout}${r.stderr}`.trim().slice(0, 120))}` };
  return { version: v.join(".") };
}

/** What checking a tool's version found: a version known not to work, or one outside the verified range. */
export interface VersionCheck {
  problem?: string;
  warning?: string;
}

/** What a runner's tool version means for the preset: refused, warned about, or fine. */
export function checkVersion(runner: AgentRunnerConfig, version: string): VersionCheck {
  const p = presetOf(runner);
  const facts = p.versions;
  if (!facts) return {};
  const who = `agent runner "${runner.name}" (${p.tool} ${version})`;
  const range = `${facts.verified.oldest}–${facts.verified.newest}`;
  const where = `[agents.${runner.name}]`;
  if (facts.refuseBelow && compareVersions(version, facts.refuseBelow.version) < 0)
    return {
      problem: `${who} is older than ${facts.refuseBelow.version}, the oldest version the ${p.name} preset works with (${facts.refuseBelow.why}; verified with ${range}); upgrade ${p.tool}, or set command = ["/path/to/${p.executable}"] in ${where} to a newer one`,
    };
  const passed = [...presetArgsAnyEffort(runner), ...(runner.args ?? [])];
  for (const f of facts.removedFlags ?? [])
    if (compareVersions(version, f.since) >= 0 && passed.includes(f.flag))
      return {
        problem: `${who} rejects ${f.flag} (removed in ${f.since}), which ${where} passes; take it out of args (or base_args) — the preset passes ${f.instead} instead`,
      };
  const fix = `if its turns fail, remove or replace the preset's flags with remove_args / base_args in ${where} (docs/agents/${p.name}.md)`;
  if (compareVersions(version, facts.verified.newest) > 0)
    return { warning: `${who} is newer than the versions the ${p.name} preset was verified with (${range}); ${fix}` };
  if (compareVersions(version, facts.verified.oldest) < 0)
    return { warning: `${who} is older than the versions the ${p.name} preset was verified with (${range}); ${fix}` };
  return {};
}
