// What a module's committed mutation record says, shared by scripts/mutation.mjs (which writes it)
// and scripts/mutation-ci.mjs (which compares it with the checkout).
//
// A module's record is two files: stryker/incremental/MODULE.json, Stryker's own incremental report
// (every mutant's status, and the text of each mutated file as it was mutated), and beside it
// MODULE.inputs.json, written by scripts/mutation.mjs after each run: the git blob ids of the
// module's test sources and fixtures as they were at the last FULL run (`tests`), of its watched
// files as they were at the last run (`watch`), and the blob id of the report it goes with
// (`report`). An incremental run carries `tests` over unchanged, so a test weakened and then run
// only incrementally still shows as a change. Where the inputs file is missing or belongs to
// another report (a run by a script that did not write it), the commit that last changed the
// report stands in for it: its tree gives the blob ids.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const BREAK = 90; // the break threshold of stryker.config.mjs, applied after the equivalents are left out

/** The modules of stryker/modules.json, by name. */
export const readModules = () => {
  const all = JSON.parse(readFileSync("stryker/modules.json", "utf8"));
  return Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith("$")));
};

export const reportPath = (name) => `stryker/incremental/${name}.json`;
export const inputsPath = (name) => `stryker/incremental/${name}.inputs.json`;

/** A `mutate` entry may name lines of a file ("FILE:FIRST-LAST"): the file. */
export const mutatedFile = (entry) => entry.replace(/:\d+(?::\d+)?-\d+(?::\d+)?$/, "");
/** The TypeScript source of a compiled test (dist/test/x.test.js → test/x.test.ts). */
export const testSource = (compiled) => compiled.replace(/^dist\//, "").replace(/\.js$/, ".ts");

/** Git's blob id of a file's bytes (what `git hash-object` prints), or null when there is no such file. */
const blobId = (path) => {
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
};

/** Every file under a path (itself, when it is a file), sorted; none when it does not exist. */
const filesUnder = (path) => {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => filesUnder(join(path, entry)));
};

/** The paths whose change makes a module run in full: its tests' sources and its fixtures' files. */
const testPaths = (mod) => [...mod.tests.map(testSource), ...(mod.fixtures ?? []).map((f) => f.replace(/\/$/, ""))];

/** Blob ids of files, each path expanded to the files under it, as { path: id }. */
const blobIds = (paths) => Object.fromEntries(paths.flatMap(filesUnder).map((f) => [f, blobId(f)]));

/** The module's inputs as the checkout has them now. */
export const currentInputs = (mod) => ({ tests: blobIds(testPaths(mod)), watch: blobIds(mod.watch ?? []) });

const git = (...args) => spawnSync("git", args, { encoding: "utf8" });
let shallow;
/** Whether this clone lacks history (or is no git checkout at all): then no commit can stand in for an inputs file. */
const isShallow = () => (shallow ??= git("rev-parse", "--is-shallow-repository").stdout.trim() !== "false");

/**
 * The inputs of the module's last recorded run: its inputs file when it belongs to the committed
 * report, else the tree of the commit that last changed the report. `why` says which; null with
 * `why` when neither can tell (no report, or a shallow clone that lacks the report's history).
 */
export const recordedInputs = (name, mod) => {
  const report = blobId(reportPath(name));
  if (report === null) return { inputs: null, why: `no ${reportPath(name)}` };
  if (existsSync(inputsPath(name))) {
    const saved = JSON.parse(readFileSync(inputsPath(name), "utf8"));
    if (saved.report === report) return { inputs: { tests: saved.tests, watch: saved.watch }, why: inputsPath(name) };
  }
  if (isShallow()) return { inputs: null, why: `${inputsPath(name)} does not belong to the report, and this clone's history is shallow` };
  // The last commit that changed the report's bytes (a rename alone, R100, did not run anything).
  const log = git("log", "--follow", "-n", "20", "--format=commit %H", "--raw", "--", reportPath(name)).stdout.split("\n");
  let candidate = null;
  let commit = null;
  for (const line of log) {
    if (line.startsWith("commit ")) candidate = line.slice("commit ".length);
    else if (line.startsWith(":") && line.split("\t")[0].split(" ").pop() !== "R100") {
      commit = candidate;
      break;
    }
  }
  if (commit === null) return { inputs: null, why: `${reportPath(name)} is not committed, and ${inputsPath(name)} does not belong to it` };
  const at = (paths) => {
    if (paths.length === 0) return {}; // ls-tree without a path lists the whole tree
    const listed = git("ls-tree", "-r", commit, "--", ...paths)
      .stdout.split("\n")
      .filter(Boolean);
    return Object.fromEntries(listed.map((l) => [l.split("\t")[1], l.split(/\s+/)[2]]));
  };
  return {
    inputs: { tests: at(testPaths(mod)), watch: at(mod.watch ?? []) },
    why: `the tree of ${commit.slice(0, 12)}, which last changed ${reportPath(name)}`,
  };
};

/** The paths whose blob id differs between two { path: id } maps (added and removed files too). */
export const differing = (before, after) =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((p) => before[p] !== after[p]).sort();

/**
 * Writes MODULE.inputs.json for the report a run just wrote: after a full run the current tests and
 * fixtures, after an incremental one those recorded before it (null when nothing was recorded).
 */
export const writeInputs = (name, mod, { full, before }) => {
  const now = currentInputs(mod);
  const body = {
    $comment:
      "Written by scripts/mutation.mjs: the git blob ids of this module's test sources and fixtures at its last full run, of its watched files at its last run, and of the report (MODULE.json) they belong to. scripts/mutation-ci.mjs compares them with the checkout (docs/testing.md, In CI).",
    report: blobId(reportPath(name)),
    tests: full ? now.tests : (before?.tests ?? null),
    watch: now.watch,
  };
  writeFileSync(inputsPath(name), JSON.stringify(body, null, 2) + "\n");
};

/** Whether a surviving mutant is one listed as equivalent: same file, line, mutator and replacement. */
const listed = (entry, file, m) =>
  entry.file === file && entry.line === m.location.start.line && entry.mutator === m.mutatorName && entry.replacement === m.replacement;

/**
 * Mutation score as Stryker defines it, detected / (detected + undetected), ignoring mutants that
 * never ran and the module's listed equivalents; `stale` are listed entries no undetected mutant matched.
 */
export function score(report, entries) {
  const c = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, Equivalent: 0, CompileError: 0, RuntimeError: 0 };
  const used = new Set();
  for (const [file, { mutants }] of Object.entries(report.files))
    for (const m of mutants) {
      const entry = m.status === "Survived" || m.status === "NoCoverage" ? entries.find((e) => listed(e, file, m)) : undefined;
      if (entry) used.add(entry);
      c[entry ? "Equivalent" : m.status] = (c[entry ? "Equivalent" : m.status] ?? 0) + 1;
    }
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  return { ...c, score: valid ? (100 * detected) / valid : 100, stale: entries.filter((e) => !used.has(e)) };
}
