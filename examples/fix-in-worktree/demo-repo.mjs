// Makes a small git repository holding the three files tickets.json names (demo-repo/src/),
// committed once: the repository this example's cassette was recorded against, so that
// `switchyard test` can replay the recorded patches into fresh worktrees of it.
//
//   node examples/fix-in-worktree/demo-repo.mjs DIR
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node demo-repo.mjs DIR (a new or empty folder)\n");
  process.exit(2);
}
if (existsSync(dir) && readdirSync(dir).length > 0) {
  process.stderr.write(`demo-repo: ${dir} is not empty; give a new or empty folder\n`);
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
cpSync(join(dirname(fileURLToPath(import.meta.url)), "demo-repo"), dir, { recursive: true });
const git = (...args) => execFileSync("git", args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
git("init", "-q", "-b", "main");
git("add", "-A");
git("-c", "user.name=switchyard", "-c", "user.email=switchyard@example.invalid", "commit", "-q", "-m", "the demo repository");
process.stdout.write(`${dir}: a git repository with src/mean.py, src/slug.py and src/retry.py\n`);
