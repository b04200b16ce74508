// `lab compare`: two models of one type on the same elements, each against the host, through the
// CLI — the paired table, the difference with Newcombe's paired interval and McNemar's exact p as
// scripts/reference-stats.py computed them for this table (test/fixtures/stats/reference.json),
// coverage at A's threshold, cost per decision, and the --max-drop gate at its boundary.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";
import { labPair, withPairsFile, type PairSpec } from "../support/lab-pairs.js";
import type { ShadowPair } from "../../src/decide/pair.js";

const ref = JSON.parse(readFileSync("test/fixtures/stats/reference.json", "utf8")) as {
  mcnemar: { b: number; c: number; p: number }[];
  paired: { table: number[][]; d: number; lo: number; hi: number }[];
};
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** 300 elements: both right 200, only the old model 12, only the new one 30, neither 58. */
function twoModels(): { old: ShadowPair[]; neu: ShadowPair[] } {
  const old: ShadowPair[] = [];
  const neu: ShadowPair[] = [];
  const cells: Array<[number, boolean, boolean]> = [
    [200, true, true],
    [12, true, false],
    [30, false, true],
    [58, false, false],
  ];
  let i = 0;
  for (const [n, oldRight, newRight] of cells)
    for (let r = 0; r < n; r++, i++) {
      const base: PairSpec = { type: "t.gate", key: `k${i}`, host: "yes", model: "yes" };
      old.push(
        labPair({
          ...base,
          run: "run-old",
          modelName: "old",
          model: oldRight ? "yes" : "no",
          confidence: oldRight ? 0.95 : 0.6,
          latency: 100,
          usage: { cost_usd: 0.002 },
        }),
      );
      neu.push(
        labPair({
          ...base,
          run: "run-new",
          modelName: "new",
          model: newRight ? "yes" : "no",
          confidence: 0.9,
          latency: 50,
          usage: { cost_usd: 0.001 },
        }),
      );
    }
  return { old, neu };
}

async function cli(args: string[]) {
  const r = await runCliInProcess(["lab", "compare", ...args]);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

test("lab compare: the paired difference, Newcombe's interval and McNemar's exact p equal the references; coverage and cost per model", async () => {
  const { old, neu } = twoModels();
  await withPairsFile([...old, ...neu], async (file) => {
    const out = await cli([file, "sys1/old", "sys1/new", "--type", "t.gate", "--json"]);
    assert.equal(out.status, 0, out.stderr);
    const r = JSON.parse(out.stdout);
    const paired = ref.paired.find(
      (p) =>
        JSON.stringify(p.table) ===
        JSON.stringify([
          [200, 12],
          [30, 58],
        ]),
    )!;
    const p = ref.mcnemar.find((m) => m.b === 12 && m.c === 30)!.p;
    assert.equal(r.paired, 300);
    assert.deepEqual(r.table, { both: 200, only_a: 12, only_b: 30, neither: 58 });
    assert.deepEqual(r.difference, { d: r6(paired.d), lo: r6(paired.lo), hi: r6(paired.hi) });
    assert.ok(Math.abs(r.mcnemar_p - p) < 1e-12, `${r.mcnemar_p} vs ${p}`);
    // A reaches 95 % from 0.61 (its 212 right answers at 0.95, its wrong ones at 0.6); B's 0.9 are all above it.
    assert.equal(r.threshold, 0.61);
    assert.deepEqual(r.a.at_threshold, { covered: 212, coverage: r6(212 / 300), agree: 212, agreement: 1 });
    assert.deepEqual(r.b.at_threshold, { covered: 300, coverage: 1, agree: 230, agreement: r6(230 / 300) });
    assert.equal(r.a.cost.mean_latency_ms, 100);
    assert.equal(r.b.cost.mean_cost_usd, 0.001);
    const text = (await cli([file, "sys1/old", "sys1/new", "--type", "t.gate"])).stdout;
    assert.match(text, /difference B − A: \+6\.0% \(\+1\.8% … \+10\.2%\), McNemar exact p = /);
    assert.match(text, /both right 200 · only A 12 · only B 30 · neither 58/);
  });
});

test("lab compare --max-drop exits 1 only when the whole interval of B − A lies below −x; two labs with --against", async () => {
  const { old, neu } = twoModels();
  await withPairsFile(old, async (oldFile, dir) => {
    const newFile = join(dir, "new-pairs.jsonl");
    writeFileSync(newFile, neu.map((x) => JSON.stringify(x) + "\n").join(""));
    // New against old: B − A = −6.0 %, interval ends at −1.8 %.
    const hi = -ref.paired.find(
      (p) =>
        JSON.stringify(p.table) ===
        JSON.stringify([
          [200, 12],
          [30, 58],
        ]),
    )!.lo;
    assert.ok(Math.abs(hi - -0.018152) < 1e-6);
    const worse = await cli([newFile, "--against", oldFile, "--type", "t.gate", "--max-drop", "0.018"]);
    assert.equal(worse.status, 1, worse.stderr);
    assert.match(worse.stderr, /B is worse than A by more than 1\.8% at 95 %/);
    const within = await cli([newFile, "--against", oldFile, "--type", "t.gate", "--max-drop", "0.0182"]);
    assert.equal(within.status, 0, within.stderr);
    assert.match(within.stderr, /--max-drop 0\.0182: holds/);
    // Old against new: B is better; any drop holds.
    assert.equal((await cli([oldFile, "--against", newFile, "--type", "t.gate", "--max-drop", "0"])).status, 0);
  });
});

test("lab compare names the models when a lab's pairs of the type mix them, with exit 2 and no stack trace", async () => {
  const { old, neu } = twoModels();
  await withPairsFile([...old, ...neu], async (file) => {
    const out = await cli([file, "--against", file, "--type", "t.gate"]);
    assert.equal(out.status, 2);
    assert.match(out.stderr, /error\[lab-compare-model\]: .*several models \(sys1\/old, sys1\/new\)/);
    assert.doesNotMatch(out.stderr, /\n\s+at /);
  });
});

test("H-6: lab compare takes both answers of an element from the run in which both answered it (one host answer), else each model's first", async () => {
  const pairs = [
    // k1: A alone in run-0, where the host said "no"; then both in run-1, where the host said "yes".
    labPair({ key: "k1", run: "run-0", host: "no", model: "yes", modelName: "a" }),
    labPair({ key: "k1", run: "run-1", host: "yes", model: "yes", modelName: "a" }),
    labPair({ key: "k1", run: "run-1", host: "yes", model: "yes", modelName: "b" }),
    // k2: in different runs only: each model's first answer (A right, B wrong).
    labPair({ key: "k2", run: "run-2", host: "yes", model: "yes", modelName: "a" }),
    labPair({ key: "k2", run: "run-3", host: "no", model: "yes", modelName: "b" }),
    // k3: both in run-4 and again in run-5 (a resumed crash): run-4, A's first run, counts.
    labPair({ key: "k3", run: "run-4", host: "yes", model: "no", modelName: "a" }),
    labPair({ key: "k3", run: "run-4", host: "yes", model: "yes", modelName: "b" }),
    labPair({ key: "k3", run: "run-5", host: "no", model: "no", modelName: "a" }),
    labPair({ key: "k3", run: "run-5", host: "no", model: "yes", modelName: "b" }),
  ];
  await withPairsFile(pairs, async (file) => {
    const out = await cli([file, "sys1/a", "sys1/b", "--type", "t.gate", "--json", "--all"]);
    assert.equal(out.status, 0, out.stderr);
    const r = JSON.parse(out.stdout);
    assert.equal(r.paired, 3);
    assert.equal(r.same_run, 2);
    // k1 both right (run-1), k2 only A, k3 only B (run-4).
    assert.deepEqual(r.table, { both: 1, only_a: 1, only_b: 1, neither: 0 });
    const text = (await cli([file, "sys1/a", "sys1/b", "--type", "t.gate", "--all"])).stdout;
    assert.match(text, /on the 3 elements both answered, 2 of them in one run/);
  });
});
