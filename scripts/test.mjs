// Runs every compiled test file with node's own test runner. Node 20 has no glob support in
// `node --test`, so the file list is gathered here. Extra arguments filter by path substring.
//
// The files run longest first (scripts/test-durations.json, the wall time of each file in the last
// recorded full run; a file not listed counts as slow, so a new file never ends up alone at the
// tail), two files a core (`TEST_CONCURRENCY=N` to change it). After the run it
// prints the slowest files; `--record-durations` (with no filter) rewrites test-durations.json from
// this run. `--checks` (what `npm test` passes) runs the lint and the format check beside the
// tests, at a lower priority, and prints what they said after the tests. See docs/testing.md.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism, setPriority } from "node:os";
import { pathToFileURL } from "node:url";

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    // A compiled test whose source was deleted (tsc never removes its output) is not run.
    else if (name.endsWith(".test.js") && existsSync(sourceOf(p))) out.push(p);
  }
  return out;
}

/** test/x/y.test.ts for dist/test/x/y.test.js. */
function sourceOf(compiled) {
  return compiled.replace(/^dist[\\/]/, "").replace(/\.js$/, ".ts");
}

const args = process.argv.slice(2);
const record = args.includes("--record-durations");
const withChecks = args.includes("--checks");
const filters = args.filter((a) => a !== "--record-durations" && a !== "--checks");
if (record && filters.length) {
  console.error("--record-durations needs the whole suite: give no filter");
  process.exit(2);
}
// The conformance suite against the real agent CLIs (test/agents-real/) is its own command,
// `npm run test:agents`: it installs the pinned CLIs (several hundred MB) and takes minutes, so the
// README's test command leaves it out and says so.
const realAgents = /^dist[\\/]test[\\/]agents-real[\\/]/;
const files = walk("dist/test", [])
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .filter((f) => !realAgents.test(f));
process.stdout.write(
  "# not run here: the conformance suite against the real agent CLIs (test/agents-real/); `npm run test:agents` installs the pinned CLIs and runs it\n",
);
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// Tests make many small files; on this project's machines the system temp folder is several times
// slower at creating files than the disk the checkout lives on, so tests get a temp folder here.
mkdirSync(".tmp", { recursive: true });
const tmp = mkdtempSync(resolve(".tmp", "test-"));
// Tests never see or write a state folder or machine config they did not make: the search for a
// `.switchyard/` stops at the temp folder (so one that `npm start` left at the top of the checkout
// is never found), the per-user folders are inside it, and none the caller set is passed on.
const hermetic = {
  TMPDIR: tmp,
  SWITCHYARD_CEILING_DIRECTORIES: tmp,
  XDG_STATE_HOME: join(tmp, "xdg-state"),
  XDG_CONFIG_HOME: join(tmp, "xdg-config"),
};
const inherited = { ...process.env };
for (const name of ["SWITCHYARD_HOME", "SWITCHYARD_CONFIG", "SWITCHYARD_STORE"]) delete inherited[name];
// The suite talks only to servers on 127.0.0.1 over plain HTTP, and Node reads and parses the
// whole file NODE_EXTRA_CA_CERTS names at the start of every process, whether it makes a TLS
// connection or not: on machines behind a proxy that sets it (as this project's are) that is
// about 40 ms of CPU on each of the suite's thousands of Node starts. It is kept only for the
// opt-in consumer test that installs from the registry (SWITCHYARD_CONSUMER_NPM_INSTALL=1).
if (process.env.SWITCHYARD_CONSUMER_NPM_INSTALL !== "1") delete inherited.NODE_EXTRA_CA_CERTS;

// Each entry: the compiled test, the store it runs on (PostgreSQL for the second pass below), and
// the name it has in test-durations.json and in the summary.
const runs = files.map((f) => ({ test: f, postgres: false, name: sourceOf(f) }));

// With a PostgreSQL server for the tests (SWITCHYARD_TEST_PG, see scripts/pg-test-cluster.sh), the
// run-engine conformance suite runs a second time on a PostgreSQL store: every test file under
// test/run/ whose runs go through the store of test/support/test-store.ts (harness(), testStore() or
// testStoreSpec() for child processes, storeEnv() for the CLI). Each such file is run through a
// two-line wrapper that sets SWITCHYARD_TEST_STORE=postgres before loading it, so both passes are
// one `node --test` run: the longest files of either pass start first, and the PostgreSQL pass does
// not wait for the last file of the SQLite pass. A file whose subject the store plays no part in
// (git worktrees, launchers, pipes, log files, agent CLI checks) says so with a line starting
// `// One store is enough:` and why; it runs once, on SQLite.
const ONE_STORE = /^\/\/ One store is enough: /m;
if (process.env.SWITCHYARD_TEST_PG && !process.env.SWITCHYARD_TEST_STORE) {
  const conformance = files.filter((f) => {
    if (!/^dist[\\/]test[\\/]run[\\/]/.test(f)) return false;
    const source = readFileSync(sourceOf(f), "utf8");
    return /\b(harness|testStore|testStoreSpec|storeEnv)\(/.test(source) && !ONE_STORE.test(source);
  });
  if (conformance.length) {
    process.stdout.write(`# the run-engine conformance suite on PostgreSQL as well: ${conformance.length} files\n`);
    for (const f of conformance) runs.push({ test: f, postgres: true, name: `postgres:${sourceOf(f)}` });
  }
}

// Each file runs through a few-line wrapper that sets the store of its pass, imports it, and as
// its process exits appends the CPU time it used — its own and that of every process it started
// and waited for (Linux's /proc/self/stat), so the PostgreSQL server and the processes of a child
// killed with -9 are not counted — to a file the summary reads.
const cpuFile = join(tmp, "cpu.jsonl");
const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;
const cpuAtExit = existsSync("/proc/self/stat")
  ? `import { appendFileSync, readFileSync } from "node:fs";
process.on("exit", () => {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const [utime, stime, cutime, cstime] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").slice(11, 15).map(Number);
  appendFileSync(${JSON.stringify(cpuFile)}, JSON.stringify({ file: process.argv[1], ms: ((utime + stime + cutime + cstime) * 1000) / ${clockTicks} }) + "\\n");
});
`
  : "";
for (const r of runs) {
  r.file = join(tmp, r.postgres ? "on-postgres" : "on-sqlite", relative("dist", r.test));
  mkdirSync(resolve(r.file, ".."), { recursive: true });
  writeFileSync(
    r.file,
    cpuAtExit +
      (r.postgres ? `process.env.SWITCHYARD_TEST_STORE = "postgres";\n` : "") +
      `await import(${JSON.stringify(pathToFileURL(resolve(r.test)).href)});\n`,
  );
}

// Longest first: the two slots stay busy to the end instead of one long file running alone.
const DURATIONS = "scripts/test-durations.json";
// Each file's CPU time in the same run (written beside it; not used for the order).
const DURATIONS_CPU = "scripts/test-durations-cpu.json";
const known = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, "utf8")) : {};
const slowest = Math.max(0, ...Object.values(known));
runs.sort((a, b) => (known[b.name] ?? slowest) - (known[a.name] ?? slowest));

// Twice as many files as cores (at most 8): a file spends about half its time waiting — on the
// processes, servers, browsers and kills it drives — so two files a core keep the cores busy,
// where one a core left them idle nearly half the time (docs/testing.md has the measurement).
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.min(8, 2 * availableParallelism());
const timesFile = join(tmp, "durations.json");
const started = Date.now();
const checks = withChecks ? startChecks() : [];
const result = await run(
  process.execPath,
  [
    "--test",
    `--test-concurrency=${concurrency}`,
    // The usual reporter on the terminal (spec on a terminal, TAP otherwise, as node chooses)…
    `--test-reporter=${process.stdout.isTTY ? "spec" : "tap"}`,
    "--test-reporter-destination=stdout",
    // …and each file's wall time into a file.
    "--test-reporter=./scripts/test-durations-reporter.mjs",
    `--test-reporter-destination=${timesFile}`,
    ...runs.map((r) => r.file),
  ],
  { stdio: "inherit", env: { ...inherited, ...hermetic } },
);
let status = result.status ?? 1;
const wall = (Date.now() - started) / 1000;
for (const check of checks) {
  const { status: checkStatus, output } = await check.done;
  process.stdout.write(`# ${check.name}: ${checkStatus === 0 ? "passed" : "FAILED"}\n${output}`);
  if (checkStatus !== 0) status ||= checkStatus ?? 1;
}

if (existsSync(timesFile)) {
  const byPath = JSON.parse(readFileSync(timesFile, "utf8"));
  const cpuByPath = {};
  if (existsSync(cpuFile))
    for (const line of readFileSync(cpuFile, "utf8").split("\n").filter(Boolean)) {
      const { file, ms } = JSON.parse(line);
      cpuByPath[resolve(file)] = Math.round(ms);
    }
  const measured = {};
  const cpu = {};
  for (const r of runs) {
    const ms = byPath[resolve(r.file)];
    if (ms !== undefined) measured[r.name] = ms;
    if (cpuByPath[resolve(r.file)] !== undefined) cpu[r.name] = cpuByPath[resolve(r.file)];
  }
  const rows = Object.entries(measured).sort((a, b) => b[1] - a[1]);
  const sum = rows.reduce((s, [, ms]) => s + ms, 0) / 1000;
  const cpuSum = Object.values(cpu).reduce((s, ms) => s + ms, 0) / 1000;
  process.stdout.write(
    `# ${rows.length} files in ${wall.toFixed(0)} s at concurrency ${concurrency} (the files' own times add up to ${sum.toFixed(0)} s, ` +
      `their CPU times to ${cpuSum.toFixed(0)} s); the slowest (wall, CPU):\n`,
  );
  const seconds = (ms) => (ms === undefined ? "" : (ms / 1000).toFixed(1)).padStart(6);
  for (const [name, ms] of rows.slice(0, 12)) process.stdout.write(`#   ${seconds(ms)} s ${seconds(cpu[name])} s  ${name}\n`);
  if (record) {
    const ordered = Object.fromEntries(rows);
    writeFileSync(DURATIONS, JSON.stringify(ordered, null, 2) + "\n");
    const cpuOrdered = Object.fromEntries(Object.entries(cpu).sort((a, b) => b[1] - a[1]));
    writeFileSync(DURATIONS_CPU, JSON.stringify(cpuOrdered, null, 2) + "\n");
    process.stdout.write(`# wrote ${DURATIONS} and ${DURATIONS_CPU}\n`);
  }
}
rmSync(tmp, { recursive: true, force: true });
process.exit(status);

/** Runs a command to its end: its exit status (a promise, so that the checks beside it keep running). */
function run(command, commandArgs, options) {
  return new Promise((done) => spawn(command, commandArgs, options).once("close", (code) => done({ status: code })));
}

/**
 * The lint and the format check of `npm test`, started beside the tests: each is one process
 * (about 25 s of CPU apiece on the 2-core development machine) while the tests spend much of
 * their time waiting on processes, servers and timers, so beside the tests they cost the run's
 * wall time little, where before the tests they added their whole time. They run at a lower
 * priority than the tests, and what they print is kept and printed after the tests.
 */
function startChecks() {
  const bin = (name) => resolve("node_modules", ".bin", name);
  return [
    ["eslint", bin("eslint"), ["."]],
    ["prettier", bin("prettier"), ["--check", "."]],
  ].map(([name, command, commandArgs]) => {
    const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"] });
    try {
      setPriority(child.pid, 10);
    } catch {
      // not allowed here: it runs at the tests' priority
    }
    let output = "";
    child.stdout.on("data", (b) => (output += b));
    child.stderr.on("data", (b) => (output += b));
    const done = new Promise((resolveDone) => {
      child.once("error", (e) => resolveDone({ status: 1, output: `${output}${e.message}\n` }));
      child.once("close", (code) => resolveDone({ status: code, output }));
    });
    return { name, done };
  });
}
