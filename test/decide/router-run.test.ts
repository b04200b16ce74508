// The router under the run engine: a mapped model-decided route run end to end against a real
// System One server and a real host runner, with a provider key set, then the whole state folder
// grepped for the key (D-21: keys only from api_key_env, never stored or logged).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createJudge } from "../../src/decide/router.js";
import { loadMachineConfig, secretEnvNames } from "../../src/decide/config.js";
import { openLabSink, labsDir } from "../../src/lab/store.js";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";
import { filesUnder } from "../support/files.js";
import { harness, plan, evaluate, modelRoute, noul, choice, when, mapped, ref, runPlan, statuses } from "../run/helpers.js";

const KEY_ENV = "SWITCHYARD_ROUTER_RUN_KEY";
const SECRET = "sk-router-run-9f8e7d6c5b4a3210";

test("D-10/D-31/H-1: a run with shadow and turned-on types records host labels, model labels, receipts and pairs — and no key anywhere", async () => {
  const h = harness();
  process.env[KEY_ENV] = SECRET;
  // The model: "exploitable" no (P(yes) = 0.1), depth "deep"; elements keyed "broken-…" get 500s.
  const server = await startSystemOneServer({
    table: {
      rules: [
        { question: "exploitable", answer: { p_yes: 0.1 } },
        { question: "depth", answer: { probabilities: { quick: 0.2, deep: 0.8 } } },
      ],
    },
    answer: (req) => ((req.state as { key?: string }).key?.startsWith("broken") ? { status: 500, json: { detail: "boom" } } : undefined),
  });
  const runner = h.dir.file(
    "runner.mjs",
    `
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const m = /list above \\(([^)]*)\\)/.exec(input);
  process.stdout.write(m ? m[1].split(",")[0].trim() + "\\n" : "???\\n");
});
`,
  );
  const configPath = h.dir.file(
    "config.toml",
    `
[agents.scripted]
command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(runner)}]

${systemOneProviderToml(server.url, KEY_ENV, `models = ["jev-1"]\nmax_retries = 0`)}
[decisions]
host = "scripted"

[decisions.types]
"test.exploitable" = "shadow:s1/jev-1"
"test.depth" = "s1/jev-1"
`,
  );
  try {
    const config = loadMachineConfig(configPath, {});
    assert.deepEqual(secretEnvNames(config), [KEY_ENV]);
    const pairs = openLabSink(h.state);
    const judge = createJudge({ config, stateDir: h.state, pairs });
    const members = ref("prepare", "members");
    const p = plan([
      evaluate("prepare", { emits: { members: "list" } }),
      modelRoute("gate", [noul("exploitable"), choice("depth", ["quick", "deep"])], { depends_on: ["prepare"], ...mapped(members) }),
      evaluate("fix", { depends_on: ["prepare", "gate"], ...mapped(members), when: when("gate", "exploitable", ["yes"]) }),
      evaluate("deep", { depends_on: ["prepare", "gate"], ...mapped(members), when: when("gate", "depth", ["deep"]) }),
    ]);
    const { outcome, show } = await runPlan(h, p, {
      judge,
      secretEnv: secretEnvNames(config),
      fns: { prepare: () => ({ members: ["ok-1", "ok-2", "broken-3"] }), fix: () => ({}), deep: () => ({}) },
    });
    pairs.close();
    await judge.close();
    assert.equal(outcome.status, "passed", JSON.stringify(outcome));

    type Q = { label: string; mode: string; provider: string; receipt?: { reason: string; key: string } };
    const gate = (key: string) => show.tasks.gate!.instances![key]!.output as Record<string, Q>;
    // Shadow: the host's "yes" gates, whatever the model said.
    assert.deepEqual(statuses(show, "fix"), { "ok-1": "passed", "ok-2": "passed", "broken-3": "passed" });
    assert.equal(gate("ok-1").exploitable.mode, "shadow");
    // Turned on: the model's "deep" for the good elements; the host's "quick" (its first label) with a receipt for the broken one.
    assert.deepEqual(statuses(show, "deep"), { "ok-1": "passed", "ok-2": "passed", "broken-3": "not_taken" });
    assert.deepEqual([gate("ok-1").depth.label, gate("ok-1").depth.provider, gate("ok-1").depth.receipt], ["deep", "s1", undefined]);
    assert.deepEqual(
      [gate("broken-3").depth.label, gate("broken-3").depth.provider, gate("broken-3").depth.receipt?.key],
      ["quick", "host", "broken-3"],
    );
    assert.match(gate("broken-3").depth.receipt!.reason, /^error: .*500/);

    const lab = readdirSync(labsDir(h.state)).filter((f) => f !== "current")[0]!;
    const lines = readFileSync(join(labsDir(h.state), lab, "pairs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; host_label: string; model?: { label: string }; skipped?: { reason: string } });
    const byKey = Object.fromEntries(lines.map((l) => [l.key, l]));
    assert.equal(lines.length, 3, "one pair per shadow decision");
    assert.deepEqual([byKey["ok-1"].host_label, byKey["ok-1"].model?.label], ["yes", "no"]);
    assert.match(byKey["broken-3"].skipped!.reason, /^error: .*500/);

    // The key reached the server, and nowhere else: not the state folder (store, logs, labs).
    assert.ok(server.requests.every((r) => r.headers.authorization === `Bearer ${SECRET}`));
    const files = filesUnder(h.state);
    assert.ok(files.length > 3);
    for (const f of files) assert.ok(!readFileSync(f).includes(SECRET), `${f} does not contain the key`);
    assert.ok(!JSON.stringify(show).includes(SECRET));
  } finally {
    delete process.env[KEY_ENV];
    await server.close();
    h.store.close();
    h.dir.cleanup();
  }
});
