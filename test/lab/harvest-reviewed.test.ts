// H-5: pairs a person answered from the review queue (kind "reviewed", source "review queue") are
// counted apart from the shadow pairs, and harvest reports the model's agreement with them on a line
// of its own (no host was asked apart from the person, so none is reported for the host) — through
// the harvest API and the CLI, against hand-computed figures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harvest } from "../../src/lab/harvest.js";
import type { ShadowPair } from "../../src/decide/pair.js";
import { spawnCliInProcess } from "../support/cli-in-process.js";

function pair(key: string, host: string, model: string, reviewed: boolean): ShadowPair {
  return {
    lab: "lab-261204000000-abcd",
    ...(reviewed
      ? { kind: "reviewed" as const, reviewed: { label: host, by: "ana", source: "review queue", time: "2026-12-04T10:00:00.000Z" } }
      : {}),
    time: "2026-12-04T10:00:00.000Z",
    run: "run-1",
    type: "t.gate",
    task: "gate",
    key,
    attempt: 1,
    question: { id: "q", kind: "noul", labels: ["yes", "no"] },
    state_digest: `sha256:${key}`,
    host_label: host,
    model: {
      provider: "sys1",
      model: "jev",
      label: model,
      probabilities: { yes: model === "yes" ? 0.6 : 0.4, no: model === "yes" ? 0.4 : 0.6 },
      confidence: 0.6,
      refused: false,
      latency_ms: 1,
      usage: null,
    },
  };
}

test("H-5: reviewed pairs are reported apart: 3 of 5 agree is 60.0% (Wilson 23.1%–88.2%), and the shadow figures are unchanged", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-reviewed-"));
  try {
    const file = join(dir, "pairs.jsonl");
    const pairs = [
      pair("s1", "yes", "yes", false),
      pair("s2", "no", "yes", false),
      pair("r1", "yes", "yes", true),
      pair("r2", "no", "no", true),
      pair("r3", "yes", "yes", true),
      pair("r4", "no", "yes", true),
      pair("r5", "uncertain", "yes", true),
    ];
    writeFileSync(file, pairs.map((p) => JSON.stringify(p) + "\n").join(""));
    const r = await harvest(file);
    const gate = r.types.find((t) => t.type === "t.gate")!;
    // The shadow pairs alone: 2, of which 1 agrees.
    assert.equal(gate.pairs, 2);
    assert.equal(gate.agreement.agree, 1);
    // Wilson 95 % for 3/5, computed by hand: centre 0.556553, half-width 0.325828.
    assert.deepEqual(gate.reviewed, {
      n: 5,
      host: { answered: 0, agree: 0, rate: null, wilson: { lo: 0, hi: 1 } },
      model: { answered: 5, agree: 3, rate: 0.6, wilson: { lo: 0.230724, hi: 0.882379 } },
    });
    const cli = await spawnCliInProcess(["lab", "harvest", file]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(
      cli.stdout,
      /against 5 reviewed labels: host not asked apart \(people answered in its place\) · model 60\.0% \(23\.1%–88\.2%\) of 5 answered/,
    );
    // Without reviewed pairs there is no such line.
    writeFileSync(
      file,
      pairs
        .slice(0, 2)
        .map((p) => JSON.stringify(p) + "\n")
        .join(""),
    );
    assert.equal((await harvest(file)).types[0]!.reviewed, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
