// Labels from people: `lab export --disagreements` writes the elements to label as CSV (quoted by
// RFC 4180) or JSONL, `lab import` reads the filled-in file back as reviewed pairs, and harvest
// measures the host and the model each against them — counted by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCliInProcess } from "../support/cli-in-process.js";
import { labPair, withPairsFile } from "../support/lab-pairs.js";
import { parseCsv } from "../../src/lab/labels.js";

async function lab(...args: string[]) {
  const r = await runCliInProcess(["lab", ...args]);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** 10 agreeing elements and 4 disagreeing ones (one refused); one key needs CSV quoting. */
function pairs() {
  const out = [];
  for (let i = 0; i < 10; i++) out.push(labPair({ key: `agree-${i}`, host: "yes", model: "yes" }));
  out.push(labPair({ key: 'd0, "quoted"', host: "yes", model: "no" }));
  out.push(labPair({ key: "d1", host: "yes", model: "no" }));
  out.push(labPair({ key: "d2", host: "no", model: "yes" }));
  out.push(labPair({ key: "d3", host: "no", model: null }));
  return out;
}

test("lab export --disagreements writes one row per disagreeing element; import reads labels back; harvest compares host and model with them", async () => {
  await withPairsFile(pairs(), async (file, dir) => {
    const csv = join(dir, "to-label.csv");
    const ex = await lab("export", file, "--disagreements", "-o", csv);
    assert.equal(ex.status, 0, ex.stderr);
    const records = parseCsv(readFileSync(csv, "utf8"));
    const [head, ...rows] = records.map((r) => r.fields);
    assert.equal(
      head!.join(","),
      "element,type,question,labels,run,task,key,state_digest,host_label,model,model_label,confidence,label,by",
    );
    assert.deepEqual(
      rows.map((r) => [r[6], r[8], r[10]]),
      [
        ['d0, "quoted"', "yes", "no"],
        ["d1", "yes", "no"],
        ["d2", "no", "yes"],
        ["d3", "no", "uncertain"],
      ],
    );
    // People say: d0 yes (host right), d1 no (model right), d2 yes (model right), d3 left unlabelled.
    const filled = [
      head!,
      ...rows.map((r, i) => r.map((v, j) => (j === 12 ? (["yes", "no", "yes", ""][i] as string) : j === 13 ? "ana" : v))),
    ];
    writeFileSync(csv, filled.map((r) => r.map((v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(",")).join("\n") + "\n");
    const im = await lab("import", file, csv);
    assert.equal(im.status, 0, im.stderr);
    assert.match(im.stdout, /imported 3 reviewed labels .* \(1 rows without a label skipped\)/);
    const reviewed = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((p) => p.kind === "reviewed");
    assert.deepEqual(
      reviewed.map((p) => [p.key, p.host_label, p.model.label, p.reviewed.label, p.reviewed.by, p.reviewed.source]),
      [
        ['d0, "quoted"', "yes", "no", "yes", "ana", "to-label.csv"],
        ["d1", "yes", "no", "no", "ana", "to-label.csv"],
        ["d2", "no", "yes", "yes", "ana", "to-label.csv"],
      ],
    );
    const h = JSON.parse((await lab("harvest", file, "--json")).stdout);
    const t = h.types[0];
    // Reviewed pairs are not shadow pairs: the shadow figures are unchanged.
    assert.equal(t.pairs, 14);
    assert.equal(t.reviewed.n, 3);
    assert.deepEqual([t.reviewed.host.agree, t.reviewed.model.agree, t.reviewed.model.answered], [1, 2, 3]);
    assert.equal(t.reviewed.host.rate, 0.333333);
    assert.match(
      (await lab("harvest", file)).stdout,
      /against 3 reviewed labels: host 33\.3% \(.*\) of 3 asked apart · model 66\.7% \(.*\) of 3 answered \(few pairs\)/,
    );
    // Imported twice, the same labels are one piece of evidence each.
    await lab("import", file, csv);
    assert.equal(JSON.parse((await lab("harvest", file, "--json")).stdout).types[0].reviewed.n, 3);
  });
});

test("lab export writes JSONL too; lab import refuses a label that is not the question's, naming the line, and appends nothing", async () => {
  await withPairsFile(pairs(), async (file, dir) => {
    const jsonl = join(dir, "all.jsonl");
    assert.equal((await lab("export", file, "-o", jsonl)).status, 0);
    const rows = readFileSync(jsonl, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(rows.length, 14);
    rows[1].label = "yes";
    rows[2].label = "maybe";
    writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const before = readFileSync(file, "utf8");
    const im = await lab("import", file, jsonl);
    assert.equal(im.status, 2);
    assert.match(im.stderr, /all\.jsonl:3: 'maybe' is not a label of question q \(yes, no\)/);
    assert.doesNotMatch(im.stderr, /\n\s+at /);
    assert.equal(readFileSync(file, "utf8"), before);
  });
});

test("parseCsv reads quoted commas, doubled quotes and line breaks inside a field, CRLF or LF", () => {
  assert.deepEqual(parseCsv('a,b\r\n"x, y","say ""hi"""\r\n"two\nlines",z\n'), [
    { line: 1, fields: ["a", "b"] },
    { line: 2, fields: ["x, y", 'say "hi"'] },
    { line: 3, fields: ["two\nlines", "z"] },
  ]);
  assert.deepEqual(parseCsv("a,\n"), [{ line: 1, fields: ["a", ""] }]);
});
