// H-2: a harvest a team can act on — the dedupe, the --run/--since/--type filters,
// the disagreeing keys per type, score figures (mean level distance, quadratic-weighted kappa)
// against hand-computed values, verdicts, small-sample marks, the line to paste, and the text
// summary table — through the harvest API and the CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harvest } from "../../src/lab/harvest.js";
import type { ShadowPair } from "../../src/decide/pair.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

interface Spec {
  type?: string;
  run?: string;
  time?: string;
  key?: string;
  state?: string;
  kind?: "noul" | "score";
  labels?: string[];
  host: string;
  model: string;
  confidence?: number;
  audit?: boolean;
}

function pair(s: Spec): ShadowPair {
  const labels = s.labels ?? ["yes", "no"];
  const c = s.confidence ?? 0.9;
  const probabilities = Object.fromEntries(labels.map((l) => [l, l === s.model ? c : (1 - c) / (labels.length - 1)]));
  return {
    lab: "lab-261203000000-abcd",
    ...(s.audit ? { kind: "audit" as const } : {}),
    time: s.time ?? "2026-12-02T10:00:00.000Z",
    run: s.run ?? "run-1",
    type: s.type ?? "t.gate",
    task: "gate",
    key: s.key ?? null,
    question: { id: "q", kind: s.kind ?? "noul", labels },
    state_digest: `sha256:${s.state ?? s.key ?? "x"}`,
    host_label: s.host,
    model: { provider: "sys1", model: "jev", label: s.model, probabilities, confidence: c, refused: false, latency_ms: 1, usage: null },
  };
}

function withFile<T>(pairs: ShadowPair[], body: (file: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "sy-harvest16-"));
  const file = join(dir, "pairs.jsonl");
  writeFileSync(file, pairs.map((p) => JSON.stringify(p) + "\n").join(""));
  return Promise.resolve(body(file)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test("pairs are deduplicated by (type, state digest, host label, model) unless --all; audit pairs apart", async () => {
  const pairs = [
    pair({ key: "k1", run: "run-1", host: "yes", model: "yes" }),
    pair({ key: "k1", run: "run-2", host: "yes", model: "yes" }), // the same evidence again: dropped
    pair({ key: "k1", run: "run-3", host: "no", model: "yes" }), // another host label: kept
    pair({ key: "k1", run: "run-4", state: "k1-later", host: "yes", model: "yes" }), // another state: kept
    pair({ key: "k1", run: "run-5", type: "t.other", host: "yes", model: "yes" }), // another type: kept
    pair({ key: "k1", run: "run-6", host: "yes", model: "yes", audit: true }), // an audit pair: counted apart
  ];
  await withFile(pairs, async (file) => {
    const r = await harvest(file);
    assert.equal(r.duplicates, 1);
    assert.equal(r.filters.deduplicated, true);
    const gate = r.types.find((t) => t.type === "t.gate")!;
    assert.equal(gate.pairs, 3);
    assert.equal(gate.audit?.pairs, 1);
    const all = await harvest(file, { all: true });
    assert.equal(all.duplicates, 0);
    assert.equal(all.types.find((t) => t.type === "t.gate")!.pairs, 4);
    const cli = await spawnCliInProcess(["lab", "harvest", file]);
    assert.match(cli.stdout, /1 duplicate pairs not counted \(--all counts them\)/);
  });
});

test("--run, --since and --type keep only the matching pairs", async () => {
  const pairs = [
    pair({ key: "a", run: "run-1", time: "2026-11-20T00:00:00.000Z", host: "yes", model: "yes" }),
    pair({ key: "b", run: "run-2", time: "2026-12-01T00:00:00.000Z", host: "yes", model: "no" }),
    pair({ key: "c", run: "run-2", time: "2026-12-02T00:00:00.000Z", host: "yes", model: "yes", type: "t.other" }),
  ];
  await withFile(pairs, async (file) => {
    const byRun = await harvest(file, { runs: ["run-2"] });
    assert.deepEqual(
      byRun.types.map((t) => [t.type, t.pairs]),
      [
        ["t.gate", 1],
        ["t.other", 1],
      ],
    );
    const since = await harvest(file, { since: new Date("2026-11-30T00:00:00.000Z") });
    assert.equal(since.overall.pairs, 2);
    const byType = await harvest(file, { types: ["t.other"] });
    assert.deepEqual(
      byType.types.map((t) => t.type),
      ["t.other"],
    );
    const cli = await spawnCliInProcess(["lab", "harvest", file, "--json", "--run", "run-2", "--type", "t.gate", "--since", "2026-11-30"]);
    assert.equal(cli.status, 0, cli.stderr);
    const rep = JSON.parse(cli.stdout) as {
      filters: { runs: string[]; types: string[]; since: string };
      types: Array<{ type: string; pairs: number }>;
    };
    assert.deepEqual(
      rep.types.map((t) => [t.type, t.pairs]),
      [["t.gate", 1]],
    );
    assert.deepEqual([rep.filters.runs, rep.filters.types, rep.filters.since], [["run-2"], ["t.gate"], "2026-11-30T00:00:00.000Z"]);
    const bad = await spawnCliInProcess(["lab", "harvest", file, "--since", "last tuesday"]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--since 'last tuesday' is neither an ISO 8601 date nor an age/);
  });
});

test("the disagreeing keys are listed per type (host label, model label, run, key), all counted", async () => {
  const pairs: ShadowPair[] = [];
  for (let i = 0; i < 40; i++)
    pairs.push(pair({ key: `k${i}`, host: "yes", model: i % 4 === 0 ? "no" : "yes", confidence: 0.6 + (i % 10) / 40 }));
  pairs.push(pair({ type: "t.b", key: "only", host: "no", model: "yes" }));
  await withFile(pairs, async (file) => {
    const r = await harvest(file, { listed: 3 });
    const a = r.types.find((t) => t.type === "t.gate")!;
    assert.equal(a.disagreements?.total, 10);
    assert.deepEqual(
      a.disagreements?.listed.map((d) => [d.host_label, d.model_label, d.run, d.key]),
      [
        ["yes", "no", "run-1", "k0"],
        ["yes", "no", "run-1", "k4"],
        ["yes", "no", "run-1", "k8"],
      ],
    );
    const b = r.types.find((t) => t.type === "t.b")!;
    assert.deepEqual(
      b.disagreements?.listed.map((d) => d.key),
      ["only"],
      "per type: t.b lists its own",
    );
    const text = (await spawnCliInProcess(["lab", "harvest", file])).stdout;
    assert.match(text, /disagreements: 10\n\s+host\s+model\s+conf\s+run\s+key\n\s+yes\s+no\s+0\.600\s+run-1\s+k0\n/);
  });
});

test("score questions report the mean absolute level distance and the quadratic-weighted kappa, as computed by hand", async () => {
  // Host (rows) × model (columns) over levels low < mid < high:
  //   [[5, 1, 0], [1, 3, 1], [0, 1, 4]]  → N = 16, Σ|i−j|·n = 4, so the mean distance is 4/16 = 0.25.
  // Weights (i−j)²/(K−1)²: 0, 1/4, 1. Observed Σw·O = 4 · 1/4 = 1. Margins 6, 5, 5 both ways:
  // expected Σw·E = [(6·5 + 5·6 + 5·5 + 5·5)·1/4 + (6·5 + 5·6)·1] / 16 = (27.5 + 60) / 16 = 5.46875,
  // so κ = 1 − 1/5.46875 = 0.817143.
  const levels = ["low", "mid", "high"];
  const counts = [
    [5, 1, 0],
    [1, 3, 1],
    [0, 1, 4],
  ];
  const pairs: ShadowPair[] = [];
  let n = 0;
  counts.forEach((row, i) =>
    row.forEach((c, j) => {
      for (let k = 0; k < c; k++)
        pairs.push(pair({ type: "t.score", kind: "score", labels: levels, key: `k${n++}`, host: levels[i]!, model: levels[j]! }));
    }),
  );
  await withFile(pairs, async (file) => {
    const r = await harvest(file);
    const s = r.types[0];
    assert.deepEqual(s!.score, { mean_abs_level_distance: 0.25, quadratic_kappa: 0.817143 });
    assert.deepEqual(
      s!.confusion?.counts.map((row) => row.slice(0, 3)),
      counts,
    );
    const text = (await spawnCliInProcess(["lab", "harvest", file])).stdout;
    assert.match(text, /levels: mean absolute distance 0\.250 · quadratic-weighted kappa 0\.817/);
  });
});

test("the first table gives pairs, agreement with its Wilson interval, threshold, coverage, calibration and a verdict; small samples are marked", async () => {
  const pairs: ShadowPair[] = [];
  // t.ready: 60 answers, all agree at 0.97 → ready at a low threshold.
  for (let i = 0; i < 60; i++) pairs.push(pair({ type: "t.ready", key: `r${i}`, host: "yes", model: "yes", confidence: 0.97 }));
  // t.few: 10 answers → more pairs needed (20).
  for (let i = 0; i < 10; i++) pairs.push(pair({ type: "t.few", key: `f${i}`, host: "yes", model: "yes", confidence: 0.97 }));
  // t.poor: 40 answers, half wrong at every confidence → not reaching target.
  for (let i = 0; i < 40; i++)
    pairs.push(pair({ type: "t.poor", key: `p${i}`, host: "yes", model: i % 2 ? "yes" : "no", confidence: 0.9 }));
  await withFile(pairs, async (file) => {
    const r = await harvest(file);
    const by = Object.fromEntries(r.types.map((t) => [t.type, t]));
    assert.deepEqual(by["t.ready"]!.verdict, { status: "ready", needed: null, text: "ready" });
    assert.deepEqual(by["t.few"]!.verdict, { status: "more pairs needed", needed: 20, text: "more pairs needed (20)" });
    assert.deepEqual(by["t.poor"]!.verdict, { status: "not reaching target", needed: null, text: "not reaching target" });
    assert.equal(by["t.few"]!.agreement.small_sample, true);
    assert.equal(by["t.ready"]!.agreement.small_sample, false);
    assert.equal(by["t.ready"]!.config_line, '"t.ready" = { mode = "sys1/jev", min_confidence = 0.00, audit = 0.1 }');
    assert.equal(by["t.poor"]!.config_line, null, "no line to paste when no threshold reaches the target");
    const text = (await spawnCliInProcess(["lab", "harvest", file])).stdout;
    const lines = text.split("\n");
    const head = lines.findIndex((l) =>
      /^\s+type\s+pairs\s+agreement \(95% CI\)\s+kappa \(95% CI\)\s+threshold\s+coverage\s+calibration\s+audit\s+verdict$/.test(l),
    );
    assert.ok(head > 0, text);
    assert.match(
      lines[head + 1]!,
      /^\s+t\.few\s+10\*\s+100\.0% \(72\.2%–100\.0%\)\*\s+–\s+0\.00\s+100\.0%\*\s+none\s+–\s+more pairs needed \(20\)$/,
    );
    assert.match(
      lines[head + 2]!,
      /^\s+t\.poor\s+40\s+50\.0% \(35\.2%–64\.8%\)\s+0\.00 \(0\.00–0\.00\)\s+–\s+–\s+none\s+–\s+not reaching target$/,
    );
    assert.match(lines[head + 3]!, /^\s+t\.ready\s+60\s+100\.0% \(94\.0%–100\.0%\)\s+–\s+0\.00\s+100\.0%\s+none\s+–\s+ready$/);
    assert.match(
      text,
      /to turn a type on, paste its line into \[decisions\.types\] of your machine config:\n {2}"t\.few" = .*# more pairs needed \(20\)\n {2}"t\.ready" = \{ mode = "sys1\/jev", min_confidence = 0\.00, audit = 0\.1 \}\n/,
    );
  });
});

test("no pooled confusion matrix across types whose labels differ, in --json, text or HTML; one when they agree", async () => {
  const pairs = [
    pair({ type: "t.yn", key: "a", host: "yes", model: "yes" }),
    pair({ type: "t.abc", key: "b", labels: ["a", "b", "c"], host: "a", model: "b" }),
  ];
  await withFile(pairs, async (file) => {
    const html = file.replace(/pairs\.jsonl$/, "r.html");
    const r = await spawnCliInProcess(["lab", "harvest", file, "--json", "--html", html]);
    const rep = JSON.parse(r.stdout) as { overall: { confusion: unknown }; types: Array<{ confusion: unknown }> };
    assert.equal(rep.overall.confusion, null);
    assert.ok(
      rep.types.every((t) => t.confusion !== null),
      "each type keeps its own",
    );
    const text = (await spawnCliInProcess(["lab", "harvest", file])).stdout;
    const overall = text.slice(text.indexOf("\noverall\n"));
    assert.ok(overall.length > 10 && !overall.includes("confusion"), overall);
    assert.equal((text.match(/confusion \(rows: host label/g) ?? []).length, 2, "one matrix per type");
    const page = readFileSync(html, "utf8");
    const overallSection = page.slice(page.indexOf('data-type="(overall)"'));
    assert.ok(!overallSection.includes('class="confusion"'), "the HTML's overall section has no matrix");
    assert.equal((page.match(/<table class="confusion">/g) ?? []).length, 2);
  });
  // Types with the same labels may pool.
  await withFile(
    [pair({ type: "t.one", key: "a", host: "yes", model: "yes" }), pair({ type: "t.two", key: "b", host: "no", model: "yes" })],
    async (file) => {
      const rep = (await harvest(file)).overall.confusion;
      assert.deepEqual(rep?.counts, [
        [1, 0, 0],
        [1, 0, 0],
      ]);
    },
  );
});
