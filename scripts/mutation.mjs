// npm run test:mutation [-- MODULE…] [--incremental]: mutation testing of the modules in
// stryker/modules.json, one Stryker run per module, one after another (each has its own break
// threshold). Without --incremental every mutant runs and the module's committed incremental file
// (stryker/incremental/MODULE.json) is rewritten; with it, only mutants in changed code or
// reached by changed tests run (what CI does, scripts/mutation-ci.mjs). Prints each module's
// score and time, and exits non-zero when any module is below its threshold or fails to run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const modules = JSON.parse(readFileSync("stryker/modules.json", "utf8"));
const known = Object.keys(modules).filter((k) => !k.startsWith("$"));
const args = process.argv.slice(2);
const incremental = args.includes("--incremental");
const chosen = args.filter((a) => !a.startsWith("--"));
for (const m of chosen) {
  if (!known.includes(m)) {
    console.error(`error: no module '${m}' in stryker/modules.json (modules: ${known.join(", ")})`);
    process.exit(2);
  }
}
const list = chosen.length ? chosen : known;

/** Mutation score as Stryker defines it: detected / (detected + undetected), ignoring mutants that never ran. */
function score(report) {
  const c = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, CompileError: 0, RuntimeError: 0 };
  for (const file of Object.values(report.files)) for (const m of file.mutants) c[m.status] = (c[m.status] ?? 0) + 1;
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  return { ...c, score: valid ? (100 * detected) / valid : 100 };
}

// Tests make many small files; like scripts/test.mjs, they get a temp folder in the checkout.
mkdirSync(".tmp/mutation", { recursive: true });
const tmp = resolve(".tmp/mutation/tmp");
mkdirSync(tmp, { recursive: true });
const rows = [];
let failed = false;
for (const name of list) {
  const started = Date.now();
  const run = spawnSync("npx", ["stryker", "run", "stryker.config.mjs", ...(incremental ? [] : ["--force"])], {
    stdio: "inherit",
    env: { ...process.env, MUTATION_MODULE: name, TMPDIR: tmp },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  const reportFile = `.tmp/mutation/${name}.json`;
  if (run.status !== 0) failed = true;
  if (run.status !== 0 && !existsSync(reportFile)) {
    rows.push({ name, seconds, error: `stryker exited with ${run.status ?? run.signal}` });
    continue;
  }
  const result = score(JSON.parse(readFileSync(reportFile, "utf8")));
  // No mutant that ran (every one failed to compile, or was ignored) is not a score of 100 %: a
  // broken sandbox build looks like this.
  if (result.Killed + result.Timeout + result.Survived + result.NoCoverage === 0) {
    failed = true;
    rows.push({ name, seconds, error: `no mutant ran (${result.CompileError} compile errors, ${result.Ignored} ignored)` });
    continue;
  }
  rows.push({ name, seconds, status: run.status, ...result });
}
const table = [
  "| module | score | killed | timeout | survived | no coverage | ignored (equivalent) | compile errors | time |",
  "|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) =>
    r.error
      ? `| ${r.name} | ${r.error} |  |  |  |  |  |  | ${r.seconds} s |`
      : `| ${r.name} | ${r.score.toFixed(2)} %${r.status === 0 ? "" : " (below threshold)"} | ${r.Killed} | ${r.Timeout} | ${r.Survived} | ${r.NoCoverage} | ${r.Ignored} | ${r.CompileError} | ${r.seconds} s |`,
  ),
].join("\n");
writeFileSync(".tmp/mutation/summary.md", table + "\n");
console.log("\n" + table);
process.exit(failed ? 1 : 0);
