// The package as a consumer gets it (docs/api.md, "Installing"): `npm pack` the project, install the
// tarball into a temporary consumer project, `tsc --noEmit` a consumer program against it (its
// misuses must be type errors, and a deep import must not resolve), then run it: a tiny pack with
// a TypeScript runner and provider, decisions printed as they land, cancelled from the program.
//
// Installing: the tarball is unpacked into the consumer's node_modules/switchyard exactly as npm
// would unpack it, and its dependencies (and the consumer's typescript and @types/node) are linked
// to this project's node_modules instead of being downloaded, so the test needs no network and
// costs seconds in CI. SWITCHYARD_CONSUMER_NPM_INSTALL=1 installs the tarball with a real
// `npm install` from the registry instead.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir } from "../run/helpers.js";

const ROOT = process.cwd();
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const PACK = `
items = command(name = "items", run = """echo '{"keys": ["a", "b", "c"]}' > $SWITCHYARD_OUTPUT""", emits = {"keys": "list"})
gate = route(name = "gate", depends_on = [items], over = items.keys, max_fanout = 10, min_confidence = 0.8,
             questions = {"go": noul(ask = "Work on {{key}}?", drop = ["no", "uncertain"])})
work = agent(name = "work", depends_on = [items, gate], over = items.keys, max_fanout = 10, runner = "coder",
             when = gate.go, answers = "yes", prompt = "Do {{key}}", emits = {"text": "string"})
`;

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
      writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify({ ...TSCONFIG, files: ["main.ts"] }));
      copyFileSync(join(ROOT, "test", "api", "consumer", "consumer.ts.txt"), join(consumer, "main.ts"));
      const checked = tsc(consumer, ["--noEmit", "-p", "."]);
      assert.equal(checked.code, 0, `the consumer type-checks:\n${checked.out}`);
      // A deep import is refused by the package's exports map (the @ts-expect-error holds).
      writeFileSync(join(consumer, "tsconfig.deep.json"), JSON.stringify({ ...TSCONFIG, files: ["deep.ts"] }));
      copyFileSync(join(ROOT, "test", "api", "consumer", "deep-import.ts.txt"), join(consumer, "deep.ts"));
      const deep = tsc(consumer, ["--noEmit", "-p", "tsconfig.deep.json"]);
      assert.equal(deep.code, 0, `a deep import does not resolve:\n${deep.out}`);
      // Run it: compiled by the consumer's own tsc, on a tiny pack.
      assert.equal(tsc(consumer, ["-p", "."]).code, 0);
      const pack = tmp.file("pack/main.star", PACK).replace(/\/main\.star$/, "");
      const config = tmp.file("config.toml", `[decisions]\nhost = "tty"\n`);
      const out = execFileSync(process.execPath, [join(consumer, "out", "main.js"), pack, join(tmp.path, "state"), config], {
        cwd: consumer,
        encoding: "utf8",
      });
      const lines = out.trim().split("\n");
      assert.match(lines[0]!, /^run \d{8}-/);
      assert.deepEqual(lines.filter((l) => l.startsWith("decision ")).sort(), ["decision a yes", "decision b yes", "decision c no"]);
      assert.deepEqual(lines.slice(-2), ["outcome cancelled the consumer cancelled", "shown cancelled"]);
    } finally {
      tmp.cleanup();
    }
  },
);
