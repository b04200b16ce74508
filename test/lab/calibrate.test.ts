// H-4, D-33: calibration maps fitted from lab pairs. Synthetic pairs with a known
// miscalibration come from a seeded generator: the true chance of agreeing is p, the model
// reports c = 1 − 2(1 − p)² (overconfident), and agreement is drawn with probability p.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calibrate, MIN_PAIRS } from "../../src/lab/calibrate.js";
import { applyMap } from "../../src/decide/calibration-map.js";
import { parseMachineConfig } from "../../src/decide/config.js";
import { DiagnosticError } from "../../src/lang/diagnostic.js";
import { quadraticKappa, meanLevelDistance, wilson, newcombe } from "../../src/lab/stats.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

/** mulberry32: a small seeded generator, so every run of the test sees the same pairs. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticPairs(n: number, seed: number, type = "t.gate.q", model = { provider: "sys1", model: "jev" }): string {
  const rnd = seeded(seed);
  let out = "";
  for (let i = 0; i < n; i++) {
    const p = 0.5 + 0.5 * rnd();
    const c = 1 - 2 * (1 - p) ** 2;
    const agree = rnd() < p;
    const label = agree ? "yes" : "no";
    out +=
      JSON.stringify({
        lab: "lab-261202000000-abcd",
        time: "2026-12-02T00:00:00.000Z",
        run: "run-1",
        type,
        task: "gate",
        key: `k${i}`,
        question: { id: "q", kind: "noul", labels: ["yes", "no"] },
        state_digest: `sha256:${seed}-${i}`,
        host_label: "yes",
        model: {
          ...model,
          label,
          probabilities: { [label]: c, [agree ? "no" : "yes"]: 1 - c },
          confidence: c,
          refused: false,
          latency_ms: 1,
          usage: null,
        },
      }) + "\n";
  }
  return out;
}

function monotone(map: Parameters<typeof applyMap>[0]): boolean {
  let last = -1;
  for (let i = 0; i <= 1000; i++) {
    const v = applyMap(map, i / 1000);
    if (v < last - 1e-12 || v < 0 || v > 1) return false;
    last = v;
  }
  return true;
}

test("isotonic, Platt and temperature maps bring held-out ECE on a known miscalibration below 0.03, and are monotone", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-cal-"));
  try {
    const file = join(dir, "pairs.jsonl");
    writeFileSync(file, syntheticPairs(3000, 7));
    for (const method of ["isotonic", "platt"] as const) {
      const r = await calibrate(file, { method, folds: 5 });
      const o = r.outcomes[0];
      assert.ok(o!.fitted, `${method} fitted`);
      const cv = o!.calibration.cv;
      assert.ok(cv.ece_before > 0.06, `${method}: the raw confidences are miscalibrated (ECE ${cv.ece_before})`);
      assert.ok(cv.ece_after < 0.03, `${method}: held-out ECE after ${cv.ece_after} < 0.03`);
      assert.ok(cv.brier_after < cv.brier_before, `${method}: Brier improves`);
      assert.ok(monotone(o!.calibration.map), `${method}: the map never decreases`);
      // The true relation: c = 1 − 2(1 − p)², so p = 1 − √((1 − c)/2); at c = 0.875, p = 0.75.
      assert.ok(
        Math.abs(applyMap(o!.calibration.map, 0.875) - 0.75) < 0.06,
        `${method}: map(0.875) ≈ 0.75, got ${applyMap(o!.calibration.map, 0.875)}`,
      );
      assert.equal(o!.calibration.pairs.count, 3000);
      assert.match(o!.calibration.id, /^cal-[0-9a-f]{12}$/);
    }
    const t = await calibrate(file, { method: "temperature" });
    assert.ok(t.outcomes[0]!.fitted && monotone(t.outcomes[0]!.calibration.map));
    assert.ok(
      t.outcomes[0]!.fitted && t.outcomes[0]!.calibration.cv.ece_after < t.outcomes[0]!.calibration.cv.ece_before,
      "temperature improves ECE",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("calibrate refuses a type below the minimum pair count, saying how many are needed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-cal-"));
  try {
    const file = join(dir, "pairs.jsonl");
    writeFileSync(file, syntheticPairs(MIN_PAIRS - 1, 3));
    const r = await calibrate(file);
    const o = r.outcomes[0];
    assert.equal(o!.fitted, false);
    assert.ok(!o!.fitted && o!.needed === MIN_PAIRS && o!.pairs === MIN_PAIRS - 1);
    assert.match(!o!.fitted ? o!.reason : "", /at least 30 \(1 more\)/);
    const cli = await spawnCliInProcess(["lab", "calibrate", file]);
    assert.equal(cli.status, 1, cli.stderr);
    assert.match(cli.stdout, /no map: 29 labelled answers; a map needs at least 30/);
    assert.match(cli.stderr, /no map was fitted/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("D-33: `lab calibrate -o` writes a versioned file the machine config accepts for that model only", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-cal-"));
  try {
    const file = join(dir, "pairs.jsonl");
    writeFileSync(file, syntheticPairs(400, 11));
    const out = join(dir, "cal.json");
    const r = await spawnCliInProcess(["lab", "calibrate", file, "--method", "isotonic", "-o", out]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /t\.gate\.q\s+400\s+isotonic\s+0\.\d+ → 0\.\d+/);
    const cal = JSON.parse(readFileSync(out, "utf8"));
    assert.equal(cal.version, 1);
    assert.equal(cal.types["t.gate.q"].model, "sys1/jev");
    assert.match(cal.types["t.gate.q"].pairs.digest, /^sha256:[0-9a-f]{64}$/);
    const config = (mode: string, extra = "") =>
      `[providers.sys1]\nkind = "command"\nvendor = "v"\ncommand = ["x"]\nmodels = ["jev", "other"]\n[decisions.types]\n"t.gate.q" = { mode = "${mode}", calibration = "cal.json", min_confidence = 0.8, audit = 0.25${extra} }\n`;
    const ok = parseMachineConfig(config("sys1/jev"), join(dir, "config.toml"));
    const s = ok.decisions.settings!["t.gate.q"];
    assert.equal(s!.min_confidence, 0.8);
    assert.equal(s!.audit, 0.25);
    assert.equal(s!.calibration!.id, cal.types["t.gate.q"].id);
    assert.deepEqual(ok.decisions.types["t.gate.q"], { kind: "model", provider: "sys1", model: "jev" });
    const codes = (text: string): string[] => {
      try {
        parseMachineConfig(text, join(dir, "config.toml"));
        return [];
      } catch (err) {
        return (err as DiagnosticError).diagnostics.map((d) => `${d.code}@${d.pos?.line}:${d.pos?.col}`);
      }
    };
    assert.deepEqual(
      codes(config("sys1/other")),
      ["config-bad-calibration@7:51"],
      "a map for another model is a config error at the value",
    );
    assert.deepEqual(codes(config("sys1/jev").replace("cal.json", "gone.json")), ["config-bad-calibration@7:49"]);
    assert.deepEqual(
      codes(config("shadow:sys1/jev")),
      ["config-bad-value@7:42", "config-bad-value@7:90"],
      "calibration and audit need a turned-on mode",
    );
    assert.deepEqual(codes(config("sys1/jev", ", treshold = 1")), ["config-unknown-key@7:97"]);
    assert.deepEqual(codes(config("sys1/jev").replace("0.8", "1.5")), ["config-bad-value@7:78"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("Wilson, Newcombe, quadratic-weighted kappa and level distance against hand-computed values", () => {
  // Wilson 8/10, z² = 3.841459: centre (0.8 + 0.192073)/1.384146 = 0.716740,
  // half-width 1.416010 · √(0.016 + 0.009604) = 0.226578.
  const w = wilson(8, 10);
  assert.ok(Math.abs(w.lo - 0.490162) < 1e-5 && Math.abs(w.hi - 0.943318) < 1e-5, JSON.stringify(w));
  assert.deepEqual(wilson(0, 0), { lo: 0, hi: 1 });
  // Newcombe 10: d = 0.5 − 0.8 = −0.3; lower = d − √((0.5 − l₁)² + (u₂ − 0.8)²).
  const a = wilson(50, 100);
  const b = wilson(80, 100);
  const nd = newcombe(50, 100, 80, 100);
  assert.ok(Math.abs(nd.lo - (-0.3 - Math.hypot(0.5 - a.lo, b.hi - 0.8))) < 1e-12);
  assert.ok(nd.hi < 0, "a drop from 80 % to 50 % on 100 pairs each is beyond chance");
  // 3 levels, counts [[5,1,0],[1,3,1],[0,1,4]]: N = 16, weights 0, 1/4, 1; observed Σw·O = 4·(1/4) = 1;
  // margins rows = cols = (6,5,5): expected Σw·E = [ (6·5 + 5·6 + 5·5 + 5·5)/4 + (6·5 + 5·6) ] / 16 = (27.5 + 60)/16 = 5.46875.
  const k = quadraticKappa([
    [5, 1, 0],
    [1, 3, 1],
    [0, 1, 4],
  ]);
  assert.ok(k !== null && Math.abs(k - (1 - 1 / 5.46875)) < 1e-12, String(k));
  assert.equal(
    meanLevelDistance([
      [5, 1, 0],
      [1, 3, 1],
      [0, 1, 4],
    ]),
    4 / 16,
  );
  assert.equal(quadraticKappa([[3]]), null);
});
