// The lab's report as the web view serves it: the footnote explaining "*" appears only when a
// figure is starred (fewer than 30 pairs behind it), and with a link maker each listed
// disagreement's key links to its cell's page. Known answers: 40 agreeing pairs at confidence
// 0.99 star nothing; 29 agreeing pairs (one short of 30) star the pair count.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harvest } from "../../src/lab/harvest.js";
import { renderHtml } from "../../src/lab/report-html.js";

const dir = mkdtempSync(join(tmpdir(), "sy-lab-page-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A pairs file: `agree` pairs where the model said what the host said, then `disagree` where it did not. */
function pairsFile(name: string, agree: number, disagree = 0): string {
  const lines: string[] = [];
  for (let n = 0; n < agree + disagree; n++) {
    const label = n < agree ? "yes" : "no";
    lines.push(
      JSON.stringify({
        lab: "l",
        time: "2026-12-02T00:00:00Z",
        run: "r1",
        type: "t.gate.ok",
        task: "gate",
        key: `k${n}`,
        question: { id: "ok", kind: "noul", labels: ["yes", "no"] },
        state_digest: `sha256:${n}`,
        host_label: "yes",
        model: {
          provider: "p",
          model: "m",
          label,
          probabilities: { [label]: 0.99, [label === "yes" ? "no" : "yes"]: 0.01 },
          confidence: 0.99,
          refused: false,
          latency_ms: 1,
          usage: null,
        },
      }),
    );
  }
  const file = join(dir, name);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

test("the lab report's footnote on '*' shows only when a figure is starred: not at 40 pairs, yes at 29", async () => {
  const many = renderHtml(await harvest(pairsFile("many.jsonl", 40), { target: 0.95 }));
  assert.doesNotMatch(many, /\d\*|%\*/, "nothing is starred at 40 pairs");
  assert.doesNotMatch(many, /fewer than 30 pairs/);
  const few = renderHtml(await harvest(pairsFile("few.jsonl", 29), { target: 0.95 }));
  assert.match(few, /<td>29\*<\/td>/, "29 pairs: the pair count is starred");
  assert.match(few, /<p class="meta footnote">\* fewer than 30 pairs behind this figure\.<\/p>/);
});

test("with a link maker, each listed disagreement's key links to its cell; without one, keys are text", async () => {
  const report = await harvest(pairsFile("mixed.jsonl", 38, 2), { target: 0.95 });
  const linked = renderHtml(report, (run, task, key) => `/#/runs/${run}/cell/${task}/${key}`);
  assert.deepEqual(
    [...linked.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]),
    [
      ["/#/runs/r1/cell/gate/k38", "k38"],
      ["/#/runs/r1/cell/gate/k39", "k39"],
    ],
  );
  assert.doesNotMatch(renderHtml(report), /<a href=/);
});
