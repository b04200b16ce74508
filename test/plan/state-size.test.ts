// `check` estimates each model-decided route's state per element and warns above a limit.
// The expected sizes are worked out by hand from the rules written in docs/reference/runs.md:
//
//   {"key":"…","inputs":{}} with a 16-character key            22 + 16         =     38
//   "prep": {…}                                                  4 + 6           =     10
//   "ids": a list one entry per element (300 × 20)               3 + 4 + 6,000   =  6,007
//   "owners": an object keyed by element (300 × 40)              6 + 4 + 12,000  = 12,010
//                                                                          total  = 18,065 characters
//   tokens = ceil(18,065 / 4) = 4,517
//
// With keyed = [prep.owners], owners is one entry: 6 + 4 + 40 = 50, total 38 + 10 + 6,007 + 50 =
// 6,105 characters, ceil(6,105 / 4) = 1,527 tokens: below the default 2,000.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";

const PLAYBOOK = (extra = "") =>
  `prep = command(name = "prep", run = "true", emits = {"ids": "list", "owners": "object"})\n` +
  `triage = route(name = "triage", depends_on = [prep], over = prep.ids, max_fanout = 300${extra},\n` +
  `    questions = {"owner": choice(ask = "Which team owns it?", options = {"web": "the web team", "api": "the API team"}, drop = ["web", "api", "uncertain"])})\n`;

async function check(source: string, ...flags: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "sy-state-size-"));
  try {
    writeFileSync(join(dir, "triage.star"), source);
    return await runCliInProcess(["check", dir, ...flags]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("R-22: a route reading a whole 300-id list and a 300-entry object per element warns with the sizes, the largest parts and the fixes; exit 0", async () => {
  const r = await check(PLAYBOOK());
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /triage\.star:2:10: warning\[route-state-large\]: each decision of triage sends a state of about 4,517 tokens \(18,065 characters\), above the limit of 2,000: prep\.owners ~12,010 characters \(300 entries, one per element of triage, × 40\), prep\.ids ~6,007 characters \(300 entries, one per element of triage, × 20\)\n/,
  );
  assert.match(r.stderr, /help: keyed = \[prep\.owners\] gives each element only its own entry; emit a smaller field than prep\.ids/);
  assert.match(r.stderr, /--state-warn-tokens N/);
  assert.match(r.stdout, /ok: playbook 'triage', 2 tasks \(0 errors, 1 warning\)/);
});

test("R-22: the same route with keyed = [prep.owners] is estimated at 1,527 tokens and says nothing", async () => {
  const r = await check(PLAYBOOK(", keyed = [prep.owners]"));
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /route-state-large/);
  const at = await check(PLAYBOOK(", keyed = [prep.owners]"), "--state-warn-tokens", "1526");
  assert.match(at.stderr, /about 1,527 tokens \(6,105 characters\), above the limit of 1,526/);
});

test("R-22: a state of exactly the limit is silent, one token past it warns", async () => {
  const at = await check(PLAYBOOK(), "--state-warn-tokens", "4517");
  assert.doesNotMatch(at.stderr, /route-state-large/);
  const past = await check(PLAYBOOK(), "--state-warn-tokens", "4516");
  assert.match(past.stderr, /warning\[route-state-large\]: each decision of triage sends a state of about 4,517 tokens/);
  const json = await check(PLAYBOOK(), "--state-warn-tokens", "4516", "--json");
  const doc = JSON.parse(json.stdout) as { ok: boolean; diagnostics: Array<{ code: string; severity: string }> };
  assert.equal(doc.ok, true);
  assert.deepEqual(
    doc.diagnostics.map((d) => [d.code, d.severity]),
    [["route-state-large", "warning"]],
  );
});

test("R-22: --state-warn-tokens takes a whole number of at least 1", async () => {
  const r = await check(PLAYBOOK(), "--state-warn-tokens", "0");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--state-warn-tokens must be a whole number of at least 1, got "0"/);
});

test("R-22: an output-decided route sends no state and is not estimated", async () => {
  const r = await check(
    `prep = command(name = "prep", run = "true", emits = {"ids": "list", "owners": "object", "labels": "object"})\n` +
      `triage = route(name = "triage", depends_on = [prep], over = prep.ids, max_fanout = 300, decide = "output", source = prep.labels,\n` +
      `    questions = {"owner": choice(ask = "Which team owns it?", options = {"web": "the web team", "api": "the API team"}, drop = ["web", "api"])})\n`,
    "--state-warn-tokens",
    "1",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /route-state-large/);
});
