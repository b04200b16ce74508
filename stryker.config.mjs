// StrykerJS configuration for one module of stryker/modules.json, chosen by MUTATION_MODULE
// (scripts/mutation.mjs sets it and runs the modules one after another). Stryker mutates the
// TypeScript sources; the TypeScript checker drops mutants that do not compile; in the sandbox
// tsc builds the instrumented sources to dist/, and the tap runner runs the module's compiled
// node:test files, each file once per mutant it covers. Equivalent mutants are marked in the
// sources with `// Stryker disable next-line <mutator>: <reason>` (docs/testing.md).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const modules = JSON.parse(readFileSync(new URL("./stryker/modules.json", import.meta.url), "utf8"));
const name = process.env.MUTATION_MODULE;
const mod = modules[name];
if (!name || name.startsWith("$") || !mod) {
  const known = Object.keys(modules).filter((k) => !k.startsWith("$"));
  throw new Error(`set MUTATION_MODULE to one of: ${known.join(", ")} (got ${JSON.stringify(name ?? null)}); or run npm run test:mutation`);
}

// Two small tsconfigs per module, so neither the checker nor the build reads the whole project: the
// checker type-checks the mutated files (and what they import), the build compiles the module's
// tests (and what they import) to dist/. Written under stryker/.generated/ (not committed), which
// the sandbox copies.
const generated = "stryker/.generated";
mkdirSync(new URL(`./${generated}/`, import.meta.url), { recursive: true });
const tsconfig = (kind, files) => {
  const file = `${generated}/tsconfig.${kind}.${name}.json`;
  const body = {
    extends: "../../tsconfig.json",
    compilerOptions: { incremental: false },
    files: files.map((f) => `../../${f}`),
    include: [],
  };
  writeFileSync(new URL(`./${file}`, import.meta.url), JSON.stringify(body, null, 2) + "\n");
  return file;
};
const testSources = mod.tests.map((t) => t.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
// A `mutate` entry may name lines of a file (Stryker's "FILE:FIRST-LAST"): the file is what is compiled.
const checkConfig = tsconfig(
  "check",
  mod.mutate.map((m) => m.replace(/:\d+(?::\d+)?-\d+(?::\d+)?$/, "")),
);
const buildConfig = tsconfig("build", [...testSources, ...(mod.build ?? [])]);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  mutate: mod.mutate,
  testRunner: "tap",
  tap: {
    testFiles: mod.tests,
    // node:test prints TAP with this reporter; the hook tells Stryker which mutants each file reached.
    nodeArgs: ["--test-reporter=tap", "-r", "{{hookFile}}", "{{testFile}}"],
  },
  checkers: ["typescript"],
  tsconfigFile: checkConfig,
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // The sandbox gets a fresh build of the instrumented sources (of dist/ only the tests are copied in).
  buildCommand: `npx tsc -p ${buildConfig}`,
  // The sandbox holds what the tests need: sources, tests and their fixtures, the CLI entry point.
  // Of dist/ only the module's compiled tests: the tap runner names each test by its file, and
  // incremental mode reuses a result only while that file is among the project's files (else it
  // counts the test as removed and reruns every mutant); the sandbox build then overwrites them.
  ignorePatterns: [
    "/dist/**",
    ...mod.tests.map((t) => `!/${t}`),
    ".tmp",
    ".switchyard",
    ".bench-scratch",
    "bench",
    "docs",
    "examples",
    ".ci",
  ],
  tempDirName: ".tmp/stryker",
  cleanTempDir: "always",
  // Each test file is a "test" for the tap runner: a mutant runs only the files that reached it.
  coverageAnalysis: "perTest",
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  timeoutMS: 20000,
  timeoutFactor: 2,
  thresholds: { high: 95, low: 90, break: 90 },
  // The committed incremental file lets CI re-run only the mutants a change touches (scripts/mutation-ci.mjs);
  // a full run (npm run test:mutation) passes --force, runs every mutant and rewrites the file.
  incremental: true,
  incrementalFile: `stryker/incremental/${name}.json`,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: `.tmp/mutation/${name}.html` },
  jsonReporter: { fileName: `.tmp/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
};
