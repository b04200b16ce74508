// What the tests of the shell stand-ins for Node helpers share (test/run/fake-agent-sh,
// test/e2e/agent-sh): a call's whole answer — stdout, stderr, exit status, the files of its
// working folder, a log — and a stand-in for the Node helper that records how a call was handed to it.

import type { SpawnSyncReturns } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Set for the shell: Node cannot start (it must require a file that does not exist). */
export const NO_NODE = { NODE_OPTIONS: "--require=/nonexistent/node-must-not-start.cjs" };

/** Every file under `dir`: its bytes (as latin1), "-> target" for a link; folders end in "/". */
export function files(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const s = lstatSync(p);
    if (s.isSymbolicLink()) out[`${prefix}${name}`] = `-> ${readlinkSync(p)}`;
    else if (s.isDirectory()) Object.assign(out, { [`${prefix}${name}/`]: "" }, files(p, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(p, "latin1");
  }
  return out;
}

/** A call's whole answer: what it printed (spawned with encoding "latin1"), its status, the files of `ws`, the `log` file (null: none). */
export function answerOf(r: SpawnSyncReturns<string>, ws: string, log: string) {
  return {
    stdout: r.stdout,
    stderr: r.stderr,
    status: r.status,
    signal: r.signal,
    files: files(ws),
    log: existsSync(log) ? readFileSync(log, "latin1") : null,
  };
}

/**
 * Writes PATH, a stand-in for a Node helper: it records the argv it got in $HANDED.argv (a line
 * each), its stdin in $HANDED.stdin, and FAKE_AGENT_MODE and FAKE_AGENT_COUNTER in $HANDED.env.
 */
export function standIn(path: string): string {
  writeFileSync(
    path,
    `#!/bin/sh
printf '%s\\n' "$@" >"$HANDED.argv"
cat >"$HANDED.stdin"
printf '%s' "\${FAKE_AGENT_MODE-(unset)} \${FAKE_AGENT_COUNTER-(unset)}" >"$HANDED.env"
`,
    { mode: 0o755 },
  );
  return path;
}

/** What the stand-in recorded under `handed`. */
export function handedOver(handed: string): { argv: string[]; stdin: Buffer; env: string } {
  return {
    argv: readFileSync(`${handed}.argv`, "utf8").split("\n").slice(0, -1),
    stdin: readFileSync(`${handed}.stdin`),
    env: readFileSync(`${handed}.env`, "utf8"),
  };
}
