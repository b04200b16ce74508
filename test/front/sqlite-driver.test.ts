// A missing native build of the SQLite driver is the person's to fix, said as one line: what is
// wrong, why, and the command that fixes it; exit 1, never `internal error`, never a stack. The
// build is really missing: the CLI runs from an install whose node_modules holds better-sqlite3
// without its build/ folder (what npm 12 leaves when it skips the install script), so Node's own
// load of the addon fails; every other package is the real one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { SqliteStore } from "../../src/run/store/store-sqlite.js";

const ROOT = process.cwd();

/** An install of switchyard in a temporary folder whose better-sqlite3 has no native build. */
function installWithoutBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), "sy-nodriver-"));
  for (const p of ["package.json", "bin", "examples", join("dist", "src")]) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  mkdirSync(join(dir, "node_modules"));
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === "better-sqlite3" || name.startsWith(".")) continue;
    symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name), "dir");
  }
  const driver = join(dir, "node_modules", "better-sqlite3");
  for (const p of ["package.json", "lib"]) cpSync(join(ROOT, "node_modules", "better-sqlite3", p), join(driver, p), { recursive: true });
  assert.ok(
    existsSync(join(ROOT, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")),
    "the real install has a build",
  );
  assert.ok(!existsSync(join(driver, "build")), "the copy has none");
  return dir;
}

const LINE = (dir: string) =>
  new RegExp(
    "^switchyard: error\\[sqlite-driver\\]: the SQLite driver \\(better-sqlite3\\) has no native build for this Node " +
      `\\(${process.version.replace(/\./g, "\\.")}, NODE_MODULE_VERSION ${process.versions.modules}\\): ` +
      "its install script was blocked \\(npm 12 runs it only where package\\.json's allowScripts allows better-sqlite3\\) or failed; " +
      `\`npm rebuild better-sqlite3\` in ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} builds it for this Node\n$`,
  );

test("a missing SQLite driver build: every command that opens a store says what, why and the fix in one line, exit 1", () => {
  const dir = installWithoutBuild();
  try {
    const state = join(dir, ".switchyard");
    // A state database made by the real driver, so commands that read an existing store open it.
    new SqliteStore(state).close();
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg"), NO_COLOR: "1" };
    delete env.SWITCHYARD_HOME;
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(dir, "bin", "switchyard.js"), ...args], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });

    for (const args of [
      ["run", "examples/cve-triage", "--config", "examples/cve-triage/switchyard.toml"],
      ["runs"],
      ["status"],
      ["show", "latest"],
      ["resume", "latest"],
      ["runs", "--rebuild"],
    ]) {
      const r = cli(...args);
      assert.equal(r.status, 1, `switchyard ${args.join(" ")}: exit 1\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, LINE(dir), `switchyard ${args.join(" ")}: the one line`);
    }
    // What does not open a store still works.
    assert.equal(cli("check", "examples/cve-triage").status, 0);

    // The README's `npm start`: the same line, exit 1, and no "What next" after it.
    const start = spawnSync("npm", ["start", "--silent"], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
    assert.equal(start.status, 1, `${start.stdout}\n${start.stderr}`);
    assert.match(start.stderr, LINE(dir));
    assert.doesNotMatch(start.stdout, /What next/);

    // The same install with the driver's build in place runs (the line above is the build's absence).
    rmSync(join(dir, "node_modules", "better-sqlite3"), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", "better-sqlite3"), join(dir, "node_modules", "better-sqlite3"), "dir");
    const runs = cli("runs");
    assert.equal(runs.status, 0, runs.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
