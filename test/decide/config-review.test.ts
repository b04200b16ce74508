// D-60, D-61, D-64, D-66: the review queue's keys in the machine config — `mode = "review"`,
// `escalate_below`, `review_timeout` (per type and in [decisions]) and `review_notify` — load as
// written, and every misplaced or malformed one is a config error at its line, as `config check`
// reports it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { loadMachineConfig } from "../../src/decide/config.js";
import { parseMode, formatMode } from "../../src/decide/mode.js";
import { DiagnosticError, type Diagnostic } from "../../src/lang/diagnostic.js";
import { TempDir } from "../run/helpers.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

const dir = new TempDir("switchyard-review-config-");
after(() => dir.cleanup());
let n = 0;
const write = (text: string) => dir.file(`c${n++}.toml`, text);

const PROVIDER = `
[providers.local]
kind = "systemone"
vendor = "mapika"
base_url = "http://127.0.0.1:8000"
models = ["m1"]
`;

function errorsOf(text: string): Diagnostic[] {
  try {
    loadMachineConfig(write(text), {});
  } catch (err) {
    assert.ok(err instanceof DiagnosticError, String(err));
    return err.diagnostics;
  }
  assert.fail("expected the config to be rejected");
}

test("D-60: `review` is a mode, written and read back as such", () => {
  assert.deepEqual(parseMode("review"), { kind: "review" });
  assert.equal(formatMode({ kind: "review" }), "review");
});

test("D-60/D-61/D-64/D-66: review mode, escalate_below, review_timeout and review_notify load as written", () => {
  const c = loadMachineConfig(
    write(`${PROVIDER}
[decisions]
review_timeout = "8h"
review_notify = ["./notify.sh", "#triage"]

[decisions.types]
"a" = { mode = "review" }
"b" = { mode = "local/m1", escalate_below = 0.7, review_timeout = "1h30m" }
"c" = "review"
`),
    {},
  );
  assert.deepEqual(c.decisions.types.a, { kind: "review" });
  assert.deepEqual(c.decisions.types.c, { kind: "review" });
  assert.equal(c.decisions.settings?.b?.escalate_below, 0.7);
  assert.equal(c.decisions.settings?.b?.review_timeout_ms, 90 * 60 * 1000);
  assert.equal(c.decisions.review_timeout_ms, 8 * 3600 * 1000);
  assert.deepEqual(c.decisions.review_notify, ["./notify.sh", "#triage"]);
});

test("D-61/D-64/D-66: misplaced and malformed review keys are config errors at their line", () => {
  const cases: Array<[string, string, RegExp, number]> = [
    [`"t" = { mode = "host", escalate_below = 0.7 }`, "config-bad-value", /escalate_below does nothing in mode "host"/, 2],
    [`"t" = { mode = "review", escalate_below = 0.7 }`, "config-bad-value", /escalate_below does nothing in mode "review"/, 2],
    [`"t" = { mode = "local/m1", escalate_below = 1.5 }`, "config-bad-value", /escalate_below = 1.5 is not between 0 and 1/, 2],
    [
      `"t" = { mode = "local/m1", review_timeout = "4h" }`,
      "config-bad-value",
      /review_timeout does nothing: no question of this type goes to review/,
      2,
    ],
    [`"t" = { mode = "review", review_timeout = "4 hours" }`, "config-bad-value", /review_timeout = "4 hours" is not a duration/, 2],
    [`"t" = { mode = "review", review_timeout = 4 }`, "config-bad-type", /review_timeout/, 2],
  ];
  for (const [line, code, message, at] of cases) {
    const errors = errorsOf(`${PROVIDER}\n[decisions.types]\n${line}\n`);
    assert.deepEqual(
      errors.map((d) => d.code),
      [code],
      line,
    );
    assert.match(errors[0]!.message, message, line);
    assert.equal(errors[0]!.pos?.line, PROVIDER.split("\n").length + at, line);
  }
  const notify = errorsOf(`[decisions]\nreview_notify = "./notify.sh"\n`);
  assert.deepEqual(
    notify.map((d) => d.code),
    ["config-bad-type"],
  );
  assert.equal(notify[0]!.pos?.line, 2);
  assert.deepEqual(
    errorsOf(`[decisions]\nreview_notify = []\n`).map((d) => d.code),
    ["config-bad-value"],
  );
});

test("D-60: `config check` passes a config with a review type and reports a misplaced escalate_below", async () => {
  const ok = write(`${PROVIDER}\n[decisions.types]\n"t" = { mode = "review", review_timeout = "4h" }\n`);
  const r = await spawnCliInProcess(["config", "check", "--config", ok]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const bad = write(`${PROVIDER}\n[decisions.types]\n"t" = { mode = "host", escalate_below = 0.5 }\n`);
  const b = await spawnCliInProcess(["config", "check", "--config", bad]);
  assert.equal(b.status, 2, b.stdout + b.stderr);
  assert.match(b.stdout + b.stderr, /error\[config-bad-value\]: .*escalate_below does nothing in mode "host"/);
});
