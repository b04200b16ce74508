// Puts the fake agent CLIs on a PATH folder under their real names: shell scripts
// (fake-agent-sh.ts) that answer the common calls themselves and run the Node fake
// (fake-agent-cli.ts) for the others.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_TOOLS, type FakeTool } from "./fake-agent-output.js";
import { quoted, shellFake } from "./fake-agent-sh.js";

export { FAKE_TOOLS };

/** The Node fake of `tool` as a shell command line. */
function nodeFake(tool: string): string {
  const script = join(process.cwd(), "dist", "test", "support", "fake-agent-cli.js");
  return [process.execPath, script, tool].map(quoted).join(" ");
}

function install(dir: string, tools: readonly string[], script: (tool: FakeTool) => string): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  for (const t of tools) {
    if (!(FAKE_TOOLS as readonly string[]).includes(t)) throw new Error(`no fake for ${t}: the fakes are ${FAKE_TOOLS.join(", ")}`);
    const p = join(bin, t);
    writeFileSync(p, script(t as FakeTool));
    chmodSync(p, 0o755);
  }
  return bin;
}

/** Creates DIR/bin with `claude`, `codex`, `gemini`, `opencode`, `qwen`, `aider`; returns the bin folder. */
export function fakeAgentBin(dir: string, tools: readonly string[] = FAKE_TOOLS): string {
  return install(dir, tools, (t) => shellFake(t, nodeFake(t)));
}

/**
 * The same tools as the Node fake alone, each a shell script that runs it for every call: what the
 * shell fakes are compared with (test/run/fake-agent-sh), and for a test about the Node fake itself.
 */
export function nodeFakeBin(dir: string, tools: readonly string[] = FAKE_TOOLS): string {
  return install(dir, tools, (t) => `#!/bin/sh\nexec ${nodeFake(t)} "$@"\n`);
}
