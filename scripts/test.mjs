// Runs every compiled test file with node's own test runner. Node 20 has no glob support in
// `node --test`, so the file list is gathered here. Extra arguments filter by path substring.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
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
const files = walk("dist/test", []).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// Tests make many small files; on this project's machines the system temp folder is several times
// slower at creating files than the disk the checkout lives on, so tests get a temp folder here.
mkdirSync(".tmp", { recursive: true });
const tmp = mkdtempSync(resolve(".tmp", "test-"));
const r = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...files], {
  stdio: "inherit",
  env: { ...process.env, TMPDIR: tmp },
});
rmSync(tmp, { recursive: true, force: true });
process.exit(r.status ?? 1);
