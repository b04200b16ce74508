#!/usr/bin/env node
// `npm run bench`: every benchmark of docs/performance.md in one sitting, each run ROUNDS times
// (default 3) so the table can give a range, with the machine described once and its load average
// printed before and after each benchmark (a figure measured at load 20 is not one measured at
// load 0.3). Build first (`npm run build`). Each run's output is kept under OUT (default
// .bench-scratch/sitting) as NAME-ROUND.txt; the PostgreSQL rows need SWITCHYARD_BENCH_PG.
//
// usage: npm run bench [-- NAME...] [--rounds N] [--out DIR]
//        NAME is one of the benchmarks below (default: all of them)

import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";

const benches = [
  ["startup", null],
  ["compile", ["dist/bench/compile.js"]],
  ["fanout", ["dist/bench/fanout.js"]],
  ["fanout-unkeyed", ["dist/bench/fanout-unkeyed.js"]],
  ["paths", ["dist/bench/paths.js"]],
  ["commands", ["dist/bench/commands.js"]],
  ["decisions", ["dist/bench/decisions.js"]],
  ["store-append", ["dist/bench/store-append.js"]],
  ["queue", ["dist/bench/queue.js"]],
  ["ui", ["dist/bench/ui.js"]],
  ["replay", ["dist/bench/replay.js"]],
  ["langgraph", ["dist/bench/langgraph.js"]],
];

function parseArgs(argv) {
  const opts = { rounds: 3, out: resolve(".bench-scratch/sitting"), names: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") opts.rounds = Number(argv[++i]);
    else if (argv[i] === "--out") opts.out = resolve(argv[++i]);
    else opts.names.push(argv[i]);
  }
  const known = new Set(benches.map(([name]) => name));
  const unknown = opts.names.filter((n) => !known.has(n));
  if (unknown.length || !(opts.rounds >= 1)) {
    console.error(`usage: npm run bench [-- NAME...] [--rounds N] [--out DIR]; NAME is one of ${[...known].join(", ")}`);
    process.exit(2);
  }
  return opts;
}

function load() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}

function describeMachine() {
  const cpu = cpus();
  const os = readFileSync("/etc/os-release", "utf8").match(/PRETTY_NAME="([^"]*)"/)?.[1] ?? "unknown OS";
  return [
    `date:    ${new Date().toISOString()}`,
    `machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} free), ${os}`,
    `node:    ${process.version}`,
    `load:    ${load()} (1, 5, 15 min)`,
  ].join("\n");
}

// The CLI's start-up: user + system CPU of `switchyard --version` and of `check` on the example,
// the median of 5 (bash's `times` reports the CPU of the children it waited for).
function startup() {
  const lines = [];
  const cases = [
    ["node -e 0", "node -e 0"],
    ["switchyard --version", "node bin/switchyard.js --version"],
    ["switchyard check (example)", "node bin/switchyard.js check examples/cve-triage/triage.star"],
  ];
  for (const [label, command] of cases) {
    const samples = [];
    for (let i = 0; i < 5; i++) {
      const r = spawnSync("bash", ["-c", `${command} >/dev/null 2>&1; times`], { encoding: "utf8" });
      const [user, sys] = (r.stdout.trim().split("\n")[1] ?? "").split(/\s+/).map(seconds);
      samples.push(user + sys);
    }
    samples.sort((a, b) => a - b);
    lines.push(`${label.padEnd(28)} ${(samples[2] * 1000).toFixed(0)} ms CPU (median of 5)`);
  }
  return lines.join("\n") + "\n";
}

// bash's `times` prints e.g. "0m0.123s".
function seconds(text) {
  const m = /(\d+)m([\d.]+)s/.exec(text ?? "");
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}

function runOne(name, argv) {
  if (argv === null) return { out: startup(), ok: true };
  const r = spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  return { out: (r.stdout ?? "") + (r.stderr ? `stderr:\n${r.stderr}` : ""), ok: r.status === 0 };
}

const opts = parseArgs(process.argv.slice(2));
mkdirSync(opts.out, { recursive: true });
const header = describeMachine();
console.log(header + "\n");
writeFileSync(join(opts.out, "machine.txt"), header + "\n");
let failed = 0;
for (const [name, argv] of benches) {
  if (opts.names.length && !opts.names.includes(name)) continue;
  for (let round = 1; round <= opts.rounds; round++) {
    const before = load();
    const started = Date.now();
    const { out, ok } = runOne(name, argv);
    const took = ((Date.now() - started) / 1000).toFixed(0);
    const title = `## ${name}, round ${round} of ${opts.rounds} (${took} s; load before ${before}, after ${load()})`;
    console.log(`${title}\n${out}`);
    writeFileSync(join(opts.out, `${name}-${round}.txt`), `${title}\n${out}`);
    if (!ok) failed++;
  }
}
if (failed) {
  console.error(`${failed} benchmark run(s) failed: their output is above`);
  process.exit(1);
}
