// Puts the fake agent CLIs (fake-agent-cli.ts) on a PATH folder under their real names.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const FAKE_TOOLS = ["claude", "codex", "gemini", "opencode", "qwen", "aider"] as const;

/** Creates DIR/bin with `claude`, `codex`, `gemini`, `opencode`, `qwen`, `aider`; returns the bin folder. */
export function fakeAgentBin(dir: string, tools: readonly string[] = FAKE_TOOLS): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const script = join(process.cwd(), "dist", "test", "support", "fake-agent-cli.js");
  for (const t of tools) {
    const p = join(bin, t);
    writeFileSync(p, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(script)} ${t} "$@"\n`);
    chmodSync(p, 0o755);
  }
  return bin;
}
