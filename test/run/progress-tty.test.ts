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
import base64, os, pty, sys, json, fcntl, termios, struct, time, select
argv = json.loads(sys.argv[1])
cols = int(sys.argv[2]) if len(sys.argv) > 2 else 120
answer = len(sys.argv) > 3  # answer the tty host's question ("1") 1.2 s after it appears
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    os.execv(argv[0], argv)
out = b""
asked_at = None
while True:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if answer and asked_at is None and b"Answer with a label" in out:
        asked_at = time.time()
    if asked_at is not None and time.time() - asked_at > 1.2:
        os.write(fd, b"1\\n")
        asked_at = None
        answer = False
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
    const r = spawnSync("python3", [driver, JSON.stringify(argv)], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, TERM: "xterm", COLUMNS: "120" },
    });
    assert.equal(r.status, 0, r.stderr);
    const { status, out } = JSON.parse(r.stdout) as { status: number; out: string };
    const screen = Buffer.from(out, "base64").toString("utf8");
    assert.equal(status, 0, screen);
    assert.match(screen, /\x1b\[1A/, "the progress block moves the cursor up to redraw in place");
    assert.match(screen, /\x1b\[2K/, "each progress line is cleared before it is redrawn");
    assert.match(
      screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ""),
      /run \S+ +\d+\.\ds +\$0\.0000/,
      "the live header shows the elapsed time and the cost",
    );
    const text = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    assert.match(text, /work +\S+ +\[[#.]+\] +\d+\/4/, "a mapped task shows a bar and done/total");
    assert.match(text, /work +command +passed +4 +4 +0 +0 +0/, "the summary table counts by status");
    assert.match(text, /run \S+: passed/);
    assert.doesNotMatch(screen, /instance_started/, "no per-event lines on a terminal");
  } finally {
    dir.cleanup();
  }
});

// R-30, width-aware — every line the display writes fits the terminal, at 60 and 80
// columns, however long the task names and counts; colour unless NO_COLOR.
const WIDE = `
items = command(name = "items", run = "echo '{\\"keys\\": [${Array.from({ length: 30 }, (_, i) => `\\"element_number_${i}\\"`).join(", ")}]}' > \\"$SWITCHYARD_OUTPUT\\"",
                emits = {"keys": "list"})
a_task_with_a_rather_long_name_for_a_narrow_terminal = command(
    name = "a_task_with_a_rather_long_name_for_a_narrow_terminal", depends_on = [items], over = items.keys, max_fanout = 100,
    run = "sleep 0.05; echo '{}' > \\"$SWITCHYARD_OUTPUT\\"")
`;

function visibleLines(screen: string): string[] {
  // Every cursor movement or erase starts a new visual segment; what is between is one line's text.
  return screen
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "\n")
    .split(/\r?\n|\r/)
    .filter((l) => l.length > 0);
}

for (const cols of [60, 80]) {
  test(`display: under a real pseudo-terminal at ${cols} columns no line is longer than the width`, () => {
    const dir = new TempDir("sy-tty-w-");
    try {
      dir.file("pack/main.star", WIDE);
      const driver = dir.file("drive.py", DRIVER);
      const argv = [process.execPath, BIN, "run", join(dir.path, "pack"), "--state-dir", join(dir.path, "state"), "--concurrency", "4"];
      const env = { ...process.env, TERM: "xterm" } as NodeJS.ProcessEnv;
      delete env.NO_COLOR;
      delete env.COLUMNS;
      const r = spawnSync("python3", [driver, JSON.stringify(argv), String(cols)], { encoding: "utf8", timeout: 60_000, env });
      assert.equal(r.status, 0, r.stderr);
      const { status, out } = JSON.parse(r.stdout) as { status: number; out: string };
      const screen = Buffer.from(out, "base64").toString("utf8");
      assert.equal(status, 0, screen);
      const lines = visibleLines(screen);
      assert.ok(
        lines.some((l) => l.startsWith("a_task_with_a_rather_long_name")),
        "the live lines were drawn",
      );
      const long = lines.filter((l) => [...l].length > cols);
      assert.deepEqual(long, [], `lines wider than ${cols} columns`);
      assert.ok(
        lines.some((l) => l.endsWith("…")),
        "a line too long was cut, not wrapped",
      );
      assert.match(screen, /\x1b\[3\dm/, "colour on a terminal");
      const plain = spawnSync("python3", [driver, JSON.stringify([...argv, "--no-color"]), String(cols)], {
        encoding: "utf8",
        timeout: 60_000,
        env,
      });
      assert.doesNotMatch(
        Buffer.from((JSON.parse(plain.stdout) as { out: string }).out, "base64").toString("utf8"),
        /\x1b\[3\dm/,
        "--no-color",
      );
    } finally {
      dir.cleanup();
    }
  });
}

// while the `tty` host asks a question at the terminal the live block is cleared
// and held (no frame is drawn over the question, though other instances keep finishing), and it
// is drawn again after the answer.

const ASKING = `
items = command(name = "items", run = """echo '{"keys": ["a", "b", "c", "d", "e", "f", "g", "h"], "one": ["k1"]}' > $SWITCHYARD_OUTPUT""",
                emits = {"keys": "list", "one": "list"})
ask = route(name = "ask", depends_on = [items], over = items.one, max_fanout = 10,
            questions = {"go": noul(ask = "Go ahead?", drop = ["yes", "no", "uncertain"])})
busy = command(name = "busy", depends_on = [items], over = items.keys, max_fanout = 10, run = "sleep 0.3")
`;

test("display: the live block is cleared and held while the tty host asks, then drawn again", () => {
  const dir = new TempDir("sy-tty-ask-");
  try {
    dir.file("pack/main.star", ASKING);
    const config = dir.file("config.toml", `[decisions]\nhost = "tty"\n`);
    const driver = dir.file("drive.py", DRIVER);
    const argv = [
      process.execPath,
      BIN,
      "run",
      join(dir.path, "pack"),
      "--state-dir",
      join(dir.path, "state"),
      "--config",
      config,
      "--concurrency",
      "1",
    ];
    const r = spawnSync("python3", [driver, JSON.stringify(argv), "100", "answer"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, TERM: "xterm" },
    });
    assert.equal(r.status, 0, r.stderr);
    const { status, out } = JSON.parse(r.stdout) as { status: number; out: string };
    const screen = Buffer.from(out, "base64").toString("utf8");
    assert.equal(status, 0, screen);
    const asked = screen.indexOf("switchyard needs a decision");
    const answered = screen.indexOf("→ yes");
    assert.ok(asked > 0 && answered > asked, screen);
    const before = screen.slice(0, asked);
    const lastFrame = before.slice(before.lastIndexOf("\x1b[?2026h"));
    assert.match(
      lastFrame,
      /^\x1b\[\?2026h(\x1b\[2K(\x1b\[1A)?)+(\x1b\[G)?\x1b\[\?2026l/,
      "the last thing drawn before the question erased the block",
    );
    const during = screen.slice(asked, answered);
    assert.doesNotMatch(during, /busy +\S+/, "no progress frame was drawn over the question");
    const after = screen.slice(answered).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    assert.match(after, /busy +\S+ +\[[#.]+\] +\d+\/8/, "the block is drawn again after the answer");
    assert.match(after, /run \S+: passed/);
  } finally {
    dir.cleanup();
  }
});
