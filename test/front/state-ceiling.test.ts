// The search for a `.switchyard/` stops at $SWITCHYARD_CEILING_DIRECTORIES (as git's search for
// `.git` stops at GIT_CEILING_DIRECTORIES), and the test runner sets it, so the README's order —
// `npm start` (which leaves a `.switchyard/` at the top of the checkout), then `npm test` — never
// lets a test find, read or write runs in that folder.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { TempDir } from "../run/helpers.js";
import { runCliInProcess } from "../support/cli-in-process.js";

const ROOT = process.cwd();
const BIN = join(ROOT, "bin", "switchyard.js");
const PLAYBOOK = `playbook(description = "tiny")\nhello = command(name = "hello", run = "true")\n`;

/**
 * The CLI in `cwd`, in a child process (for the runs). `outer` is the test's own temp folder: the
 * search never goes above it (this test must not find a `.switchyard/` of whatever checkout runs it
 * either); `extra` may set a lower ceiling.
 */
function sy(outer: string, cwd: string, home: string, args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: envOf(outer, home, extra), encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function envOf(outer: string, home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "xdg") };
  for (const name of ["SWITCHYARD_HOME", "SWITCHYARD_CONFIG", "SWITCHYARD_STORE"]) delete env[name];
  env.SWITCHYARD_CEILING_DIRECTORIES = outer;
  return Object.assign(env, extra);
}

/**
 * The same in this process, for the commands that only look (status, runs, config check): the
 * folder and the environment are this process's for the call, which is all the search reads.
 */
async function here(outer: string, cwd: string, home: string, args: string[], extra: Record<string, string> = {}) {
  const r = await runCliInProcess(args, { cwd, env: envOf(outer, home, extra) });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** Every file under `dir` with a hash of its bytes: equal before and after means nothing was written. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

test("state discovery: the upward search for .switchyard/ and its config.toml stops below a folder of $SWITCHYARD_CEILING_DIRECTORIES", async () => {
  const dir = new TempDir("sy-ceiling-");
  try {
    const top = join(dir.path, "checkout");
    const home = join(dir.path, "home");
    const ceiling = join(top, ".tmp", "test-1");
    const work = join(ceiling, "sy-a");
    mkdirSync(home, { recursive: true });
    dir.file("checkout/pack/main.star", PLAYBOOK);
    dir.file("checkout/.tmp/test-1/sy-a/pack/main.star", PLAYBOOK);
    // What `npm start` leaves: a state folder with a run at the top of the checkout.
    assert.equal(sy(dir.path, top, home, ["run", "pack", "-q"]).code, 0);

    // Without a ceiling the search finds the checkout's folder (what broke `npm test`).
    const found = await here(dir.path, work, home, ["status", "--json"]);
    assert.equal(found.code, 0, found.err);
    const before = fingerprint(join(top, ".switchyard"));

    // With the ceiling, a reading command finds nothing and says where it looked; a run starts its own folder.
    const c = { SWITCHYARD_CEILING_DIRECTORIES: `/not/a/folder:relative/ignored:${ceiling}:${dir.path}` };
    const none = await here(dir.path, work, home, ["status"], c);
    assert.equal(none.code, 2);
    assert.match(none.err, /no runs in .*\(no \.switchyard\/ in .*sy-a or its parents/);
    const run = sy(dir.path, work, home, ["run", "pack", "-q"], c);
    assert.equal(run.code, 0, run.err);
    assert.ok(existsSync(join(work, ".switchyard", "switchyard.db")), "the run's state is in the folder it ran from");
    assert.equal(JSON.parse((await here(dir.path, work, home, ["runs", "--json"], c)).out).length, 1);
    // From a subfolder below the ceiling the search still goes up to (not into) the ceiling.
    mkdirSync(join(work, "deep"));
    assert.equal((await here(dir.path, join(work, "deep"), home, ["status"], c)).code, 0);
    // The ceiling folder itself, as the working directory, is looked in.
    mkdirSync(join(ceiling, ".switchyard"));
    const atCeiling = await here(dir.path, ceiling, home, ["status"], c);
    assert.equal(atCeiling.code, 2);
    assert.ok(atCeiling.err.includes(`no runs in ${join(ceiling, ".switchyard")}`), atCeiling.err);
    assert.deepEqual(fingerprint(join(top, ".switchyard")), before, "the checkout's state folder is untouched");

    // The machine config is found the same way: the checkout's config.toml (here unreadable) is not read.
    writeFileSync(join(top, ".switchyard", "config.toml"), "bogus = [\n");
    const other = join(top, ".tmp", "test-2", "sy-b");
    mkdirSync(other, { recursive: true });
    const noCeiling = await here(dir.path, other, home, ["config", "check"]);
    assert.equal(noCeiling.code, 2);
    assert.match(noCeiling.err, /checkout\/\.switchyard\/config\.toml:\d+:\d+: error\[config-syntax\]/);
    const withCeiling = await here(dir.path, other, home, ["config", "check"], {
      SWITCHYARD_CEILING_DIRECTORIES: `${join(top, ".tmp", "test-2")}:${dir.path}`,
    });
    assert.equal(withCeiling.code, 0, withCeiling.err);
  } finally {
    dir.cleanup();
  }
});

test(
  "npm test after npm start: the test runner's tests never find or write the .switchyard/ at the top of the checkout",
  { timeout: 300_000 },
  () => {
    const dir = new TempDir("sy-ceiling-");
    try {
      // A checkout as the README leaves it after `npm install && npm start`: the test runner, the
      // CLI, the compiled code, and a state folder with a run at the top.
      const top = join(dir.path, "checkout");
      for (const p of ["package.json", "bin", "scripts"]) cpSync(join(ROOT, p), join(top, p), { recursive: true });
      for (const p of ["dist", "node_modules"]) symlinkSync(join(ROOT, p), join(top, p), "dir");
      // The runner runs a compiled test whose source is in the checkout: the state discovery tests.
      cpSync(join(ROOT, "test", "front", "state-discovery.test.ts"), join(top, "test", "front", "state-discovery.test.ts"));
      const home = join(dir.path, "home");
      mkdirSync(home);
      writeFileSync(join(top, "main.star"), PLAYBOOK);
      assert.equal(sy(dir.path, top, home, ["run", "main.star", "-q"]).code, 0);
      const before = fingerprint(join(top, ".switchyard"));

      // The ceiling passed in is this test's temp folder, above the checkout (the runner sets its own below it).
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SWITCHYARD_CEILING_DIRECTORIES: dir.path };
      // NODE_TEST_CONTEXT would make the inner runner report to this one instead of printing.
      delete env.NODE_TEST_CONTEXT;
      const r = spawnSync(process.execPath, ["scripts/test.mjs", "dist/test/front/state-discovery.test.js"], {
        cwd: top,
        env,
        encoding: "utf8",
      });
      assert.equal(r.status, 0, `the state discovery tests fail beside a checkout's .switchyard/:\n${r.stdout.slice(-4000)}\n${r.stderr}`);
      assert.match(r.stdout, /# pass 2\b/);
      assert.deepEqual(fingerprint(join(top, ".switchyard")), before, "the checkout's state folder is untouched");
    } finally {
      dir.cleanup();
    }
  },
);
