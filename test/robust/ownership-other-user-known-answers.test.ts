// R-4 across users: a process or process group that belongs to another user answers kill(pid, 0)
// with EPERM (POSIX: it exists, but the caller may not signal it). Such a process exists, so an
// owner on it is not gone; such a group exists when asked with signal 0, and is never reported as
// signalled for a real signal. Run as root, the test makes the other user itself: a child process
// of this very Node running as "nobody" (uid and gid 65534) asks about a group root made. The
// expected answers follow from kill(2), not from the code under test.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";

/** What the checks say when asked by a process of user "nobody", as JSON printed by that process. */
function askAsNobody(expression: string): unknown {
  const store = new URL("../../src/run/store/index.js", import.meta.url).href;
  const groups = new URL("../../src/run/process/index.js", import.meta.url).href;
  const code = [
    `const { pidExists } = await import(${JSON.stringify(store)});`,
    `const { signalGroup } = await import(${JSON.stringify(groups)});`,
    `process.stdout.write(JSON.stringify(${expression}));`,
  ].join("\n");
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { uid: 65534, gid: 65534, encoding: "utf8" });
  assert.equal(r.status, 0, `the child as nobody failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test("R-4: another user's process exists (EPERM); its group answers signal 0 but is never reported as signalled", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("needs root, to run a child as another user");
  const leader = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
  const ended = new Promise<NodeJS.Signals | null>((done) => leader.once("exit", (_code, signal) => done(signal)));
  try {
    await new Promise((done) => leader.once("spawn", done));
    const pid = leader.pid!;
    // pid 1 (root's init) and root's group: they exist; a SIGTERM from nobody is refused, not sent.
    assert.deepEqual(askAsNobody(`[pidExists(1), pidExists(${pid}), signalGroup(${pid}, 0), signalGroup(${pid}, "SIGTERM")]`), [
      true,
      true,
      true,
      false,
    ]);
  } finally {
    leader.kill("SIGKILL");
    await ended;
  }
});
