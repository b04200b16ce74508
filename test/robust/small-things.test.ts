// Small things. A --state-dir under a regular file or in /proc is a clear error
// (not a hang in a recursive mkdir); an agent runner's env key that is not a variable name is
// refused; an integer key beyond 2^53 is not called a "non-integer"; the over-fanout message does
// not suggest raising max_fanout past its cap; resuming a live run exits 1 (run-busy), as the
// docs' exit codes say (test/robust/ownership.test.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { elementKeys } from "../../src/run/engine/keys.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

function sy(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 20000,
    env: { ...process.env, XDG_CONFIG_HOME: join(cwd, "xdg") },
  });
  return { code: r.status, out: r.stdout, err: r.stderr, timedOut: r.error !== undefined };
}

test("--state-dir under a regular file or in /proc is a clear usage error, never a hang", () => {
  const dir = new TempDir("sy-small-");
  try {
    dir.file("pack/main.star", `playbook(description = "x")\nprepare = command(name = "prepare", run = "true")\n`);
    const file = dir.file("a-file", "");
    const under = sy(dir.path, ["run", "pack", "--state-dir", join(file, "state")]);
    assert.equal(under.code, 2, under.err);
    assert.match(
      under.err,
      new RegExp(`^switchyard: error: the state folder \\S+ cannot be made: ${file} is a file, not a folder\\nhelp: point --state-dir`),
    );
    const proc = sy(dir.path, ["run", "pack", "--state-dir", "/proc/switchyard-state/x"]);
    assert.ok(!proc.timedOut, "the run hung");
    assert.equal(proc.code, 2, proc.err);
    assert.match(proc.err, /cannot be made: creating \/proc\/switchyard-state failed \(ENOENT\); \/proc is a virtual filesystem/);
    const itself = sy(dir.path, ["run", "pack", "--state-dir", file]);
    assert.equal(itself.code, 2, itself.err);
    assert.match(itself.err, /the state folder \S+ is a file, not a folder/);
  } finally {
    dir.cleanup();
  }
});

test("an agent runner's env key with '=' is refused by config check", () => {
  const dir = new TempDir("sy-small-");
  try {
    const config = dir.file("config.toml", `[agents.default]\ncommand = ["true"]\nenv = { "A=B" = "x", OK_NAME = "y" }\n`);
    const r = sy(dir.path, ["config", "check", "--config", config]);
    assert.equal(r.code, 2, r.err);
    assert.match(
      r.err,
      /config\.toml:3:\d+: error\[config-bad-value\]: agents\.default\.env has "A=B", which is not an environment variable name/,
    );
    assert.equal(r.err.split("error[").length - 1, 1, "only the bad name is an error");
  } finally {
    dir.cleanup();
  }
});

test("an integer element beyond 2^53 is named as such; over-fanout at the cap does not suggest raising it", () => {
  assert.throws(() => elementKeys([1, 2 ** 60], "p.items", 10), {
    code: "bad-element",
    message:
      /^element 1 of p\.items is the integer 1152921504606846976, beyond 2\^53, which a key cannot hold exactly \(write it as a string\)/,
  });
  assert.throws(() => elementKeys([1.5], "p.items", 10), /is the non-integer number 1\.5/);
  const big = Array.from({ length: 10001 }, (_, i) => i);
  assert.throws(
    () => elementKeys(big, "p.items", 10000),
    /more than max_fanout = 10000 \(M-1\); max_fanout is already at its cap of 10000: shorten the list, or split it across tasks$/,
  );
  assert.throws(() => elementKeys([1, 2, 3], "p.items", 2), /raise max_fanout \(at most 10000\) or shorten the list$/);
});
