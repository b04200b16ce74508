// Harvest figures (H-2) against a small pairs file whose numbers are worked out by hand below,
// and the reader's rule for torn and invalid lines (H-1).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync, appendFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harvest, bucketOf, type TypeReport } from "../../src/lab/harvest.js";
import { PairsFileError } from "../../src/lab/pairs-reader.js";
import { newLab, openLabSink, pairsPath } from "../../src/lab/store.js";
import type { ShadowPair } from "../../src/decide/pair.js";

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "switchyard-harvest-"));
}

type Answer = { label: string; confidence: number; refused?: boolean; probabilities?: Record<string, number> };

function pair(
  type: string,
  kind: "noul" | "choice",
  labels: string[],
  host: string,
  answer: Answer | { skipped: string },
  n: number,
): ShadowPair {
  const base: ShadowPair = {
    lab: "lab-261202000000-abcd",
    time: "2026-12-02T00:00:00.000Z",
    run: "run-1",
    type,
    task: "gate",
    key: `k${n}`,
    question: { id: "q", kind, labels },
    state_digest: "sha256:" + String(n).padStart(64, "0"), // distinct states: no pair is a duplicate
    host_label: host,
  };
  if ("skipped" in answer) return { ...base, skipped: { provider: "sys1", model: "jev", reason: answer.skipped } };
  const probabilities =
    answer.probabilities ??
    Object.fromEntries(labels.map((l) => [l, l === answer.label ? answer.confidence : (1 - answer.confidence) / (labels.length - 1)]));
  return {
    ...base,
    model: {
      provider: "sys1",
      model: "jev",
      label: answer.label,
      probabilities,
      confidence: answer.confidence,
      refused: answer.refused ?? false,
      latency_ms: 3,
      usage: null,
    },
  };
}

const YN = ["yes", "no"];
const ABC = ["a", "b", "c"];
// t.alpha (noul): numbered as in the hand computation below.
const ALPHA: ShadowPair[] = [
  pair("t.alpha", "noul", YN, "yes", { label: "yes", confidence: 0.95 }, 1), // agree, ≥0.95
  pair("t.alpha", "noul", YN, "yes", { label: "yes", confidence: 0.92 }, 2), // agree, 0.9–0.95
  pair("t.alpha", "noul", YN, "no", { label: "yes", confidence: 0.91 }, 3), // disagree, 0.9–0.95
  pair("t.alpha", "noul", YN, "no", { label: "no", confidence: 0.85 }, 4), // agree, 0.8–0.9
  pair("t.alpha", "noul", YN, "yes", { label: "no", confidence: 0.6 }, 5), // disagree, 0.5–0.7
  pair("t.alpha", "noul", YN, "yes", { label: "yes", confidence: 0.55 }, 6), // agree, 0.5–0.7
  pair("t.alpha", "noul", YN, "no", { label: "uncertain", confidence: 0, refused: true, probabilities: {} }, 7), // refused: abstention
  pair("t.alpha", "noul", YN, "yes", { skipped: "window" }, 8),
  pair("t.alpha", "noul", YN, "no", { skipped: "error: HTTP 500 after 3 attempts" }, 9),
  // uncertain under the shadow's min_confidence; the most probable label (yes) is recovered: agree, 0.5–0.7
  pair("t.alpha", "noul", YN, "yes", { label: "uncertain", confidence: 0.52, probabilities: { yes: 0.52, no: 0.48 } }, 10),
];
const BETA: ShadowPair[] = [
  pair("t.beta", "choice", ABC, "a", { label: "a", confidence: 0.99 }, 11), // agree, ≥0.95
  pair("t.beta", "choice", ABC, "b", { label: "c", confidence: 0.45 }, 12), // disagree, <0.5
  pair("t.beta", "choice", ABC, "c", { label: "c", confidence: 0.7 }, 13), // agree, 0.7–0.8
];

function writePairs(file: string, pairs: ShadowPair[]): void {
  writeFileSync(file, pairs.map((p) => JSON.stringify(p) + "\n").join(""));
}

function close(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-6, `${what}: expected ${expected}, got ${actual}`);
}

function band(r: TypeReport, name: string) {
  const b = r.bands.find((x) => x.band === name);
  assert.ok(b, `band ${name}`);
  return b;
}

function at(r: TypeReport, t: number) {
  const p = r.thresholds.find((x) => Math.abs(x.t - t) < 1e-9);
  assert.ok(p, `threshold ${t}`);
  return p;
}

test("H-2: harvest figures match a hand-computed pairs file", async () => {
  const dir = tmp();
  try {
    const file = join(dir, "pairs.jsonl");
    // Interleave the types, as a real run would.
    writePairs(file, [...ALPHA.slice(0, 5), BETA[0], ...ALPHA.slice(5), BETA[1], BETA[2]]);
    const rep = await harvest(file);
    assert.deepEqual(
      rep.types.map((t) => t.type),
      ["t.alpha", "t.beta"],
    );
    const a = rep.types[0];
    // Counts: 10 pairs, 2 skipped (window, error), 8 answered, 1 refused, 7 with a label.
    assert.equal(a.pairs, 10);
    assert.deepEqual(a.skipped, { total: 2, by_reason: { error: 1, window: 1 } });
    assert.equal(a.answered, 8);
    assert.deepEqual(a.abstained, { total: 1, refused: 1, no_label: 0 });
    assert.equal(a.calibrated, 7);
    // Agreement: pairs 1, 2, 4, 6, 10 agree → 5 of 8 answered (the refusal counts as disagreement).
    // Wilson by hand, p = 5/8, z = 1.959964: centre (p + z²/16) / (1 + z²/8) = 0.584443,
    // half-width z/(1 + z²/8) · √(p(1−p)/8 + z²/256) = 0.278707.
    assert.deepEqual(a.agreement, { agree: 5, rate: 0.625, wilson: { lo: 0.305742, hi: 0.863156 }, small_sample: true });
    // Bands: 0.5–0.7 holds 5, 6, 10 (0.60, 0.55, 0.52): 2 agree, mean confidence 1.67/3.
    assert.equal(band(a, "<0.5").n, 0);
    assert.equal(band(a, "<0.5").agreement, null);
    assert.equal(band(a, "0.5–0.7").n, 3);
    close(band(a, "0.5–0.7").agreement, 2 / 3, "0.5–0.7 agreement");
    close(band(a, "0.5–0.7").mean_confidence, 1.67 / 3, "0.5–0.7 mean confidence");
    assert.equal(band(a, "0.7–0.8").n, 0);
    assert.equal(band(a, "0.8–0.9").n, 1);
    close(band(a, "0.8–0.9").agreement, 1, "0.8–0.9");
    assert.equal(band(a, "0.9–0.95").n, 2);
    close(band(a, "0.9–0.95").agreement, 0.5, "0.9–0.95");
    close(band(a, "0.9–0.95").mean_confidence, 0.915, "0.9–0.95 mean");
    assert.equal(band(a, "≥0.95").n, 1);
    close(band(a, "≥0.95").agreement, 1, "≥0.95");
    // ECE = (3·|0.55667−0.66667| + 1·|0.85−1| + 2·|0.915−0.5| + 1·|0.95−1|) / 7 = (0.33+0.15+0.83+0.05)/7 = 1.36/7
    close(a.ece, 1.36 / 7, "ECE");
    // Brier = (0.05² + 0.08² + 0.91² + 0.15² + 0.60² + 0.45² + 0.48²) / 7 = 1.6524 / 7
    close(a.brier, 1.6524 / 7, "Brier");
    // Coverage is over the 8 answered; agreement over those covered.
    assert.equal(a.thresholds.length, 101);
    assert.deepEqual([at(a, 0).covered, at(a, 0).agree], [7, 5]);
    close(at(a, 0).coverage, 7 / 8, "coverage at 0");
    close(at(a, 0).agreement, 5 / 7, "agreement at 0");
    assert.deepEqual([at(a, 0.56).covered, at(a, 0.56).agree], [5, 3]);
    assert.deepEqual([at(a, 0.61).covered, at(a, 0.61).agree], [4, 3]);
    assert.deepEqual([at(a, 0.91).covered, at(a, 0.91).agree], [3, 2]);
    assert.deepEqual([at(a, 0.92).covered, at(a, 0.92).agree], [2, 2]);
    assert.deepEqual([at(a, 0.96).covered, at(a, 0.96).coverage, at(a, 0.96).agreement], [0, 0, null]);
    // Lowest threshold reaching 0.95: 0.92 (pairs 1 and 2, both agree), coverage 2/8.
    assert.deepEqual(a.recommended, { threshold: 0.92, covered: 2, coverage: 0.25, agreement: 1, small_sample: true });
    // Confusion: rows host, columns model (+ uncertain).
    assert.deepEqual(a.confusion, {
      host_labels: ["yes", "no"],
      model_labels: ["yes", "no", "uncertain"],
      counts: [
        [4, 1, 0],
        [1, 1, 1],
      ],
    });

    const b = rep.types[1];
    assert.deepEqual([b.pairs, b.answered, b.agreement.agree], [3, 3, 2]);
    close(b.agreement.rate, 2 / 3, "beta agreement");
    // ECE = (|0.45−0| + |0.70−1| + |0.99−1|)/3 = 0.76/3; Brier = (0.2025 + 0.09 + 0.0001)/3
    close(b.ece, 0.76 / 3, "beta ECE");
    close(b.brier, 0.2926 / 3, "beta Brier");
    assert.equal(band(b, "0.7–0.8").n, 1, "0.70 falls in 0.7–0.8, not below it");
    assert.deepEqual(b.confusion!.counts, [
      [1, 0, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 1, 0],
    ]);
    assert.deepEqual(b.recommended, { threshold: 0.46, covered: 2, coverage: 0.666667, agreement: 1, small_sample: true });

    const o = rep.overall;
    assert.deepEqual([o.pairs, o.answered, o.agreement.agree, o.calibrated, o.skipped.total], [13, 11, 7, 10, 2]);
    close(o.agreement.rate, 7 / 11, "overall agreement");
    // Brier over all 10 labelled answers: (1.6524 + 0.2926)/10
    close(o.brier, 0.1945, "overall Brier");
    // ECE over all bands: (0.45 + 0.33 + 0.30 + 0.15 + 0.83 + 2·0.03)/10
    close(o.ece, 0.212, "overall ECE");
    // No pooled confusion matrix across types whose labels differ (noul vs a/b/c).
    assert.equal(o.confusion, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-2: the recommended threshold follows --target", async () => {
  const dir = tmp();
  try {
    const file = join(dir, "pairs.jsonl");
    writePairs(file, ALPHA);
    // 0.7: already at t = 0 (5/7 ≈ 0.714). 0.75: 0.61 (pairs 1–4, three agree). 1 → 0.92.
    assert.equal((await harvest(file, { target: 0.7 })).types[0].recommended?.threshold, 0);
    const r75 = (await harvest(file, { target: 0.75 })).types[0].recommended;
    assert.deepEqual(r75, { threshold: 0.61, covered: 4, coverage: 0.5, agreement: 0.75, small_sample: true });
    assert.equal((await harvest(file, { target: 1 })).types[0].recommended?.threshold, 0.92);
    // A type that never reaches the target has none.
    const only = join(dir, "beta.jsonl");
    writePairs(only, [BETA[1]]);
    assert.equal((await harvest(only)).types[0].recommended, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-2: confidence buckets put hundredths on the right side of a threshold", () => {
  // 0.57·100 = 56.99999999999999 and 0.29·100 = 28.999999999999996 in binary floating point.
  assert.equal(bucketOf(0.57), 57);
  assert.equal(bucketOf(0.29), 29);
  assert.equal(bucketOf(0.5), 50);
  assert.equal(bucketOf(0.9499), 94);
  assert.equal(bucketOf(1), 100);
  assert.equal(bucketOf(0), 0);
});

test("H-1: a torn last line is skipped with a warning", async () => {
  const dir = tmp();
  try {
    const file = join(dir, "pairs.jsonl");
    writePairs(file, BETA);
    const whole = JSON.stringify(ALPHA[0]);
    appendFileSync(file, whole.slice(0, 57)); // a crash mid-write: no newline, cut mid-string
    const rep = await harvest(file);
    assert.equal(rep.overall.pairs, 3);
    assert.equal(rep.lines, 4);
    assert.equal(rep.warnings.length, 1);
    assert.match(rep.warnings[0], /:4: skipped the torn last line/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-1: an invalid line in the middle is an error naming its line number", async () => {
  const dir = tmp();
  try {
    const file = join(dir, "pairs.jsonl");
    const lines = BETA.map((p) => JSON.stringify(p));
    lines.splice(1, 0, JSON.stringify(ALPHA[0]).slice(0, 40));
    writeFileSync(file, lines.join("\n") + "\n");
    await assert.rejects(harvest(file), (err: unknown) => {
      assert.ok(err instanceof PairsFileError);
      assert.equal(err.code, "lab-invalid-pair");
      assert.equal(err.line, 2);
      assert.match(err.message, /line 2 is not a valid shadow pair/);
      return true;
    });
    // Valid JSON that is not a pair is invalid too.
    writeFileSync(file, [lines[0], JSON.stringify({ type: "t", host_label: "a" }), lines[2]].join("\n") + "\n");
    await assert.rejects(harvest(file), (err: unknown) => err instanceof PairsFileError && err.line === 2 && /question/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("H-1: a pair appended after a crash-torn write still counts; the fragment is skipped with a warning", async () => {
  const dir = tmp();
  try {
    const lab = newLab(dir, "torn");
    const file = pairsPath(dir, lab.id);
    // A crash tore the second pair's write; a later run appends onto the same line.
    appendFileSync(file, JSON.stringify(ALPHA[0]) + "\n" + JSON.stringify(ALPHA[1]).slice(0, 30));
    const sink = openLabSink(dir);
    const { lab: _lab, ...rest } = BETA[0];
    sink.append(rest);
    sink.close();
    const text = readFileSync(file, "utf8");
    assert.equal(text.split("\n").length, 3, "the writer does not touch the torn line");
    const rep = await harvest(file);
    assert.equal(rep.overall.pairs, 2);
    assert.equal(rep.warnings.length, 1);
    assert.match(rep.warnings[0], /:2: skipped a fragment torn by an interrupted write before the pair on that line/);
    // A line that is invalid and carries no whole pair after it is still an error.
    appendFileSync(file, "garbage\n" + JSON.stringify(ALPHA[0]) + "\n");
    await assert.rejects(harvest(file), PairsFileError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
