// on a terminal, live progress per task — counts by status and a bar for mapped tasks,
// redrawn in place — then the summary table and the run id. Run through a real pseudo-terminal
// (python3's pty module), since progress is drawn only when stdout is a TTY.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { TempDir } from "./helpers.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

// Runs argv under a pty and prints everything the pty showed, base64-encoded (escape codes intact).
const DRIVER = `
import base64, os, pty, sys, json
argv = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(json.dumps({"status": os.waitstatus_to_exitcode(status), "out": base64.b64encode(out).decode()}))
`;

const PLAYBOOK = `
items = command(name = "items", run = "echo '{\\"keys\\": [\\"a\\", \\"b\\", \\"c\\", \\"d\\"]}' > \\"$SWITCHYARD_OUTPUT\\"",
                emits = {"keys": "list"})
work = command(name = "work", depends_on = [items], over = items.keys, max_fanout = 10,
               run = "sleep 0.3; echo '{}' > \\"$SWITCHYARD_OUTPUT\\"")
`;

test("R-30: on a terminal, progress is redrawn in place with a bar per mapped task, then the summary", () => {
  const dir = new TempDir("sy-tty-");
  try {
    dir.file("pack/main.star", PLAYBOOK);
    const driver = dir.file("drive.py", DRIVER);
    const argv = [process.execPath, BIN, "run", join(dir.path, "pack"), "--state-dir", join(dir.path, "state"), "--concurrency", "2"];
    const r = spawnSync("python3", [driver, JSON.stringify(argv)], { encoding: "utf8", timeout: 30_000, env: { ...process.env, TERM: "xterm", COLUMNS: "120" } });
    assert.equal(r.status, 0, r.stderr);
    const { status, out } = JSON.parse(r.stdout) as { status: number; out: string };
    const screen = Buffer.from(out, "base64").toString("utf8");
    assert.equal(status, 0, screen);
    assert.match(screen, /\x1b\[\d*F/, "the progress block moves the cursor up to redraw in place");
    assert.match(screen, /\x1b\[2K/, "each progress line is cleared before it is redrawn");
    assert.match(screen, /work +\S+ +\[[#.]+\] +\d+\/4/, "a mapped task shows a bar and done/total");
    assert.match(screen, /work +command +passed +4 +4 +0 +0 +0/, "the summary table counts by status");
    assert.match(screen, /run \S+: passed/);
    assert.doesNotMatch(screen, /instance_started/, "no per-event lines on a terminal");
  } finally {
    dir.cleanup();
  }
});
