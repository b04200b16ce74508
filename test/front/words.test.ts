// Words for people. Every command's --help ends with examples and cites no
// bare rule id; an error message cites none either (its code leads to `explain`, which accepts
// rule ids too); an unknown built-in such as `yesno` gets the one it stands for.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forPeople } from "../../src/cli/words.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const RULE = /\b[A-Z]-\d+[a-z]?\b/;
/** `switchyard ARGS` in this process, in `cwd`: what the commands print is the subject. */
const sy = (cwd: string, ...args: string[]) =>
  spawnCliInProcess(args, { cwd, env: { ...process.env, SWITCHYARD_HOME: join(cwd, "state"), XDG_CONFIG_HOME: join(cwd, "xdg") } });

test("words: every command's --help ends with examples and cites no bare rule id", () => {
  // docs/cli.md is generated from every --help (a docs test keeps it current).
  const sections = readFileSync(join(process.cwd(), "docs", "cli.md"), "utf8")
    .split(/\n## `/)
    .slice(1);
  const groups = new Set(["switchyard`", "switchyard config`", "switchyard lab`"]);
  assert.ok(sections.length >= 20);
  for (const s of sections) {
    const name = s.slice(0, s.indexOf("\n"));
    const help = s.slice(s.indexOf("```text"), s.lastIndexOf("```"));
    if (!groups.has(name)) assert.match(help, /\nExamples:\n {2}\S/, `${name} --help ends with examples`);
    const cited = help.split("\n").filter((l) => RULE.test(l) && !/explain/.test(name));
    assert.deepEqual(cited, [], `${name} --help cites rule ids`);
  }
});

test("words: messages leave out rule ids; explain accepts a rule id; yesno suggests noul", async () => {
  assert.equal(forPeople("the question's label 'x' is handled by no task (G-8)"), "the question's label 'x' is handled by no task");
  assert.equal(forPeople("refused this run (D-30):\n  a"), "refused this run:\n  a");
  assert.equal(forPeople("gates (G-3, G-5, G-6); never a failure"), "gates; never a failure");
  const dir = mkdtempSync(join(tmpdir(), "sy-words-"));
  try {
    writeFileSync(
      join(dir, "bad.star"),
      `playbook(description = "x")\nstage = command(name = "stage", run = "true", emits = {"keys": "list"})\nq = yesno(ask = "x?")\n`,
    );
    const check = await sy(dir, "check", "bad.star");
    assert.equal(check.status, 1);
    assert.match(check.stderr, /error\[undefined-name\]: undefined name 'yesno' \(did you mean 'noul'\?\)\n/);
    assert.match(check.stderr, /help: a yes\/no question is `noul`/);
    writeFileSync(
      join(dir, "big.star"),
      `playbook(description = "x")\nstage = command(name = "stage", run = "true", emits = {"keys": "list"})\nm = command(name = "m", depends_on = [stage], over = stage.keys, max_fanout = 20000, run = "true")\n`,
    );
    const big = await sy(dir, "check", "big.star");
    assert.equal(big.status, 1);
    assert.match(big.stderr, /error\[/);
    assert.doesNotMatch(big.stderr, RULE, "no rule id in a compile error");

    // A mistyped pack path, and a swapped pair of letters, get the nearest name.
    const typo = await sy(dir, "run", "bda.star");
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /error\[pack-not-found\]: bda\.star does not exist\nhelp: did you mean bad\.star\?/);

    const rule = await sy(dir, "explain", "G-8");
    assert.equal(rule.status, 0, rule.stderr);
    assert.match(rule.stdout, /^rule G-8 is behind (this error|these \d+ errors):\n\nerror\[/);
    const unknown = await sy(dir, "explain", "Z-99");
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no error comes from rule Z-99/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
