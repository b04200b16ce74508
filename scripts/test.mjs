// Runs every compiled test file with node's own test runner. Node 20 has no glob support in
// `node --test`, so the file list is gathered here. Extra arguments filter by path substring.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    // A compiled test whose source was deleted (tsc never removes its output) is not run.
    else if (name.endsWith(".test.js") && existsSync(p.replace(/^dist[\\/]/, "").replace(/\.js$/, ".ts"))) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
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
const run = (list, env = {}) =>
  spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...list], {
    stdio: "inherit",
    env: { ...inherited, ...hermetic, ...env },
  }).status ?? 1;
let status = run(files);
// With a PostgreSQL server for the tests (SWITCHYARD_TEST_PG, see scripts/pg-test-cluster.sh), the
// run-engine conformance suite runs a second time on a PostgreSQL store: every test file under
// test/run/ whose runs go through the store of test/support/test-store.ts (harness(), testStore() or
// testStoreSpec() for child processes, storeEnv() for the CLI).
if (process.env.SWITCHYARD_TEST_PG && !process.env.SWITCHYARD_TEST_STORE) {
  const conformance = files.filter((f) => {
    if (!/^dist[\\/]test[\\/]run[\\/]/.test(f)) return false;
    const source = readFileSync(f.replace(/^dist[\\/]/, "").replace(/\.js$/, ".ts"), "utf8");
    return /\b(harness|testStore|testStoreSpec|storeEnv)\(/.test(source);
  });
  if (conformance.length) {
    process.stdout.write(`# the run-engine conformance suite on PostgreSQL: ${conformance.length} files\n`);
    const onPostgres = run(conformance, { SWITCHYARD_TEST_STORE: "postgres" });
    status ||= onPostgres;
  }
}
rmSync(tmp, { recursive: true, force: true });
process.exit(status);
