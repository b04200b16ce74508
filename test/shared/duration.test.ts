// One duration grammar (src/shared/primitives.ts) for playbooks, the machine config
// and --max-duration; "1.5s" is a duration everywhere, "30" nowhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDurationMs, parseDurationSeconds } from "../../src/shared/primitives.js";
import { parseDuration, readPlanToml, writePlanToml } from "../../src/plan/index.js";
import { loadMachineConfig } from "../../src/decide/config.js";
import { DiagnosticError } from "../../src/lang/diagnostic.js";
import { compileSource, PREP } from "../plan/helpers.js";

const GOOD: Array<[string, number]> = [
  ["500ms", 500],
  ["30s", 30_000],
  ["1.5s", 1500],
  ["90s", 90_000],
  ["10m", 600_000],
  ["1h30m", 5_400_000],
  ["1.5h", 5_400_000],
  ["2h", 7_200_000],
  ["1m30s250ms", 90_250],
];
const BAD = ["", "30", "1.5", "s", "0s", "0ms", "-1s", "1 s", "1h 30m", "1.s", ".5s", "1d", "1S", "x".repeat(33), `${"1".repeat(31)}s`];

test("the one duration grammar: parts of a number and a unit ms, s, m or h; above zero", () => {
  for (const [text, ms] of GOOD) {
    assert.equal(parseDurationMs(text), ms, text);
    assert.equal(parseDurationSeconds(text), ms / 1000, text);
    assert.equal(parseDuration(text), ms / 1000, `--max-duration ${text}`);
  }
  for (const text of BAD) assert.equal(parseDurationMs(text), undefined, JSON.stringify(text));
});

test('"1.5s" is valid in a playbook and in the machine config alike; "30" in neither', () => {
  const ok = compileSource(
    'playbook(description = "d", max_duration = "1.5h")\n' + PREP.replace('run = "true"', 'run = "true", timeout = "1.5s"'),
  );
  assert.deepEqual(ok.diagnostics, []);
  assert.equal(ok.plan!.tasks.find((t) => t.name === "prep")!.timeout_seconds, 1.5);
  assert.equal(ok.plan!.settings.max_duration_seconds, 5400);
  // A compiled plan keeps a fractional timeout through plan.toml.
  const back = readPlanToml(writePlanToml(ok.plan!));
  assert.equal(back.tasks.find((t) => t.name === "prep")!.timeout_seconds, 1.5);
  const bad = compileSource(PREP.replace('run = "true"', 'run = "true", timeout = "30"'));
  assert.deepEqual(
    bad.diagnostics.map((d) => d.code),
    ["invalid-duration"],
  );

  const dir = mkdtempSync(join(tmpdir(), "sy-duration-"));
  try {
    const config = (timeout: string) => {
      const file = join(dir, "config.toml");
      writeFileSync(
        file,
        `[providers.local]\nkind = "systemone"\nvendor = "mapika"\nbase_url = "http://127.0.0.1:8000"\nmodels = ["m"]\ntimeout = "${timeout}"\n`,
      );
      return () => loadMachineConfig(file, {});
    };
    assert.equal(config("1.5s")().providers.local!.timeout_ms, 1500);
    assert.throws(config("30"), (e: unknown) => e instanceof DiagnosticError && e.code === "config-bad-value");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
