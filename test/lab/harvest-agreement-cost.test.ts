// The harvest's chance-corrected agreement, per-label figures and cost (docs/lab.md), on pairs
// whose confusion matrices are cases of scripts/reference-stats.py: kappa and its interval as
// statsmodels' cohens_kappa gave them (test/fixtures/stats/reference.json, rounded to 6 places as
// the report rounds), precision, recall, latency percentiles, tokens, cost and savings by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runCliInProcess } from "../support/cli-in-process.js";
import { harvest } from "../../src/lab/harvest.js";
import { pairLine } from "../../src/lab/pair-line.js";
import { labPair, pairsOfCounts, withPairsFile } from "../support/lab-pairs.js";

interface KappaCase {
  counts: number[][];
  kappa: number;
  se: number;
  lo: number;
  hi: number;
}
const ref = JSON.parse(readFileSync("test/fixtures/stats/reference.json", "utf8")) as { cohen: KappaCase[]; quadratic: KappaCase[] };
const caseOf = (list: KappaCase[], counts: number[][]) => list.find((c) => JSON.stringify(c.counts) === JSON.stringify(counts))!;
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

test("harvest gives Cohen's kappa with its 95 % interval for yes/no (abstentions left out) and quadratic-weighted kappa for scores", async () => {
  const yesNo = [
    [40, 9],
    [6, 45],
  ];
  const levels = [
    [5, 1, 0],
    [2, 7, 1],
    [0, 3, 9],
  ];
  const pairs = [
    ...pairsOfCounts(yesNo, ["yes", "no"], { type: "t.gate" }),
    // A refusal: counted in agreement and recall, never in kappa.
    { type: "t.gate", key: "refused", host: "yes", model: null },
    ...pairsOfCounts(levels, ["low", "mid", "high"], { type: "t.level", kind: "score" }),
  ].map(labPair);
  await withPairsFile(pairs, async (file) => {
    const r = await harvest(file);
    const gate = r.types.find((t) => t.type === "t.gate")!;
    const plain = caseOf(ref.cohen, yesNo);
    assert.deepEqual(gate.kappa, {
      weighting: "plain",
      n: 100,
      kappa: r6(plain.kappa),
      se: r6(plain.se),
      lo: r6(plain.lo),
      hi: r6(plain.hi),
    });
    // yes: the model said it 46 times, 40 of them where the host did; the host said it 50 times (one refused).
    assert.deepEqual(gate.per_label, [
      { label: "yes", host: 50, model: 46, both: 40, precision: r6(40 / 46), recall: r6(40 / 50) },
      { label: "no", host: 51, model: 54, both: 45, precision: r6(45 / 54), recall: r6(45 / 51) },
    ]);
    const level = r.types.find((t) => t.type === "t.level")!;
    const q = caseOf(ref.quadratic, levels);
    assert.deepEqual(level.kappa, { weighting: "quadratic", n: 28, kappa: r6(q.kappa), se: r6(q.se), lo: r6(q.lo), hi: r6(q.hi) });
    assert.equal(level.score?.quadratic_kappa, r6(q.kappa));
    const text = (await runCliInProcess(["lab", "harvest", file])).stdout;
    assert.match(
      text,
      new RegExp(
        `kappa ${plain.kappa.toFixed(3)} \\(${plain.lo.toFixed(3)} … ${plain.hi.toFixed(3)}\\) over 100 labelled answers · raw agreement 84\\.2%`,
      ),
    );
    assert.match(text, /per label \(model against host\): yes precision 87\.0% recall 80\.0% · no precision 83\.3% recall 88\.2%/);
  });
});

test("harvest gives mean and p95 latency, tokens and cost per decision on both sides, and what turning the type on saves", async () => {
  const pairs = [];
  for (let i = 0; i < 20; i++)
    pairs.push(
      labPair({
        key: `k${i}`,
        host: "yes",
        model: "yes",
        confidence: 0.97,
        latency: i + 1,
        usage: { input_tokens: 100, output_tokens: 10, cost_usd: 0.001 },
        // The host's usage rides on the first question of its call only: every other pair has none.
        hostSide: { latency_ms: 100 * (i + 1), usage: i % 2 === 0 ? { input_tokens: 1000, output_tokens: 50, cost_usd: 0.02 } : null },
      }),
    );
  // An older pair, recorded before the host's side was: in the model's figures, not in the savings.
  pairs.push(
    labPair({
      key: "old",
      host: "yes",
      model: "yes",
      confidence: 0.97,
      latency: 21,
      usage: { input_tokens: 100, output_tokens: 10, cost_usd: 0.001 },
    }),
  );
  await withPairsFile(pairs, async (file) => {
    const r = await harvest(file);
    const cost = r.types[0]!.cost!;
    assert.equal(cost.models.length, 1);
    // Model latencies 1 … 21: mean 11; nearest rank ⌈0.95·21⌉ = 20 → 20 ms.
    assert.deepEqual(cost.models[0]!.model_side, {
      n: 21,
      mean_latency_ms: 11,
      p95_latency_ms: 20,
      mean_input_tokens: 100,
      mean_output_tokens: 10,
      with_tokens: 21,
      mean_cost_usd: 0.001,
      with_cost: 21,
    });
    // Host latencies 100 … 2000 over 20 pairs: mean 1050; ⌈0.95·20⌉ = 19 → 1900 ms. Usage on 10 of them.
    assert.deepEqual(cost.models[0]!.host, {
      n: 20,
      mean_latency_ms: 1050,
      p95_latency_ms: 1900,
      mean_input_tokens: 1000,
      mean_output_tokens: 50,
      with_tokens: 10,
      mean_cost_usd: 0.02,
      with_cost: 10,
    });
    // Recommended threshold 0.00 (all agree): the model decides all 20 host-recorded pairs.
    assert.deepEqual(cost.savings, {
      threshold: 0,
      answered: 21,
      host_recorded: 20,
      covered: 20,
      host_cost_avoided_usd: 0.2,
      model_cost_usd: 0.02,
      saved_usd: 0.18,
      host_latency_avoided_ms: 21000,
      model_latency_ms: 210,
      saved_latency_ms: 20790,
    });
    const text = (await runCliInProcess(["lab", "harvest", file])).stdout;
    assert.match(text, /sys1\/jev\s+model\s+21\s+11 ms\s+20 ms\s+100\/10\s+\$0\.001000/);
    assert.match(text, /sys1\/jev\s+host\s+20\s+1050 ms\s+1900 ms\s+1000\/50\s+\$0\.020000/);
    assert.match(
      text,
      /turned on at 0\.00, on the 20 pairs that recorded the host: the model decides 20; host cost avoided \$0\.200000, model cost \$0\.020000, saved \$0\.180000/,
    );
  });
});

test("savings count only the pairs at or above the threshold; none without the host's side", async () => {
  // 30 agree at 0.97, 10 disagree at 0.6: the target 95 % is reached from 0.61 on, covering the 30.
  const pairs = [];
  for (let i = 0; i < 40; i++) {
    const high = i < 30;
    pairs.push(
      labPair({
        key: `k${i}`,
        host: "yes",
        model: high ? "yes" : "no",
        confidence: high ? 0.97 : 0.6,
        usage: { cost_usd: 0.001 },
        hostSide: { latency_ms: 10, usage: { cost_usd: 0.01 } },
      }),
    );
  }
  await withPairsFile(pairs, async (file) => {
    const s = (await harvest(file)).types[0]!.cost!.savings!;
    assert.equal(s.threshold, 0.61);
    assert.equal(s.covered, 30);
    assert.equal(s.host_cost_avoided_usd, 0.3);
    assert.equal(s.model_cost_usd, 0.04);
    assert.equal(s.saved_usd, 0.26);
  });
  await withPairsFile([labPair({ key: "a", host: "yes", model: "yes", confidence: 0.99 })], async (file) =>
    assert.equal((await harvest(file)).types[0]!.cost!.savings, null),
  );
});

test("H-1: a pair's line keeps the host's latency and usage (tokens and cost only), and a reviewed pair's label", () => {
  const pair = labPair({
    key: "k",
    host: "yes",
    model: "yes",
    hostSide: { latency_ms: 70, usage: { input_tokens: 5, cached_input_tokens: 2, cost_usd: 0.1 } },
  });
  assert.deepEqual(JSON.parse(pairLine(pair)).host, { latency_ms: 70, usage: { input_tokens: 5, cost_usd: 0.1 } });
  const reviewed = JSON.parse(
    pairLine({ ...pair, kind: "reviewed", reviewed: { label: "no", by: "ana", source: "x.csv", time: "2026-12-04T00:00:00.000Z" } }),
  );
  assert.equal(reviewed.kind, "reviewed");
  assert.deepEqual(reviewed.reviewed, { label: "no", by: "ana", source: "x.csv", time: "2026-12-04T00:00:00.000Z" });
  assert.equal("host" in JSON.parse(pairLine(labPair({ key: "k", host: "yes", model: "yes" }))), false);
});
