// npm run test:mutation [-- MODULE…] [--incremental]: mutation testing of the modules in
// stryker/modules.json, one Stryker run per module, one after another (each has its own break
// threshold). Without --incremental every mutant runs and the module's committed incremental file
// (stryker/incremental/MODULE.json) is rewritten; with it, only mutants in changed code or
// reached by changed tests run (what CI does, scripts/mutation-ci.mjs). Prints each module's
// score and time, and exits non-zero when any module is below its threshold or fails to run.
// Mutants listed in stryker/equivalents.json (equivalent to the original: no input tells them
// apart; each with its reason) are left out of the score; an entry that matches no surviving
// mutant fails the run, so a stale entry cannot hide a different one.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { BREAK, readModules, recordedInputs, score, writeInputs } from "./mutation-record.mjs";

const modules = readModules();
const known = Object.keys(modules);
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

const equivalents = JSON.parse(readFileSync("stryker/equivalents.json", "utf8"));

// Tests make many small files; like scripts/test.mjs, they get a temp folder in the checkout.
mkdirSync(".tmp/mutation", { recursive: true });
const tmp = resolve(".tmp/mutation/tmp");
mkdirSync(tmp, { recursive: true });
const rows = [];
let failed = false;
for (const name of list) {
  const started = Date.now();
  // What the record said before this run rewrites it: an incremental run carries its tests over.
  const before = recordedInputs(name, modules[name]).inputs;
  const run = spawnSync("npx", ["stryker", "run", "stryker.config.mjs", ...(incremental ? [] : ["--force"])], {
    stdio: "inherit",
    env: { ...process.env, MUTATION_MODULE: name, TMPDIR: tmp },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  const reportFile = `.tmp/mutation/${name}.json`;
  // A report older than this run is an earlier run's (Stryker stopped before writing its own).
  if (run.status !== 0 && !(existsSync(reportFile) && statSync(reportFile).mtimeMs >= started)) {
    failed = true;
    rows.push({ name, seconds, error: `stryker exited with ${run.status ?? run.signal}` });
    continue;
  }
  // Stryker rewrote the module's record; the inputs file says what it was made from.
  writeInputs(name, modules[name], { full: !incremental, before });
  const result = score(JSON.parse(readFileSync(reportFile, "utf8")), equivalents[name] ?? []);
  for (const e of result.stale) {
    failed = true;
    console.error(
      `error: stryker/equivalents.json lists ${e.file}:${e.line} ${e.mutator} (${e.replacement}) for ${name}, but no surviving mutant matches it`,
    );
  }
  // Stryker's own break (stryker.config.mjs) counts the listed equivalents as survivors: the score
  // without them decides.
  const below = result.score < BREAK;
  if (below || result.stale.length > 0) failed = true;
  // No mutant that ran (every one failed to compile, or was ignored) is not a score of 100 %: a
  // broken sandbox build looks like this.
  if (result.Killed + result.Timeout + result.Survived + result.NoCoverage === 0) {
    failed = true;
    rows.push({ name, seconds, error: `no mutant ran (${result.CompileError} compile errors, ${result.Ignored} ignored)` });
    continue;
  }
  rows.push({ name, seconds, below, ...result });
}
const table = [
  "| module | score | killed | timeout | survived | no coverage | ignored (marked) | equivalent (listed) | compile errors | time |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) =>
    r.error
      ? `| ${r.name} | ${r.error} |  |  |  |  |  |  |  | ${r.seconds} s |`
      : `| ${r.name} | ${r.score.toFixed(2)} %${r.below ? " (below threshold)" : ""} | ${r.Killed} | ${r.Timeout} | ${r.Survived} | ${r.NoCoverage} | ${r.Ignored} | ${r.Equivalent} | ${r.CompileError} | ${r.seconds} s |`,
  ),
].join("\n");
writeFileSync(".tmp/mutation/summary.md", table + "\n");
console.log("\n" + table);
process.exit(failed ? 1 : 0);
