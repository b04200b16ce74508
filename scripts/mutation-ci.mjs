// CI's mutation testing (docs/testing.md, In CI): each module of stryker/modules.json is compared
// with what its committed record says (scripts/mutation-record.mjs), so it works on a fresh clone of
// main, where there is no base to diff against:
//
// - a mutated file whose text differs from the text Stryker recorded, a watched file changed since
//   the last run, a change of the module's `mutate`, of how its tests are run, or of Stryker's
//   version: the module runs in incremental mode (Stryker reuses the recorded result of every
//   mutant in unchanged code whose killing test did not change, and runs the rest);
// - a test source or fixture changed since the last FULL run, or a test added to or dropped from
//   the module: the module runs in full (incremental mode never sees a fixture, and reruns a
//   mutant only when the compiled test it compares changed);
// - nothing changed: no Stryker run at all.
//
// Every module's score is then checked against its threshold (90 %), from the run just made or
// from the committed record, so a record committed below it fails too. --list only says what would
// run and why. MODULE… names the modules to consider (default: every one).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { BREAK, currentInputs, differing, mutatedFile, readModules, recordedInputs, reportPath, score } from "./mutation-record.mjs";

// MODULE… on the command line: only those (to check one module locally); none: every module.
const named = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const all = readModules();
for (const name of named)
  if (!(name in all)) {
    console.error(`error: no module '${name}' in stryker/modules.json (modules: ${Object.keys(all).join(", ")})`);
    process.exit(2);
  }
const modules = named.length ? Object.fromEntries(named.map((n) => [n, all[n]])) : all;
const installedStryker = JSON.parse(readFileSync("node_modules/@stryker-mutator/core/package.json", "utf8")).version;

/** How a module's run is configured now, as stryker.config.mjs gives it to Stryker. */
const configOf = async (name) => {
  process.env.MUTATION_MODULE = name;
  return (await import(`../stryker.config.mjs?module=${encodeURIComponent(name)}`)).default;
};

/** What must run for one module: { mode: "none" | "incremental" | "full", why: [reasons] }. */
async function plan(name, mod) {
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath(name), "utf8"));
  } catch {
    return { mode: "missing", why: [`no ${reportPath(name)}: run \`npm run test:mutation -- ${name}\` and commit its record`] };
  }
  const full = [];
  const incremental = [];
  const config = await configOf(name);
  const ran = report.config ?? {};
  if (!isDeepStrictEqual(ran.tap?.testFiles, config.tap.testFiles)) full.push("its list of tests changed");
  if (!isDeepStrictEqual(ran.mutate, config.mutate)) incremental.push("its `mutate` changed");
  for (const key of ["checkers", "coverageAnalysis", "timeoutMS", "timeoutFactor"])
    if (!isDeepStrictEqual(ran[key], config[key])) incremental.push(`its ${key} changed`);
  if (!isDeepStrictEqual(ran.tap?.nodeArgs, config.tap.nodeArgs)) incremental.push("how its tests are run changed");
  if (report.framework?.version !== installedStryker)
    incremental.push(`Stryker ${report.framework?.version} made the record, ${installedStryker} is installed`);
  for (const file of [...new Set(mod.mutate.map(mutatedFile))]) {
    let text = null;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      // a mutated file that is gone: Stryker's own run reports it
    }
    if (report.files?.[file]?.source !== text) incremental.push(`${file} differs from the text Stryker mutated`);
  }
  const { inputs, why } = recordedInputs(name, mod);
  const now = currentInputs(mod);
  if (inputs === null || inputs.tests === null) full.push(`the tests of its last full run are unknown (${why})`);
  else {
    const tests = differing(inputs.tests, now.tests);
    if (tests.length) full.push(`changed since its last full run (${why}): ${tests.join(", ")}`);
    const watched = differing(inputs.watch ?? {}, now.watch);
    if (watched.length) incremental.push(`watched, changed since its last run: ${watched.join(", ")}`);
  }
  if (full.length) return { mode: "full", why: [...full, ...incremental] };
  if (incremental.length) return { mode: "incremental", why: incremental };
  return { mode: "none", why: [] };
}

const plans = {};
for (const [name, mod] of Object.entries(modules)) plans[name] = await plan(name, mod);
for (const [name, p] of Object.entries(plans)) {
  const head = { none: "recorded run is current", incremental: "runs incrementally", full: "runs in full", missing: "has no record" }[
    p.mode
  ];
  console.log(`# mutation: ${name} ${head}${p.why.map((w) => `\n#   ${w}`).join("")}`);
}
// --list: only say which modules would run.
if (process.argv.includes("--list")) process.exit(0);

const missing = Object.keys(plans).filter((n) => plans[n].mode === "missing");
const full = Object.keys(plans).filter((n) => plans[n].mode === "full");
const incremental = Object.keys(plans).filter((n) => plans[n].mode === "incremental");
let failed = missing.length > 0;
const mutation = (...args) => spawnSync(process.execPath, ["scripts/mutation.mjs", ...args], { stdio: "inherit" }).status;
if (incremental.length && mutation("--incremental", ...incremental) !== 0) failed = true;
if (full.length && mutation(...full) !== 0) failed = true;

// The modules that did not run: their committed records must hold the threshold too.
const equivalents = JSON.parse(readFileSync("stryker/equivalents.json", "utf8"));
for (const name of Object.keys(plans).filter((n) => plans[n].mode === "none")) {
  const result = score(JSON.parse(readFileSync(reportPath(name), "utf8")), equivalents[name] ?? []);
  for (const e of result.stale) {
    failed = true;
    console.error(
      `error: stryker/equivalents.json lists ${e.file}:${e.line} ${e.mutator} (${e.replacement}) for ${name}, but no surviving mutant of its record matches it`,
    );
  }
  if (result.score < BREAK) {
    failed = true;
    console.error(
      `error: ${name}: ${result.score.toFixed(2)} % in its committed record (${reportPath(name)}), below the threshold of ${BREAK} %`,
    );
  }
}
console.log(
  `# mutation: ${Object.keys(plans).length} modules; ran ${incremental.length} incrementally, ${full.length} in full${failed ? "; FAILED" : ""}`,
);
process.exit(failed ? 1 : 0);
