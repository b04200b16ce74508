// Installs the real agent CLIs the conformance suite (test/agents-real/) drives, each into a folder
// of its own in a cache outside node_modules, so that a user's `npm install` never pulls them
// (together they are several hundred MB). The pinned versions are in scripts/agent-clis.json;
// `--latest` installs the newest published version of each instead, so drift shows before users
// meet it. A version already in the cache is not installed again.
//
//   node scripts/install-agent-clis.mjs [--latest] [PRESET…]
//
// The cache is $SWITCHYARD_AGENT_CLIS_DIR, else $XDG_CACHE_HOME/switchyard-agent-clis, else
// ~/.cache/switchyard-agent-clis; each tool goes to CACHE/<package>@<version> (the package name's
// "/" as "+"). The script writes CACHE/pinned.json or CACHE/latest.json: per preset the package,
// version and absolute path of its executable, which the suite reads.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PINS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "agent-clis.json"), "utf8"));

export function cacheDir() {
  if (process.env.SWITCHYARD_AGENT_CLIS_DIR) return resolve(process.env.SWITCHYARD_AGENT_CLIS_DIR);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "switchyard-agent-clis");
}

export const manifestPath = (latest) => join(cacheDir(), latest ? "latest.json" : "pinned.json");

function npm(args, opts = {}) {
  const r = spawnSync("npm", args, { encoding: "utf8", ...opts });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (status ${r.status}):\n${r.stderr}`);
  return r.stdout;
}

function install(pkg, version, bin) {
  const dir = join(cacheDir(), `${pkg.replace("/", "+")}@${version}`);
  const exe = join(dir, "node_modules", ".bin", bin);
  if (existsSync(exe)) return { exe, seconds: 0 };
  // Into a temporary folder first, renamed when complete: an interrupted install is never taken
  // for a finished one.
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "package.json"), JSON.stringify({ private: true, name: "switchyard-agent-cli" }) + "\n");
  const started = Date.now();
  npm(["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error", `${pkg}@${version}`], {
    cwd: tmp,
    stdio: ["ignore", "ignore", "pipe"],
  });
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  if (!existsSync(exe)) throw new Error(`${pkg}@${version} installed no executable ${bin} (looked for ${exe})`);
  return { exe, seconds: (Date.now() - started) / 1000 };
}

function main() {
  const args = process.argv.slice(2);
  const latest = args.includes("--latest");
  const wanted = args.filter((a) => !a.startsWith("--"));
  for (const w of wanted) if (!PINS[w]) throw new Error(`unknown preset ${w}; known: ${Object.keys(PINS).join(", ")}`);
  const manifest = existsSync(manifestPath(latest)) ? JSON.parse(readFileSync(manifestPath(latest), "utf8")) : {};
  const started = Date.now();
  for (const [preset, pin] of Object.entries(PINS)) {
    if (wanted.length && !wanted.includes(preset)) continue;
    const version = latest ? npm(["view", `${pin.package}@latest`, "version"]).trim() : pin.version;
    const { exe, seconds } = install(pin.package, version, pin.bin);
    manifest[preset] = { package: pin.package, version, bin: exe, pinned: pin.version };
    process.stdout.write(`${preset}: ${pin.package}@${version}${seconds ? ` installed in ${seconds.toFixed(0)} s` : " (cached)"}\n`);
  }
  mkdirSync(cacheDir(), { recursive: true });
  writeFileSync(manifestPath(latest), JSON.stringify(manifest, null, 2) + "\n");
  process.stdout.write(`agent CLIs ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${manifestPath(latest)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`install-agent-clis: ${err.message}\n`);
    process.exit(1);
  }
}
