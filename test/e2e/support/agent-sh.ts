// The end-to-end tests' scripted agent and host (agent.ts) as a shell script that does what it does
// without a Node start-up per call, and runs it for the calls it cannot be sure to do alike
// (test/e2e/support/agent.sh says which). test/e2e/agent-sh compares the two.

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromTemplate, PRINTABLE, quoted } from "../../support/fake-agent-sh.js";

const TEMPLATE = fileURLToPath(new URL("../../../../test/e2e/support/agent.sh", import.meta.url));

/** The scripted agent run by Node alone: `node dist/test/e2e/support/agent.js`. */
export const NODE_AGENT = [process.execPath, join(process.cwd(), "dist", "test", "e2e", "support", "agent.js")];

/** Writes DIR/agent.sh, the shell scripted agent handing over to `node` (NODE_AGENT unless given); returns its command. */
export function scriptedAgent(dir: string, node: readonly string[] = NODE_AGENT): string[] {
  const fill: Record<string, string> = {
    NODE_AGENT: node.map(quoted).join(" "),
    PRINTABLE: quoted(PRINTABLE),
    TEXT: quoted(`${PRINTABLE}\t\n`),
  };
  const script = join(dir, "agent.sh");
  writeFileSync(script, fromTemplate(TEMPLATE, fill));
  chmodSync(script, 0o755);
  return [script];
}
