// R-4 across users: a process or process group that belongs to another user answers kill(pid, 0)
// with EPERM (POSIX: it exists, but the caller may not signal it). Such a process exists, so an
// owner on it is not gone; such a group exists when asked with signal 0, and is never reported as
// signalled for a real signal. Run as root, the test makes the other user itself: a child process
// of this very Node running as "nobody" (uid and gid 65534) asks about a group root made. The
// expected answers follow from kill(2), not from the code under test.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { answerInChild } from "./ownership-known-answers-child.js";

/** What the checks say when asked by a process of user "nobody". */
function askAsNobody(expression: string): unknown {
  // The child loads the checks as root and only then becomes nobody: the compiled files may sit
  // in a folder other users cannot read (Stryker's sandbox is made with mode 0700).
  return answerInChild({ setup: "process.setgroups([]); process.setgid(65534); process.setuid(65534);", expression });
}

test("R-4: another user's process exists (EPERM); its group answers signal 0 but is never reported as signalled", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("needs root, to run a child as another user");
  const leader = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
  const ended = new Promise<NodeJS.Signals | null>((done) => leader.once("exit", (_code, signal) => done(signal)));
  try {
    await new Promise((done) => leader.once("spawn", done));
    const pid = leader.pid!;
    // pid 1 (root's init) and root's group: they exist; a SIGTERM from nobody is refused, not sent.
    assert.deepEqual(
      askAsNobody(`[store.pidExists(1), store.pidExists(${pid}), proc.signalGroup(${pid}, 0), proc.signalGroup(${pid}, "SIGTERM")]`),
      [true, true, true, false],
    );
  } finally {
    leader.kill("SIGKILL");
    await ended;
  }
});
