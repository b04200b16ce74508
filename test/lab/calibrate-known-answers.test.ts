// H-4: `lab calibrate` on small hand-made pair files, at its limits — 30 labelled answers (MIN_PAIRS)
// and 29, all agreeing, all disagreeing, mixed models — with the isotonic map worked out by hand
// and the pairs' digest computed with Python's hashlib:
//   sha256 over json.dumps([run, task, key, question, state, host, "provider/model", label, confidence],
//   separators=(",", ":")) + "\n" per labelled pair, in file order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calibrate, type CalibrateOptions } from "../../src/lab/calibrate.js";

interface PairSpec {
  i: number;
  agree?: boolean;
  type?: string;
  provider?: string;
  refused?: boolean;
  kind?: "audit";
}

/** Pair i: confidence (i + 1)/32, agreeing unless i is a multiple of 3. */
function pair({ i, agree = i % 3 !== 0, type = "t.gate.q", provider = "sys1", refused = false, kind }: PairSpec): string {
  const c = (i + 1) / 32;
  const label = agree ? "yes" : "no";
  return JSON.stringify({
    ...(kind ? { kind } : {}),
    lab: "lab-261202000000-abcd",
    time: "2026-12-02T00:00:00.000Z",
    run: "run-1",
    type,
    task: "gate",
    key: `k${i}`,
    question: { id: "q", kind: "noul", labels: ["yes", "no"] },
    state_digest: `sha256:s${i}`,
    host_label: "yes",
    model: {
      provider,
      model: "jev",
      label,
      probabilities: { [label]: c, [agree ? "no" : "yes"]: 1 - c },
      confidence: c,
      refused,
      latency_ms: 1,
      usage: null,
    },
  });
}

async function withPairs(specs: PairSpec[], options: CalibrateOptions) {
  const dir = mkdtempSync(join(tmpdir(), "sy-cal-known-"));
  try {
    const file = join(dir, "pairs.jsonl");
    writeFileSync(file, specs.map(pair).join("\n") + "\n");
    return { file, result: await calibrate(file, options) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const range = (n: number, f: (i: number) => Partial<PairSpec> = () => ({})) => Array.from({ length: n }, (_, i) => ({ i, ...f(i) }));
const NOW = new Date("2026-12-04T10:00:00.000Z");

test("H-4: 30 labelled answers get a map; isotonic by hand: 0 | 2/3 over 2/32 … 28/32 | 1", async () => {
  const { file, result } = await withPairs(range(30), { method: "isotonic", folds: 5, now: NOW });
  assert.equal(result.outcomes.length, 1);
  const o = result.outcomes[0]!;
  assert.ok(o.fitted);
  const cal = o.calibration;
  assert.equal(cal.type, "t.gate.q");
  assert.equal(cal.model, "sys1/jev");
  assert.equal(cal.method, "isotonic");
  assert.deepEqual(cal.pairs, { count: 30, digest: "sha256:e3ad5b9f730f37d558b416437461aacc71ba090ffdf39a273707724f1e3439c7" });
  // 20 of 30 agree (every i not a multiple of 3).
  assert.deepEqual(cal.baseline, { answered: 30, agree: 20 });
  assert.deepEqual(cal.map, { kind: "isotonic", x: [1 / 32, 2 / 32, 28 / 32, 29 / 32, 30 / 32], y: [0, 0.666666667, 0.666666667, 1, 1] });
  assert.equal(cal.cv.folds, 5);
  for (const v of Object.values(cal.cv)) assert.equal(Math.round(v * 1e6) / 1e6, v, "cross-validation figures to 6 places");
  assert.match(cal.id, /^cal-[0-9a-f]{12}$/);
  assert.deepEqual(result.file.types, { "t.gate.q": cal });
  assert.deepEqual(
    { ...result.file, types: undefined },
    { version: 1, created: "2026-12-04T10:00:00.000Z", lab: null, pairs_file: file, deduplicated: true, types: undefined },
  );
  assert.deepEqual(result.warnings, []);
});

test("H-4: 29 labelled answers get no map, saying how many more are needed", async () => {
  const { result } = await withPairs(range(29), { now: NOW });
  assert.deepEqual(result.outcomes, [
    { type: "t.gate.q", fitted: false, pairs: 29, needed: 30, reason: "29 labelled answers; a map needs at least 30 (1 more)" },
  ]);
  assert.deepEqual(result.file.types, {});
  // A refused answer counts for the baseline but is not labelled: 29 + 1 refused is still 29.
  const refused = await withPairs([...range(29), { i: 29, refused: true }], { now: NOW });
  assert.equal(refused.result.outcomes[0]!.fitted, false);
  // An audit pair is never fitted on: 29 + 1 audit is still 29.
  const audit = await withPairs([...range(29), { i: 29, kind: "audit" }], { now: NOW });
  assert.equal(audit.result.outcomes[0]!.fitted, false);
});

test("H-4: answers that all agree, or all disagree, have nothing to calibrate against", async () => {
  const agree = await withPairs(
    range(30, () => ({ agree: true })),
    { now: NOW },
  );
  assert.deepEqual(agree.result.outcomes, [
    { type: "t.gate.q", fitted: false, pairs: 30, reason: "all 30 answers agree with the host: there is nothing to calibrate against" },
  ]);
  const disagree = await withPairs(
    range(31, () => ({ agree: false })),
    { now: NOW },
  );
  assert.deepEqual(disagree.result.outcomes, [
    { type: "t.gate.q", fitted: false, pairs: 31, reason: "all 31 answers disagree with the host: there is nothing to calibrate against" },
  ]);
  // One answer the other way is enough.
  const one = await withPairs(
    range(30, (i) => ({ agree: i === 7 })),
    { now: NOW },
  );
  assert.equal(one.result.outcomes[0]!.fitted, true);
});

test("H-4: a type whose pairs mix models needs --model; a model it has none of is named", async () => {
  const specs = [...range(30), { i: 30, provider: "acme" }];
  const mixed = await withPairs(specs, { now: NOW });
  assert.deepEqual(mixed.result.outcomes, [
    {
      type: "t.gate.q",
      fitted: false,
      pairs: 0,
      reason: "its pairs mix models: sys1/jev (30), acme/jev (1); choose one with --model PROVIDER/MODEL",
    },
  ]);
  const chosen = await withPairs(specs, { model: "sys1/jev", method: "platt", folds: 50, now: NOW, lab: "lab-x", all: true });
  const o = chosen.result.outcomes[0]!;
  assert.ok(o.fitted);
  assert.equal(o.calibration.pairs.count, 30);
  assert.equal(o.calibration.cv.folds, 30, "no more folds than answers");
  assert.equal(o.calibration.map.kind, "platt");
  if (o.calibration.map.kind === "platt") {
    assert.equal(Number(o.calibration.map.a.toPrecision(9)), o.calibration.map.a, "parameters to 9 significant digits");
    assert.equal(Number(o.calibration.map.b.toPrecision(9)), o.calibration.map.b);
  }
  assert.equal(chosen.result.file.lab, "lab-x");
  assert.equal(chosen.result.file.deduplicated, false);
  const few = await withPairs(specs, { model: "acme/jev", now: NOW });
  assert.deepEqual(few.result.outcomes, [
    { type: "t.gate.q", fitted: false, pairs: 1, needed: 30, reason: "1 labelled answers; a map needs at least 30 (29 more)" },
  ]);
  const none = await withPairs(specs, { model: "other/x", now: NOW });
  assert.deepEqual(none.result.outcomes, [
    { type: "t.gate.q", fitted: false, pairs: 0, reason: "no pairs of model other/x (the type's pairs are of sys1/jev, acme/jev)" },
  ]);
});

test("H-4: types come out in name order; a requested type without pairs is named", async () => {
  const specs = [...range(30, () => ({ type: "z.t" })), ...range(30, () => ({ type: "a.t" }))];
  const { result } = await withPairs(specs, { method: "temperature", types: ["z.t", "a.t", "m.t"], now: NOW });
  assert.deepEqual(
    result.outcomes.map((o) => [o.type, o.fitted]),
    [
      ["a.t", true],
      ["z.t", true],
      ["m.t", false],
    ],
  );
  assert.deepEqual(result.outcomes[2], { type: "m.t", fitted: false, pairs: 0, needed: 30, reason: "no shadow pairs with a model answer" });
  const t = result.file.types["a.t"]!.map;
  assert.equal(t.kind, "temperature");
  if (t.kind === "temperature") assert.equal(Number(t.t.toPrecision(9)), t.t);
  // Whatever order the file has them in: already in name order, and three out of order.
  for (const order of [
    ["a.t", "z.t"],
    ["m.t", "a.t", "z.t"],
  ]) {
    const few = await withPairs(
      order.flatMap((type) => range(2, () => ({ type }))),
      { now: NOW },
    );
    assert.deepEqual(
      few.result.outcomes.map((o) => o.type),
      [...order].sort(),
      `file order ${order.join(", ")}`,
    );
  }
});

// The folds: test/fixtures/calibrate/make-reference.py (plain Python from docs/lab.md's rules) orders
// the 36 pairs of pairs.jsonl by the SHA-256 of task, key and question, then state digest, then
// host label, then confidence, puts pair i in fold i mod k, fits pool-adjacent-violators on the
// other folds and scores the held-out predictions. Three of its elements sit at the order's edges: one
// asked in states "sha256:s1" and "sha256:s10" (the space before the host label puts s1 first), and
// two asked twice in the same state (the lower confidence first).
test("H-4: cross-validation figures, the folds in the documented order, match an independent computation", async () => {
  const ref = JSON.parse(readFileSync("test/fixtures/calibrate/reference.json", "utf8")) as {
    cv5: Record<string, number>;
    cv7: Record<string, number>;
    map: [number, number][];
  };
  const file = "test/fixtures/calibrate/pairs.jsonl";
  for (const [folds, expected] of [
    [5, ref.cv5],
    [7, ref.cv7],
  ] as const) {
    const result = await calibrate(file, { method: "isotonic", folds, all: true, now: NOW });
    const o = result.outcomes[0]!;
    assert.ok(o.fitted);
    assert.equal(o.calibration.pairs.count, 36);
    assert.deepEqual(o.calibration.cv, expected, `${folds} folds`);
    // The map is fitted on every pair, whatever their order; its values to 9 significant digits.
    assert.deepEqual(o.calibration.map, {
      kind: "isotonic",
      x: ref.map.map(([x]) => x),
      y: ref.map.map(([, y]) => Number(y.toPrecision(9))),
    });
  }
});
