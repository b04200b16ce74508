// A reader that goes away (`switchyard run PACK | head -3`) never changes a run: the run goes on
// to its end with its output dropped, is recorded finished, and the exit status is the run's
// (0 passed, 1 failed) — with and without -q and --json. Real pipes: the CLI's stdout is a pipe
// this test closes after reading a few lines (at once with -q, which prints only at the end),
// and the run's last task waits for a file the test makes only after the pipe is closed, so the
// run always writes to the closed pipe afterwards. The test waits for the process to exit.
// One store is enough: the CLI's output to a closed pipe is the subject; the run's record is written the
// same way whatever its reader does, and both stores' records are test/run/cli's and crash's.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { storeEnv } from "../support/test-store.js";
import { TempDir } from "./helpers.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

function playbook(gate: string, exit: number): string {
  return `
playbook(description = "output to a reader that goes away")
items = command(name = "items", run = """echo '{"members": ["a", "b", "c", "d", "e", "f"]}' > $SWITCHYARD_OUTPUT""", emits = {"members": "list"})
each = command(name = "each", depends_on = [items], over = items.members, max_fanout = 10, run = "true")
hold = command(name = "hold", depends_on = [each], run = "while [ ! -e '${gate}' ]; do sleep 0.05; done; exit ${exit}")
after = command(name = "after", depends_on = [hold], run = "true")
`;
}

/** Lines read from the CLI's stdout before the test closes its end of the pipe. */
const LINES_BEFORE_CLOSE = 3;

async function runWithClosedStdout(flags: string[], exit: number) {
  const dir = new TempDir("sy-pipe-");
  try {
    const gate = join(dir.path, "gate");
    const state = join(dir.path, "state");
    dir.file("pack/main.star", playbook(gate, exit));
    const env: NodeJS.ProcessEnv = { ...process.env, ...storeEnv(state) };
    const child = spawn(process.execPath, [BIN, "run", "pack", "--state-dir", state, ...flags], {
      cwd: dir.path,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));

    // -q alone prints nothing until the summary: close at once. Otherwise after a few lines.
    const wanted = flags.includes("-q") && !flags.includes("--json") ? 0 : LINES_BEFORE_CLOSE;
    let read = "";
    if (wanted > 0) {
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        read += chunk as string;
        if (read.split("\n").length - 1 >= wanted) break; // breaking out of the loop destroys the stream
      }
    }
    child.stdout.destroy();
    assert.ok(read.split("\n").length - 1 >= wanted, `read ${JSON.stringify(read)} before the run ended`);
    writeFileSync(gate, "");
    const [code, signal] = await exited;

    const shown = spawnSync(process.execPath, [BIN, "show", "latest", "--json", "--state-dir", state], { env, encoding: "utf8" });
    assert.equal(shown.status, 0, shown.stderr);
    const run = JSON.parse(shown.stdout) as { status: string; tasks: Record<string, { status: string }> };
    return { code, signal, stderr, run };
  } finally {
    dir.cleanup();
  }
}

for (const flags of [[], ["-q"], ["--json"], ["--json", "-q"]]) {
  const how = flags.length ? flags.join(" ") : "plain progress";
  test(`a run whose stdout reader goes away (${how}) passes to its end, is recorded passed and exits 0`, { timeout: 120_000 }, async () => {
    const r = await runWithClosedStdout(flags, 0);
    assert.equal(r.signal, null);
    assert.equal(r.run.status, "passed");
    assert.equal(r.run.tasks.after!.status, "passed", "the tasks after the pipe closed ran");
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /EPIPE|internal|\n\s+at /);
  });
  test(`a run whose stdout reader goes away (${how}) and then fails is recorded failed and exits 1`, { timeout: 120_000 }, async () => {
    const r = await runWithClosedStdout(flags, 3);
    assert.equal(r.signal, null);
    assert.equal(r.run.status, "failed");
    assert.equal(r.run.tasks.hold!.status, "failed");
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /EPIPE|internal|\n\s+at /);
  });
}
