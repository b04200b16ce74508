// The package as a consumer gets it (docs/api.md, "Installing"): `npm pack` the project, install the
// tarball into a temporary consumer project, `tsc --noEmit` the complete example of docs/api.md
// against it (with misuses that must be type errors, and a deep import that must not resolve),
// then run it on the doc's pack: a TypeScript runner and provider, decisions printed as they
// land, the run cancelled by the program.
//
// Installing: the tarball is unpacked into the consumer's node_modules/switchyard exactly as npm
// would unpack it, and its dependencies (and the consumer's typescript and @types/node) are linked
// to this project's node_modules instead of being downloaded, so the test needs no network and
// costs seconds in CI. SWITCHYARD_CONSUMER_NPM_INSTALL=1 installs the tarball with a real
// `npm install` from the registry instead.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";
import { fencedBlocks } from "../docs/blocks.js";

const ROOT = process.cwd();
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** docs/api.md's complete example: its pack and its program. */
function example(): { pack: string; program: string } {
  const blocks = fencedBlocks("docs/api.md", readFileSync(join(ROOT, "docs", "api.md"), "utf8"));
  const pack = blocks.find((b) => b.lang === "starlark");
  const program = blocks.find((b) => b.lang === "ts" && b.text.includes("openState"));
  assert.ok(pack && program, "docs/api.md has the example's pack and program");
  return { pack: pack.text, program: program.text };
}

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    types: ["node"],
    outDir: "out",
    skipLibCheck: false,
  },
};

/** Packs the project (already built) and installs the tarball into `consumer` (see the header). */
function install(tmp: TempDir, consumer: string): void {
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", tmp.path, "--json"], { cwd: ROOT, encoding: "utf8" });
  const tarball = join(tmp.path, (JSON.parse(out) as { filename: string }[])[0]!.filename);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module", dependencies: { switchyard: `file:${tarball}` } }),
  );
  if (process.env.SWITCHYARD_CONSUMER_NPM_INSTALL === "1") {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "typescript@~5.9.3", "@types/node@^20.19.0"], {
      cwd: consumer,
      stdio: "ignore",
    });
    return;
  }
  const modules = join(consumer, "node_modules");
  mkdirSync(join(modules, "@types"), { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", modules]);
  renameSync(join(modules, "package"), join(modules, "switchyard"));
  symlinkSync(join(ROOT, "node_modules"), join(modules, "switchyard", "node_modules"), "dir");
  symlinkSync(join(ROOT, "node_modules", "typescript"), join(modules, "typescript"), "dir");
  symlinkSync(join(ROOT, "node_modules", "@types", "node"), join(modules, "@types", "node"), "dir");
}

function tsc(consumer: string, args: string[]): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(process.execPath, [TSC, ...args], { cwd: consumer, encoding: "utf8" }) };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { code: e.status, out: e.stdout };
  }
}

test(
  "a consumer project type-checks against the packed package and runs, watches and cancels a run with a TS runner and provider",
  { timeout: 300_000 },
  () => {
    const tmp = new TempDir("sy-consumer-");
    try {
      const consumer = join(tmp.path, "consumer");
      mkdirSync(consumer);
      install(tmp, consumer);
      // What the tarball holds: the entry point and its declarations, no test or dist/test files.
      const shipped = readdirSync(join(consumer, "node_modules", "switchyard", "dist"));
      assert.deepEqual(shipped.sort(), ["src"]);
      const doc = example();
      // One compile, by the consumer's own tsc: the program type-checks and is emitted to run
      // below; each misuse is a type error (its @ts-expect-error holds); and a deep import is
      // refused by the package's exports map (its @ts-expect-error holds too). An expectation
      // that does not hold is itself an error, so the compile fails.
      writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify({ ...TSCONFIG, files: ["main.ts", "misuses.ts", "deep.ts"] }));
      writeFileSync(join(consumer, "main.ts"), doc.program);
      copyFileSync(join(ROOT, "test", "api", "consumer", "misuses.ts.txt"), join(consumer, "misuses.ts"));
      copyFileSync(join(ROOT, "test", "api", "consumer", "deep-import.ts.txt"), join(consumer, "deep.ts"));
      const checked = tsc(consumer, ["-p", "."]);
      assert.equal(checked.code, 0, `the consumer type-checks, its misuses and its deep import are errors:\n${checked.out}`);
      const pack = tmp.file("pack/main.star", doc.pack).replace(/\/main\.star$/, "");
      const config = tmp.file("config.toml", `[decisions]\nhost = "tty"\n`);
      const out = execFileSync(process.execPath, [join(consumer, "out", "main.js"), pack, join(tmp.path, "state"), config], {
        cwd: consumer,
        encoding: "utf8",
      });
      const lines = out.trim().split("\n");
      assert.match(lines[0]!, /^run \d{8}-\d{6}-[0-9a-f]{6}$/);
      // Cancelled on c's "no": a and b may or may not have landed before it, each with its label.
      const decisions = lines.filter((l) => l.startsWith("decision "));
      assert.ok(decisions.includes("decision c no"), out);
      for (const d of decisions) assert.ok(["decision a yes", "decision b yes", "decision c no"].includes(d), d);
      assert.deepEqual(lines.slice(-2), ["outcome cancelled a ticket was turned down", "shown cancelled"]);
    } finally {
      tmp.cleanup();
    }
  },
);
