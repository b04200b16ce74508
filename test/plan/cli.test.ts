// switchyard check / compile as a user runs them (§8, §12): exit codes, output format. What a
// command prints and returns is tested through the CLI's entry function in the test's own process
// (test/support/cli-in-process.ts); only the case about the folder a command starts in starts it as
// a child process there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

function run(...args: string[]) {
  return runCliInProcess(args);
}

function runIn(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(process.cwd(), "bin/switchyard.js"), ...args], { encoding: "utf8", cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("check: a clean pack exits 0 with a one-line summary", async () => {
  const r = await run("check", "test/fixtures/packs/triage");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "test/fixtures/packs/triage: ok: playbook 'triage', 9 tasks\n");
});

test("check: a broken playbook exits 1 with FILE:LINE:COL: error[CODE], the line, a caret and a summary", async () => {
  const r = await run("check", "test/fixtures/broken/several_independent_errors.star");
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^test\/fixtures\/broken\/several_independent_errors\.star:3:\d+: error\[invalid-value\]: agent\(\) argument 'effort'/m,
  );
  assert.match(r.stderr, /^3 \| a = agent\(/m);
  assert.match(r.stderr, /^ +\| +\^$/m);
  assert.match(r.stderr, /help: did you mean "high"\?/);
  assert.match(r.stderr, /: 4 errors\n$/);
  const order = [...r.stderr.matchAll(/\.star:(\d+):/g)].map((m) => Number(m[1]));
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
});

test("check --json prints the diagnostics as JSON", async () => {
  const r = await run("check", "test/fixtures/broken/uncovered_label.star", "--json");
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout) as { ok: boolean; diagnostics: Array<{ code: string; pos: { line: number } }> };
  assert.equal(out.ok, false);
  assert.deepEqual(
    out.diagnostics.map((d) => [d.code, d.pos.line]),
    [["uncovered-label", 4]],
  );
});

test("compile: TOML to stdout or -o FILE, identical both ways; errors exit 1 and write nothing", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-cli-"));
  try {
    const a = await run("compile", "test/fixtures/packs/triage");
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /^\[plan\]$/m);
    const out = join(dir, "plan.toml");
    const b = await run("compile", "test/fixtures/packs/triage", "-o", out);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(readFileSync(out, "utf8"), a.stdout);
    const c = await run("check", out);
    assert.equal(c.code, 0, c.stderr);
    const bad = await run("compile", "test/fixtures/broken/unknown_label.star");
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /error\[unknown-label\]/);
    assert.match(bad.stderr, /no plan written/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("check: a path that does not exist is a clear error without a stack trace", async () => {
  const r = await run("check", "no/such/pack");
  assert.equal(r.code, 2); // §12: a wrong path is a usage error
  assert.match(r.stderr, /error\[pack-not-found\]: no\/such\/pack does not exist/);
  assert.doesNotMatch(r.stderr, /at .*\.js:\d+/);
});

test("C-20: the plan does not depend on the directory compile is run from", async () => {
  const here = await run("compile", "test/fixtures/packs/triage");
  const there = runIn(tmpdir(), "compile", join(process.cwd(), "test/fixtures/packs/triage"));
  assert.equal(there.code, 0, there.stderr);
  assert.equal(there.stdout, here.stdout);
});
