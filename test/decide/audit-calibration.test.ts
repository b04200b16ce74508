// D-33, D-34: a calibration map applied in a turned-on run, and audited turn-on —
// the seeded sample, the host asked for exactly the sampled keys, audit pairs, and drift.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { createJudge } from "../../src/decide/router.js";
import { auditSampled } from "../../src/decide/audit.js";
import { applyMap, type TypeCalibration } from "../../src/decide/calibration-map.js";
import type { MachineConfig, TypeSettings } from "../../src/decide/config-types.js";
import type { ResolvedQuestion } from "../../src/run/kinds/judge.js";
import { openLabSink } from "../../src/lab/store.js";
import { MemorySink, ScriptedProvider, hostAnswering, machine, noul, on, provider, request, shadow } from "./router-support.js";
import type { ProviderResponse } from "../../src/decide/provider.js";

const BIN = resolve("bin/switchyard.js");
const TYPE = "t.gate.ok";

/** The model says `yes` for key kN with confidence 0.55 + (N mod 100)/250: never a tie. */
function confidenceOf(key: string | null): number {
  return 0.55 + (Number((key ?? "k0").slice(1)) % 100) / 250;
}
const model = (wrong: (key: string | null) => boolean = () => false) =>
  new ScriptedProvider("sys1", (req): ProviderResponse => {
    const c = confidenceOf(req.context.key);
    const yes = wrong(req.context.key) ? 1 - c : c;
    return {
      answers: Object.fromEntries(req.questions.map((q) => [q.id, { probabilities: { yes, no: 1 - yes } }])),
      usage: null,
      latency_ms: 1,
    };
  });

function withSettings(mode: ReturnType<typeof on>, settings: Omit<TypeSettings, "mode">): MachineConfig {
  const config = machine({ providers: [provider("sys1", ["jev"])], types: { [TYPE]: mode } });
  config.decisions.settings = { [TYPE]: { mode, ...settings } };
  return config;
}

const calibration: TypeCalibration & { file: string } = {
  id: "cal-0123456789ab",
  type: TYPE,
  model: "sys1/jev",
  method: "platt",
  file: "/x/cal.json",
  pairs: { count: 100, digest: "sha256:0" },
  baseline: { answered: 100, agree: 80 },
  cv: { folds: 5, ece_before: 0.1, ece_after: 0.02, brier_before: 0.2, brier_after: 0.15 },
  map: { kind: "platt", a: 1, b: -1 }, // overconfident model: its confidences are pulled down
};

test("D-33: a map applied in a turned-on run changes exactly the decisions it should, raw and calibrated confidence in the record", async () => {
  const host = new ScriptedProvider(
    "host",
    hostAnswering(() => "yes"),
  );
  const m = model();
  // The machine config's min_confidence (0.6) wins over the playbook's (0.9 here).
  const judge = createJudge({
    config: withSettings(on("sys1", "jev"), { calibration, min_confidence: 0.6 }),
    stateDir: "/nonexistent",
    providers: { sys1: m },
    host,
    pairs: new MemorySink(),
  });
  const q: ResolvedQuestion = { ...noul("ok", TYPE), min_confidence: 0.9 };
  let changed = 0;
  for (let n = 0; n < 100; n++) {
    const key = `k${n}`;
    const d = (await judge.judge(request([q], key))).ok;
    const raw = confidenceOf(key);
    const cal = applyMap(calibration.map, raw);
    const expected = cal < 0.6 ? "uncertain" : "yes";
    assert.equal(d!.label, expected, `${key}: raw ${raw}, calibrated ${cal}`);
    assert.equal(d!.raw_confidence, raw, `${key}: the model's own confidence`);
    assert.ok(Math.abs(d!.confidence - cal) < 1e-12, `${key}: the calibrated confidence`);
    assert.equal(d!.calibration, calibration.id);
    assert.equal(d!.mode, "model");
    // Recorded: the config's threshold, though a calibrated question is asked with 0 (D-33).
    assert.equal(d!.min_confidence, 0.6);
    if (raw >= 0.6 !== cal >= 0.6) changed++;
  }
  assert.ok(changed > 20, `the map moved ${changed} decisions across the threshold`);
  assert.equal(host.requests.length, 0, "no audit: the host is never asked");
  // Under another mode (a --decide override) the entry's settings do not apply.
  const overridden = createJudge({
    config: withSettings(on("sys1", "jev"), { calibration, min_confidence: 0.6 }),
    overrides: { [TYPE]: shadow("sys1", "jev") },
    stateDir: "/x",
    providers: { sys1: m },
    host,
    pairs: new MemorySink(),
  });
  const s = (await overridden.judge(request([q], "k10"))).ok;
  assert.equal(s!.mode, "shadow");
  assert.equal(s!.calibration, undefined);
  // The shadow's record is the host's answer, tested against the playbook's threshold.
  assert.equal(s!.min_confidence, 0.9);
});

test("D-34: audit sampling is deterministic for a seed and close to the fraction over 10,000 decisions", () => {
  let sampled = 0;
  let other = 0;
  let same = 0;
  for (let i = 0; i < 10_000; i++) {
    const a = auditSampled(0.1, "run-1", "gate", `k${i}`, "q");
    if (a) sampled++;
    if (a === auditSampled(0.1, "run-1", "gate", `k${i}`, "q")) same++;
    if (auditSampled(0.1, "run-1", "gate", `k${i}`, "q", "another seed")) other++;
  }
  assert.equal(same, 10_000, "the same decision is always in or always out");
  // Binomial(10000, 0.1): σ = 30; 4σ either way.
  assert.ok(Math.abs(sampled - 1000) < 120, `sampled ${sampled}`);
  assert.ok(Math.abs(other - 1000) < 120, `another seed sampled ${other}`);
  assert.equal(auditSampled(0, "r", "t", "k", "q"), false);
  assert.equal(auditSampled(1, "r", "t", "k", "q"), true);
});

test("D-34: the host is asked exactly for the sampled keys; the model still gates; audit pairs go to the lab", async () => {
  const host = new ScriptedProvider(
    "host",
    hostAnswering(() => "no"),
  );
  const sink = new MemorySink();
  const judge = createJudge({
    config: withSettings(on("sys1", "jev"), { audit: 0.2 }),
    stateDir: "/x",
    providers: { sys1: model() },
    host,
    pairs: sink,
  });
  const expected: string[] = [];
  for (let n = 0; n < 300; n++) {
    const key = `k${n}`;
    if (auditSampled(0.2, "run-1", "gate", key, "ok")) expected.push(key);
    const d = (await judge.judge(request([noul("ok", TYPE)], key))).ok;
    assert.equal(d!.label, "yes", "the model's answer gates, whatever the host says");
    assert.equal(d!.audit?.host_label, expected.at(-1) === key ? "no" : undefined);
  }
  assert.deepEqual(
    host.requests.map((r) => r.context.key),
    expected,
    "asked for the sampled keys, once each",
  );
  assert.ok(expected.length > 30 && expected.length < 90, `${expected.length} of 300 sampled`);
  assert.equal(sink.pairs.length, expected.length);
  assert.ok(sink.pairs.every((p) => p.kind === "audit" && p.host_label === "no" && p.model?.label === "yes"));
});

test("D-34: an audited question that falls back takes the audit answer: the host is asked once", async () => {
  const host = new ScriptedProvider(
    "host",
    hostAnswering(() => "no"),
  );
  const failing = new ScriptedProvider("sys1", () => {
    throw new Error("HTTP 500");
  });
  const sink = new MemorySink();
  const judge = createJudge({
    config: withSettings(on("sys1", "jev"), { audit: 1 }),
    stateDir: "/x",
    providers: { sys1: failing },
    host,
    pairs: sink,
  });
  const d = (await judge.judge(request([noul("ok", TYPE)], "k1"))).ok;
  assert.equal(d!.label, "no");
  assert.match(d!.receipt?.reason ?? "", /^error: /);
  assert.equal(host.requests.length, 1);
  assert.equal(sink.pairs[0]!.kind, "audit");
  assert.ok(sink.pairs[0]!.skipped);
});

async function labWith(degraded: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "sy-drift-"));
  const sink = openLabSink(dir);
  const host = new ScriptedProvider(
    "host",
    hostAnswering(() => "yes"),
  );
  // Shadow: wrong on 1 key in 10. Turned on: the same — or, degraded, wrong on 1 key in 2.
  const shadowJudge = createJudge({
    config: machine({ providers: [provider("sys1", ["jev"])], types: { [TYPE]: shadow("sys1", "jev") } }),
    stateDir: dir,
    providers: { sys1: model((k) => Number(k!.slice(1)) % 10 === 0) },
    host,
    pairs: sink,
  });
  for (let n = 0; n < 200; n++) await shadowJudge.judge({ ...request([noul("ok", TYPE)], `k${n}`, { n }), run: "shadow-run" });
  const auditJudge = createJudge({
    config: withSettings(on("sys1", "jev"), { audit: 1 }),
    stateDir: dir,
    providers: { sys1: model((k) => Number(k!.slice(1)) % (degraded ? 2 : 10) === 0) },
    host,
    pairs: sink,
  });
  for (let n = 0; n < 200; n++) await auditJudge.judge({ ...request([noul("ok", TYPE)], `k${n}`, { n, later: true }), run: "audit-run" });
  sink.close();
  return dir;
}

test("D-34: `lab harvest --check` flags drift when the model degrades, and not when it does not", async () => {
  for (const degraded of [false, true]) {
    const dir = await labWith(degraded);
    try {
      const r = spawnSync(process.execPath, [BIN, "lab", "harvest", "--check", "--json", "--state-dir", dir], { encoding: "utf8" });
      const rep = JSON.parse(r.stdout) as {
        drift: string[];
        types: Array<{ type: string; audit: { agreement: { rate: number }; baseline: { rate: number; source: string }; drift: boolean } }>;
      };
      const a = rep.types[0]!.audit;
      assert.equal(a.baseline.source, "shadow");
      assert.equal(a.baseline.rate, 0.9);
      assert.equal(a.agreement.rate, degraded ? 0.5 : 0.9);
      assert.equal(a.drift, degraded);
      assert.deepEqual(rep.drift, degraded ? [TYPE] : []);
      assert.equal(r.status, degraded ? 1 : 0, r.stderr);
      if (degraded) assert.match(r.stderr, /drift: audit agreement dropped beyond chance for t\.gate\.ok/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
