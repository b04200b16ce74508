// `switchyard ui` and `show --html` as commands — bad flags and a port in use are usage
// errors (exit 2) that say what to do, another host warns, an empty state folder is served (and
// its first run appears), and `show --html` of an unknown run is the usual unknown-run error.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BIN, get, startUi } from "./support.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

/** `switchyard ARGS` in this process, for the usage errors (no server is started). */
const cli = (...args: string[]) => spawnCliInProcess(args);
/** In a child process, without blocking this process (so its HTTP connections to the server stay usable). */
const cliAsync = (...args: string[]) =>
  new Promise<{ status: number | null; stderr: string }>((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("exit", (status) => done({ status, stderr }));
  });

test("ui --port that is not a port, or one in use, is a usage error naming the fix", async () => {
  const bad = await cli("ui", "--port", "http");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--port must be a port number from 0 to 65535, got 'http'/);
  const taken = createServer();
  await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
  const port = (taken.address() as { port: number }).port;
  try {
    const r = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, "ui", "--port", String(port), "--state-dir", tmpdir()], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      child.once("exit", (code) => done({ code, stderr }));
    });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      new RegExp(`port ${port} on 127.0.0.1 is in use\\nhelp: pick another with --port N, or --port 0 for any free port`),
    );
  } finally {
    taken.close();
  }
});

test("ui on another address warns that there is no login", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-ui-host-"));
  const child = spawn(process.execPath, [BIN, "ui", "--port", "0", "--host", "0.0.0.0", "--state-dir", dir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  try {
    const url = await new Promise<string>((done) => createInterface({ input: child.stdout! }).once("line", (l) => done(l.trim())));
    assert.match(url, /^http:\/\/0\.0\.0\.0:\d+\/#token=[A-Za-z0-9_-]{43}$/);
    assert.match(stderr, /warning: listening on 0\.0\.0\.0: anyone who can reach it can read every run's outputs, prompts and logs/);
    assert.match(stderr, /anyone who reaches it with the printed address's token can answer review questions/);
    assert.ok(!stderr.includes(url.slice(url.indexOf("#token=") + 7)), "the token is printed on stdout only");
  } finally {
    await new Promise<void>((done) => {
      child.once("exit", () => done());
      child.kill("SIGINT");
    });
    rmSync(dir, { recursive: true, force: true });
  }
});

test("ui over a state folder with no runs yet serves an empty list, then the first run", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-ui-empty-"));
  const state = join(dir, "state");
  const ui = await startUi(state);
  try {
    assert.deepEqual(JSON.parse((await get(`${ui.url}api/runs`)).text), { runs: [] });
    const none = await get(`${ui.url}api/runs/20261202-000000-000000`);
    assert.equal(none.status, 404);
    assert.equal(JSON.parse(none.text).error.code, "ui-no-runs");
    // A one-command playbook: what is tested is that the view lists the first run, and a run of
    // the whole example would cost some 27 s of CPU for the same row.
    const playbook = join(dir, "triage.star");
    writeFileSync(
      playbook,
      'playbook(description = "the first run of an empty state folder")\n\nhello = command(name = "hello", run = "true")\n',
    );
    const r = await cliAsync("run", playbook, "--state-dir", state);
    assert.equal(r.status, 0, r.stderr);
    const { runs } = JSON.parse((await get(`${ui.url}api/runs`)).text) as { runs: Array<{ playbook: string; status: string }> };
    assert.deepEqual(
      runs.map((x) => [x.playbook, x.status]),
      [["triage", "passed"]],
    );
  } finally {
    await ui.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("show --html of an unknown run is the unknown-run usage error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-ui-show-"));
  try {
    const r = await cli("show", "nope", "--html", join(dir, "x.html"), "--state-dir", dir);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no runs in/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
