// Q-4: a choice option that cannot be a label ("team-web") is invalid-label at `check`, and the
// hint gives the label to use ("team_web", worked out by hand) and where the text goes instead.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

test("Q-4: an option that is not an identifier gets the label to use and the {value, description} form in its hint", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-label-hint-"));
  try {
    writeFileSync(
      join(dir, "playbook.star"),
      `prep = command(name = "prep", run = "true", emits = {"ids": "list"})\n` +
        `r = route(name = "r", depends_on = [prep], questions = {"owner": choice(ask = "?", options = {"team-web": "a", "b": "b"})})\n`,
    );
    const r = await runCliInProcess(["check", dir]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /playbook\.star:2:66: error\[invalid-label\]: label "team-web" of question 'owner' is not an identifier of at most 64 characters\n/,
    );
    assert.match(
      r.stderr,
      /\nhelp: name it "team_web" and keep "team-web" in its description: a choice's options are \{LABEL: DESCRIPTION\}, and options that come from data are \{"value": LABEL, "description": TEXT\}\n/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
