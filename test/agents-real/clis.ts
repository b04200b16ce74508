// The real agent CLIs the conformance suite drives: the manifest written by
// scripts/install-agent-clis.mjs (pinned versions, or the newest with --latest) names each one's
// executable in the cache outside node_modules.

import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export const AGENT_CLIS = ["claude-code", "codex", "gemini", "opencode", "qwen-code"] as const;
export type AgentCli = (typeof AGENT_CLIS)[number];

export interface InstalledCli {
  package: string;
  version: string;
  bin: string;
}

export function cacheDir(): string {
  if (process.env.SWITCHYARD_AGENT_CLIS_DIR) return resolve(process.env.SWITCHYARD_AGENT_CLIS_DIR);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "switchyard-agent-clis");
}

/** The manifest in use: $SWITCHYARD_AGENT_CLIS_MANIFEST (set by scripts/test-agents.mjs), else the pinned one. */
export function installedClis(): Partial<Record<AgentCli, InstalledCli>> {
  const path = process.env.SWITCHYARD_AGENT_CLIS_MANIFEST || join(cacheDir(), "pinned.json");
  if (!existsSync(path)) return {};
  const m = JSON.parse(readFileSync(path, "utf8")) as Partial<Record<AgentCli, InstalledCli>>;
  return Object.fromEntries(Object.entries(m).filter(([, c]) => c && existsSync(c.bin))) as Partial<Record<AgentCli, InstalledCli>>;
}
