// `switchyard completion bash|zsh|fish`. The bash script loads in a real bash
// and completes commands, subcommands, a command's flags and run ids from the state here.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");

/**
 * What the bash script completes for these words (the last one is the word being completed), in
 * `dir` with `env`. The first call loads the script as the docs say, `source <(switchyard
 * completion bash)`, and keeps a copy; later calls source the copy, so each completion starts the
 * CLI only for what the script itself asks it.
 */
function completer(dir: string, env: NodeJS.ProcessEnv): (...words: string[]) => string[] {
  const copy = join(dir, "completion.bash");
  let loaded = false;
  return (...words) => {
    const load = loaded ? `source '${copy}'` : `source <(switchyard completion bash | tee '${copy}')`;
    loaded = true;
    const script = `${load} || exit 9
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _switchyard; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync("bash", ["-c", script], { cwd: dir, env, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "");
    return r.stdout.split("\n").filter(Boolean);
  };
}

test("completion: the bash script loads and completes commands, flags and run ids; zsh and fish scripts are printed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-compl-"));
  try {
    mkdirSync(join(dir, "bin"));
    symlinkSync(BIN, join(dir, "bin", "switchyard"));
    writeFileSync(join(dir, "tiny.star"), `playbook(description = "tiny")\nhello = command(name = "hello", run = "true")\n`);
    const env = {
      ...process.env,
      PATH: `${join(dir, "bin")}:${process.env.PATH}`,
      SWITCHYARD_HOME: join(dir, "state"),
      XDG_CONFIG_HOME: join(dir, "xdg"),
    };
    const run = spawnSync(process.execPath, [BIN, "run", "tiny.star"], { cwd: dir, env, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const id = /run (\S+): passed/.exec(run.stdout)![1]!;

    const complete = completer(dir, env);
    assert.deepEqual(complete("switchyard", "re"), ["rerun", "resume", "review"]);
    assert.deepEqual(complete("switchyard", "rerun", id, "--re"), ["--redecide", "--refresh-pack"]);
    assert.deepEqual(complete("switchyard", "lab", "ha"), ["harvest"]);
    assert.deepEqual(complete("switchyard", "show", id.slice(0, 8)), [id], "run ids from the state folder");
    assert.ok(complete("switchyard", "completion", "").includes("--help"));

    const zsh = await spawnCliInProcess(["completion", "zsh"]);
    assert.equal(zsh.status, 0);
    assert.match(zsh.stdout, /^#compdef switchyard\n/);
    assert.equal(spawnSync("bash", ["-n"], { input: zsh.stdout }).status, 0, "the zsh script parses");
    const fish = await spawnCliInProcess(["completion", "fish"]);
    assert.equal(fish.status, 0);
    for (const cmd of ["run", "rerun", "logs", "show", "completion"]) assert.match(fish.stdout, new RegExp(`-a ${cmd} -d `));
    assert.match(fish.stdout, /__fish_seen_subcommand_from rerun" -l downstream/);
    const bad = await spawnCliInProcess(["completion", "tcsh"]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no completion for the shell "tcsh"\nhelp: choose one of bash, zsh, fish/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("completion: after a run, task names (--task), keys (--key) and TASK[KEY] (logs, explain, show --why) from its records", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-compl-names-"));
  try {
    mkdirSync(join(dir, "bin"));
    symlinkSync(BIN, join(dir, "bin", "switchyard"));
    writeFileSync(
      join(dir, "p.star"),
      `prep = command(name = "prep", run = "echo '{\\"ids\\": [\\"k1\\", \\"k2\\", \\"x y\\"]}' > $SWITCHYARD_OUTPUT", emits = {"ids": "list"})
scan = command(name = "scan", depends_on = [prep], over = prep.ids, max_fanout = 5, run = "echo '{}' > $SWITCHYARD_OUTPUT")
sum = command(name = "sum", depends_on = [scan], run = "echo '{}' > $SWITCHYARD_OUTPUT")
`,
    );
    const env = { ...process.env, PATH: `${join(dir, "bin")}:${process.env.PATH}`, SWITCHYARD_HOME: join(dir, "state") };
    const run = spawnSync(process.execPath, [BIN, "run", "p.star", "-q"], { cwd: dir, env, encoding: "utf8" });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const id = /run (\S+): passed/.exec(run.stdout)![1]!;
    const complete = completer(dir, env);
    assert.deepEqual(
      complete("switchyard", "logs", id, ""),
      ["prep", "scan[", "sum"],
      "unmapped tasks whole, mapped ones up to the bracket",
    );
    assert.deepEqual(complete("switchyard", "logs", "latest", "scan["), ["scan[k1]", "scan[k2]", "scan[x y]"]);
    assert.deepEqual(complete("switchyard", "explain", "latest", "scan[k"), ["scan[k1]", "scan[k2]"]);
    assert.deepEqual(complete("switchyard", "show", id, "--task", "s"), ["scan", "sum"]);
    assert.deepEqual(complete("switchyard", "rerun", "latest", "--key", ""), ["k1", "k2", "x y"]);
    assert.deepEqual(complete("switchyard", "show", "--state-dir", "x", "latest", "--why", "p"), ["prep"], "a flag's value is not the run");
    assert.deepEqual(complete("switchyard", "logs", "nosuchrun", ""), [], "no such run: nothing, and no error");
    assert.doesNotMatch((await spawnCliInProcess(["completion", "bash"])).stdout, /opts="[^"]*--names/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * What fish completes for a command line ending at the cursor (its candidates, without their
 * descriptions), or undefined when fish is not installed. As in bash, the first call loads the
 * script as the docs say (`switchyard completion fish | source`) and keeps a copy for the others.
 */
function fishCompleter(dir: string, env: NodeJS.ProcessEnv): ((line: string) => string[]) | undefined {
  if (spawnSync("fish", ["--version"], { env }).status !== 0) return undefined;
  const copy = join(dir, "completion.fish");
  let loaded = false;
  return (line) => {
    const load = loaded ? `source '${copy}'` : `switchyard completion fish | tee '${copy}' | source`;
    loaded = true;
    const script = `${load}; or exit 9\ncomplete -C ${JSON.stringify(line)}`;
    const r = spawnSync("fish", ["--no-config", "-c", script], { cwd: dir, env, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "");
    return r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("\t")[0]!);
  };
}

test("completion: in fish too, task names (--task), keys (--key) and TASK[KEY] (logs, explain, show --why) of the run named or the latest", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "sy-compl-fish-"));
  try {
    mkdirSync(join(dir, "bin"));
    symlinkSync(BIN, join(dir, "bin", "switchyard"));
    const env = {
      ...process.env,
      PATH: `${join(dir, "bin")}:${process.env.PATH}`,
      SWITCHYARD_HOME: join(dir, "state"),
      XDG_CONFIG_HOME: join(dir, "xdg"),
    };
    const complete = fishCompleter(dir, env);
    if (!complete) return t.skip("fish is not installed");
    writeFileSync(
      join(dir, "p.star"),
      `prep = command(name = "prep", run = "echo '{\\"ids\\": [\\"k1\\", \\"k2\\", \\"m3\\"]}' > $SWITCHYARD_OUTPUT", emits = {"ids": "list"})
scan = command(name = "scan", depends_on = [prep], over = prep.ids, max_fanout = 5, run = "echo '{}' > $SWITCHYARD_OUTPUT")
sum = command(name = "sum", depends_on = [scan], run = "echo '{}' > $SWITCHYARD_OUTPUT")
`,
    );
    const run = spawnSync(process.execPath, [BIN, "run", "p.star", "-q"], { cwd: dir, env, encoding: "utf8" });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const id = /run (\S+): passed/.exec(run.stdout)![1]!;
    assert.deepEqual(complete(`switchyard logs ${id} `), ["prep", "scan[", "sum"], "unmapped tasks whole, mapped ones up to the bracket");
    assert.deepEqual(complete("switchyard logs latest scan["), ["scan[k1]", "scan[k2]", "scan[m3]"]);
    assert.deepEqual(complete("switchyard explain latest scan[k"), ["scan[k1]", "scan[k2]"]);
    assert.deepEqual(complete(`switchyard show ${id} --task s`), ["scan", "sum"]);
    assert.deepEqual(complete("switchyard rerun latest --key "), ["k1", "k2", "m3"]);
    assert.deepEqual(complete("switchyard show --state-dir x latest --why p"), ["prep"], "a flag's value is not the run");
    assert.deepEqual(complete("switchyard logs nosuchrun "), [], "no such run: nothing, and no error");
    assert.deepEqual(complete(`switchyard show ${id.slice(0, 8)}`), [id], "run ids before the run");
    assert.ok(complete("switchyard lo").includes("logs"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
