// finding the state and the machine config from any folder, as git finds
// `.git` — the nearest `.switchyard/` upward (with its own `.gitignore`), the per-user folder
// when there is none, $SWITCHYARD_CONFIG and `.switchyard/config.toml`; and run id prefixes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const PLAYBOOK = `playbook(description = "tiny")\nhello = command(name = "hello", run = "true")\n`;

function envOf(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "xdg"),
    ...extra,
  };
  delete env.SWITCHYARD_HOME;
  if (!extra.SWITCHYARD_CONFIG) delete env.SWITCHYARD_CONFIG;
  return env;
}

/** `switchyard ARGS` started in `cwd`: a child process, for the runs. */
function sy(cwd: string, home: string, args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: envOf(home, extra), encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * The same in this process, for the commands that only look (status, runs, show, config check):
 * the folder and the environment are this process's for the call, which is all the search reads.
 */
async function here(cwd: string, home: string, args: string[], extra: Record<string, string> = {}) {
  const r = await runCliInProcess(args, { cwd, env: envOf(home, extra) });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

test("state discovery: a run's state is found from a subfolder; a new .switchyard/ ignores itself; run id prefixes", async () => {
  const root = mkdtempSync(join(tmpdir(), "sy-find-"));
  try {
    const home = join(root, "home");
    const repo = join(root, "repo");
    mkdirSync(join(repo, "pack"), { recursive: true });
    mkdirSync(join(repo, "src", "deep"), { recursive: true });
    mkdirSync(home);
    writeFileSync(join(repo, "pack", "main.star"), PLAYBOOK);

    const first = sy(repo, home, ["run", "pack"]);
    assert.equal(first.code, 0, first.err);
    const id = /run (\S+): passed/.exec(first.out)![1]!;
    assert.ok(existsSync(join(repo, ".switchyard", "switchyard.db")), "a new ./.switchyard/ where nothing was found");
    assert.match(readFileSync(join(repo, ".switchyard", ".gitignore"), "utf8"), /^\*$/m);

    // From a subfolder, every reading command finds it (as git finds .git).
    const status = await here(join(repo, "src", "deep"), home, ["status", "--json"]);
    assert.equal(status.code, 0, status.err);
    assert.equal(JSON.parse(status.out).run, id);
    // A second run from the subfolder lands in the same state folder.
    assert.equal(sy(join(repo, "src", "deep"), home, ["run", join(repo, "pack")]).code, 0);
    assert.ok(!existsSync(join(repo, "src", "deep", ".switchyard")));
    assert.equal(JSON.parse((await here(repo, home, ["runs", "--json"])).out).length, 2);

    // A unique prefix names a run; an ambiguous one is refused with candidates.
    const shown = await here(repo, home, ["show", id.slice(0, 18), "--json"]);
    assert.equal(shown.code, 0, shown.err);
    assert.equal(JSON.parse(shown.out).run, id);
    const ambiguous = await here(repo, home, ["show", id.slice(0, 2)]);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.err, /the run id prefix \d\d is ambiguous: 2 runs start with it/);

    // Outside any project, reading commands look in the per-user folder and say where they looked.
    const elsewhere = await here(home, home, ["status"]);
    assert.equal(elsewhere.code, 2);
    assert.ok(
      elsewhere.err.includes(`no runs in ${join(home, "state", "switchyard")} (no .switchyard/ in ${home} or its parents`),
      elsewhere.err,
    );
    // A run started from the home folder goes to the per-user folder, not ~/.switchyard.
    writeFileSync(join(home, "main.star"), PLAYBOOK);
    assert.equal(sy(home, home, ["run", "main.star"]).code, 0);
    assert.ok(existsSync(join(home, "state", "switchyard", "switchyard.db")));
    assert.ok(!existsSync(join(home, ".switchyard")));
    assert.equal((await here(home, home, ["status"])).code, 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("config discovery: --config, then $SWITCHYARD_CONFIG, then .switchyard/config.toml, then the per-user file", async () => {
  const root = mkdtempSync(join(tmpdir(), "sy-findcfg-"));
  try {
    const home = join(root, "home");
    const repo = join(root, "repo");
    mkdirSync(join(repo, ".switchyard"), { recursive: true });
    mkdirSync(join(repo, "sub"));
    mkdirSync(join(home, "xdg", "switchyard"), { recursive: true });
    const cfg = (name: string) => `[agents.${name}]\ncommand = ["true"]\n`;
    writeFileSync(join(home, "xdg", "switchyard", "config.toml"), cfg("user"));
    const where = async (cwd: string, args: string[] = [], extra: Record<string, string> = {}) => {
      const r = await here(cwd, home, ["config", "check", "--json", ...args], extra);
      assert.equal(r.code, 0, r.err);
      return JSON.parse(r.out).config as string;
    };
    assert.equal(await where(repo), join(home, "xdg", "switchyard", "config.toml"), "no project config: the per-user file");
    writeFileSync(join(repo, ".switchyard", "config.toml"), cfg("project"));
    assert.equal(await where(join(repo, "sub")), join(repo, ".switchyard", "config.toml"), "the nearest .switchyard/config.toml");
    writeFileSync(join(root, "env.toml"), cfg("env"));
    assert.equal(await where(join(repo, "sub"), [], { SWITCHYARD_CONFIG: join(root, "env.toml") }), join(root, "env.toml"));
    writeFileSync(join(root, "flag.toml"), cfg("flag"));
    assert.equal(
      await where(join(repo, "sub"), ["--config", join(root, "flag.toml")], { SWITCHYARD_CONFIG: join(root, "env.toml") }),
      join(root, "flag.toml"),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
