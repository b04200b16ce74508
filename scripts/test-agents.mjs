// `npm run test:agents [-- --latest] [FILTER…]`: the conformance suite against the real agent CLIs
// (test/agents-real/). Installs them first (scripts/install-agent-clis.mjs: the pinned versions,
// or with --latest the newest published ones, so drift shows before users meet it), then runs the
// compiled suite with the manifest of the versions installed. Extra arguments filter the test
// files by path substring (e.g. `codex`). Prints how long the install and the suite took.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { manifestPath } from "./install-agent-clis.mjs";

const args = process.argv.slice(2);
const latest = args.includes("--latest");
const filters = args.filter((a) => !a.startsWith("--"));

let started = Date.now();
const install = spawnSync(process.execPath, ["scripts/install-agent-clis.mjs", ...(latest ? ["--latest"] : [])], { stdio: "inherit" });
if (install.status !== 0) process.exit(install.status ?? 1);
const installSeconds = (Date.now() - started) / 1000;

const dir = join("dist", "test", "agents-real");
if (!existsSync(dir)) {
  console.error("test:agents: dist/test/agents-real is missing; build first (npx tsc -p .)");
  process.exit(1);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".test.js"))
  .map((f) => join(dir, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("test:agents: no test files matched");
  process.exit(1);
}
mkdirSync(".tmp", { recursive: true });
const tmp = mkdtempSync(resolve(".tmp", "agents-"));
started = Date.now();
const run = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...files], {
  stdio: "inherit",
  env: { ...process.env, TMPDIR: tmp, SWITCHYARD_AGENT_CLIS_MANIFEST: manifestPath(latest) },
});
rmSync(tmp, { recursive: true, force: true });
process.stdout.write(
  `# agent CLIs (${latest ? "latest" : "pinned"}): install ${installSeconds.toFixed(0)} s, suite ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
);
process.exit(run.status ?? 1);
