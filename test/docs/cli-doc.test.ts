// docs/cli.md is generated from the real `--help` of every command (scripts/docs.mjs) and must be
// current; the check itself must notice a stale page and say how to refresh it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const SCRIPT = join(process.cwd(), "scripts", "docs.mjs");

test("§12: docs/cli.md is current with every command's --help", () => {
  const r = spawnSync(process.execPath, [SCRIPT, "cli", "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr || "docs/cli.md is out of date: run `node scripts/docs.mjs cli`");
});

test("§12: docs/cli.md documents every command and subcommand with its options", () => {
  const doc = readFileSync("docs/cli.md", "utf8");
  for (const cmd of [
    "check",
    "compile",
    "run",
    "resume",
    "status",
    "show",
    "runs",
    "cancel",
    "eval",
    "lab new",
    "lab list",
    "lab harvest",
    "config check",
    "init",
    "explain",
  ]) {
    assert.ok(doc.includes("## `switchyard " + cmd + "`\n"), `docs/cli.md has no section for ${cmd}`);
  }
  for (const flag of ["--state-dir <dir>", "--config <file>", "--key <key>", "--receipts", "--target", "--markdown", "--force"])
    assert.ok(doc.includes(flag), `docs/cli.md mentions ${flag}`);
});

test("the docs check fails on a stale page and names the command that refreshes it", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-docs-"));
  try {
    writeFileSync(join(dir, "cli.md"), readFileSync("docs/cli.md", "utf8").replace("--receipts", "--receipt"));
    writeFileSync(join(dir, "errors.md"), readFileSync("docs/errors.md", "utf8"));
    const r = spawnSync(process.execPath, [SCRIPT, "--check", "--dir", dir], { encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /cli\.md is out of date: run `node scripts\/docs\.mjs cli` to refresh it/);
    assert.doesNotMatch(r.stderr, /errors\.md/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
