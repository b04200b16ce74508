// CI's mutation testing: the modules of stryker/modules.json that a change touches — a mutated
// file, a file the module watches, or the source of one of its tests changed since the base
// (MUTATION_BASE, default origin/main, else main; uncommitted changes count too) — run in incremental mode
// against their committed stryker/incremental/MODULE.json, so only the mutants in changed code or
// reached by changed tests run again, and each module's break threshold (90 %) still applies to its
// whole score. A change to the configuration itself runs every module. Without a base to compare
// with (a shallow clone), every module runs, still incrementally.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const git = (...args) => spawnSync("git", args, { encoding: "utf8" });
const modules = JSON.parse(readFileSync("stryker/modules.json", "utf8"));
const known = Object.keys(modules).filter((k) => !k.startsWith("$"));

// origin/main in a clone; main where there is no remote (a local checkout).
const bases = process.env.MUTATION_BASE ? [process.env.MUTATION_BASE] : ["origin/main", "main"];
let base = bases[0];
let mergeBase = git("merge-base", "HEAD", base);
for (const next of bases.slice(1)) {
  if (mergeBase.status === 0) break;
  base = next;
  mergeBase = git("merge-base", "HEAD", base);
}
let changed = null;
if (mergeBase.status === 0) {
  const since = git("diff", "--name-only", mergeBase.stdout.trim());
  const untracked = git("ls-files", "--others", "--exclude-standard");
  changed = new Set([...since.stdout.split("\n"), ...untracked.stdout.split("\n")].filter(Boolean));
} else {
  console.log(`# mutation: no merge base with ${base}; every module runs (incrementally)`);
}

const everything = ["stryker.config.mjs", "stryker/modules.json", "stryker/equivalents.json", "scripts/mutation.mjs", "package-lock.json"];
const touches = (name) => {
  if (changed === null || everything.some((f) => changed.has(f))) return true;
  const m = modules[name];
  const sources = m.tests.map((t) => t.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
  return (
    // A `mutate` entry may name lines of a file ("FILE:FIRST-LAST"): any change to the file counts.
    [
      ...m.mutate.map((f) => f.replace(/:\d+(?::\d+)?-\d+(?::\d+)?$/, "")),
      ...(m.watch ?? []),
      ...sources,
      `stryker/incremental/${name}.json`,
    ].some((f) => changed.has(f)) || testsChanged(name)
  );
};
// Stryker's incremental mode compares a module's compiled tests (dist/test, as the checkout last
// built them) with the text its incremental file recorded, and never sees a fixture: a module whose
// test sources or fixtures (its `fixtures`) changed runs in full, so a weakened test shows even
// where dist/ is stale.
const testsChanged = (name) => {
  if (changed === null) return false;
  const m = modules[name];
  const sources = m.tests.map((t) => t.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
  return [...sources, ...(m.fixtures ?? [])].some((f) => [...changed].some((c) => c === f || c.startsWith(f.endsWith("/") ? f : f + "/")));
};
const chosen = known.filter(touches);
if (chosen.length === 0) {
  console.log("# mutation: the change touches no module under mutation testing");
  process.exit(0);
}
const full = chosen.filter(testsChanged);
const incremental = chosen.filter((m) => !full.includes(m));
console.log(`# mutation: ${chosen.join(", ")}${full.length ? ` (in full, their tests changed: ${full.join(", ")})` : ""}`);
// --list: only say which modules would run.
if (process.argv.includes("--list")) process.exit(0);
const statuses = [];
if (incremental.length)
  statuses.push(spawnSync(process.execPath, ["scripts/mutation.mjs", "--incremental", ...incremental], { stdio: "inherit" }).status);
if (full.length) statuses.push(spawnSync(process.execPath, ["scripts/mutation.mjs", ...full], { stdio: "inherit" }).status);
process.exit(statuses.every((s) => s === 0) ? 0 : 1);
