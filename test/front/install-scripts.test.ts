// npm 12 runs a dependency's install script only when package.json's `allowScripts` allows it
// (npm 11.16+ warns about every one not covered). switchyard's allowScripts covers exactly the
// dependencies that have install scripts, each reviewed: better-sqlite3's builds the native SQLite
// driver (needed); esbuild's only checks its platform binary and swaps its `bin` shim for it (not
// needed: scripts/build-ui.mjs uses esbuild's JS API, which finds the binary in @esbuild/<platform>).
//
// npm pins an entry (`pkg@1.2.3`) only when the lockfile records where the package came from, and
// this lockfile records no `resolved` URLs, so the entries are by name. The pin is kept here
// instead: a new version of either package fails this test until its script is reviewed again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = process.cwd();
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Record<string, unknown>;

/** The install scripts reviewed, by package: the version and scripts read, and the verdict. */
const REVIEWED: Record<string, { version: string; scripts: Record<string, string>; allowed: boolean }> = {
  "better-sqlite3": { version: "12.11.1", scripts: { install: "prebuild-install || node-gyp rebuild --release" }, allowed: true },
  esbuild: { version: "0.28.2", scripts: { postinstall: "node install.js" }, allowed: false },
};
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

test("allowScripts covers exactly the dependencies with install scripts, at the versions and scripts reviewed", () => {
  const allow = json("package.json").allowScripts as Record<string, boolean>;
  const lock = json("package-lock.json").packages as Record<string, { version: string; hasInstallScript?: boolean }>;
  const withScripts = Object.entries(lock)
    .filter(([path, p]) => path !== "" && p.hasInstallScript)
    .map(([path, p]) => ({ name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length), version: p.version }));
  assert.deepEqual(
    withScripts.map((p) => p.name).sort(),
    Object.keys(REVIEWED).sort(),
    "the lockfile's packages with install scripts are the reviewed ones",
  );
  assert.deepEqual(
    Object.fromEntries(Object.entries(allow).sort()),
    Object.fromEntries(
      Object.entries(REVIEWED)
        .map(([name, r]) => [name, r.allowed])
        .sort(),
    ),
    "allowScripts says each verdict, by name",
  );
  for (const { name, version } of withScripts) {
    assert.equal(version, REVIEWED[name]!.version, `${name} changed version: review its install script, then update REVIEWED`);
    const scripts = (json(join("node_modules", name, "package.json")).scripts ?? {}) as Record<string, string>;
    const install = Object.fromEntries(Object.entries(scripts).filter(([k]) => INSTALL_SCRIPTS.includes(k)));
    assert.deepEqual(install, REVIEWED[name]!.scripts, `${name}'s install scripts are the ones reviewed`);
  }
});
