// H-3: a pairs file of a million lines is harvested by the real CLI, in a child process, within
// 300 MB of peak RSS, and its counts come out exact.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "node:child_process";

const LINES = 1_000_000;
const TYPES = ["triage.gate.relevant", "triage.pick.team", "triage.judge.depth"];
const MAIN = resolve("dist/src/cli/main.js");

/** Line i: type i%3, confidence (i%100)/100, agrees unless i%7 = 0; every 1000th is skipped. */
function line(i: number): string {
  const type = TYPES[i % 3];
  const c = (i % 100) / 100;
  const head =
    `{"lab":"lab-261202000000-beef","time":"2026-12-02T10:00:00.000Z","run":"run-${i >> 10}","type":"${type}","task":"gate","key":"k${i}",` +
    `"question":{"id":"relevant","kind":"noul","labels":["yes","no"]},"state_digest":"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","host_label":"yes",`;
  if (i % 1000 === 999) return head + `"skipped":{"provider":"sys1","model":"jev-latest","reason":"window"}}\n`;
  const label = i % 7 === 0 ? "no" : "yes";
  const pYes = label === "yes" ? c : 1 - c;
  return (
    head +
    `"model":{"provider":"sys1","model":"jev-latest","label":"${label}","probabilities":{"yes":${pYes},"no":${1 - pYes}},"confidence":${c},"refused":false,"latency_ms":${i % 90},"usage":{"input_tokens":812,"output_tokens":1}}}\n`
  );
}

async function writeMillion(file: string): Promise<void> {
  const out = createWriteStream(file, { highWaterMark: 1 << 22 });
  let chunk = "";
  for (let i = 0; i < LINES; i++) {
    chunk += line(i);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, "drain");
      chunk = "";
    }
  }
  out.end(chunk);
  await once(out, "finish");
}

/** Runs `switchyard ARGS` in a child node that reports its own peak RSS (kB) on stderr. */
function runMeasured(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; maxRssKb: number }> {
  const wrapper =
    `const { main } = await import(${JSON.stringify(MAIN)});` +
    `const code = await main(${JSON.stringify(args)});` +
    `process.stderr.write("MAXRSS_KB " + process.resourceUsage().maxRSS + "\\n");` +
    `process.exitCode = code;`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", wrapper], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => {
      const m = /MAXRSS_KB (\d+)/.exec(stderr);
      done({ code, stdout, stderr, maxRssKb: m ? Number(m[1]) : NaN });
    });
  });
}

test("H-3: a million-line pairs file is harvested by the CLI within 300 MB RSS", { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-million-"));
  try {
    const file = join(dir, "pairs.jsonl");
    const t0 = Date.now();
    await writeMillion(file);
    const t1 = Date.now();
    const r = await runMeasured(["lab", "harvest", file, "--json", "--all"]);
    const t2 = Date.now();
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Number.isFinite(r.maxRssKb), `child reported no RSS: ${r.stderr}`);
    const rssMb = r.maxRssKb / 1024;
    t.diagnostic(`wrote ${LINES} lines in ${t1 - t0} ms; harvested in ${t2 - t1} ms, peak RSS ${rssMb.toFixed(0)} MB`);
    assert.ok(rssMb <= 300, `peak RSS ${rssMb.toFixed(0)} MB exceeds 300 MB`);

    const rep = JSON.parse(r.stdout) as {
      lines: number;
      overall: {
        pairs: number;
        answered: number;
        skipped: { total: number };
        agreement: { agree: number };
        thresholds: Array<{ covered: number }>;
      };
      types: Array<{ type: string; pairs: number }>;
    };
    // Expected by construction: 1000 skipped (i%1000 = 999); of the rest, those with i%7 = 0 disagree.
    let skipped = 0;
    let agree = 0;
    for (let i = 0; i < LINES; i++) {
      if (i % 1000 === 999) skipped++;
      else if (i % 7 !== 0) agree++;
    }
    assert.equal(rep.lines, LINES);
    assert.equal(rep.overall.pairs, LINES);
    assert.equal(rep.overall.skipped.total, skipped);
    assert.equal(rep.overall.answered, LINES - skipped);
    assert.equal(rep.overall.agreement.agree, agree);
    assert.equal(rep.overall.thresholds[0]!.covered, LINES - skipped);
    assert.deepEqual(
      rep.types.map((t) => t.type),
      [...TYPES].sort(),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
