// What a short command loads: `--version` and `check` are typed often and should cost little more
// than Node's own start, so each loads only the modules it uses (src/cli/main.ts, common.ts,
// usage-codes.ts). A run loads the decision layer's router only for a playbook with a
// model-decided route (src/decide/deferred-judge.ts). The modules are recorded by a module-loading
// hook in the child process.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allCodes } from "../../src/cli/codes.js";
import { USAGE_CODES } from "../../src/cli/usage-codes.js";

const BIN = join(process.cwd(), "bin", "switchyard.js");
const EXAMPLE = join(process.cwd(), "examples", "cve-triage", "triage.star");

/** The files `switchyard ARGS` loads as ES modules, its exit status. */
function loaded(args: string[], cwd?: string): { modules: string[]; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), "sy-modules-"));
  try {
    const out = join(dir, "modules.txt");
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(${JSON.stringify(out)}, url + "\\n");
  return next(url, context);
}
`,
    );
    writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`);
    const r = spawnSync(process.execPath, ["--import", join(dir, "register.mjs"), BIN, ...args], {
      cwd: cwd ?? dir,
      encoding: "utf8",
    });
    const modules = existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean) : [];
    return { modules, status: r.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const heavy = (modules: string[]) =>
  modules.filter((m) => /\/dist\/src\/(run|ui|lab\/store|decide\/router)|better-sqlite3|node_modules\/pg\//.test(m));

test("`switchyard --version` loads the CLI's entry alone, not the argument parser or any command", () => {
  const { modules, status } = loaded(["--version"]);
  assert.equal(status, 0);
  assert.ok(
    modules.some((m) => m.endsWith("/dist/src/cli/main.js")),
    modules.join("\n"),
  );
  assert.deepEqual(
    modules.filter((m) => /commander|\/dist\/src\/(?!cli\/(main|exit-status|version|closed-output)\.js)/.test(m)),
    [],
  );
});

test("`switchyard check` loads the language and the plan, not the run engine, the store, the lab or the decision layer's router", () => {
  const ok = loaded(["check", EXAMPLE]);
  assert.equal(ok.status, 0);
  assert.ok(
    ok.modules.some((m) => m.endsWith("/dist/src/plan/compile.js")),
    "it compiles",
  );
  assert.deepEqual(heavy(ok.modules), []);
  // A playbook with a mistake: the diagnostics and their exit status need no more.
  const dir = mkdtempSync(join(tmpdir(), "sy-modules-pack-"));
  try {
    writeFileSync(join(dir, "bad.star"), 'command(name = "a", run = "true", emits = {"n": "numbr"})\n');
    const bad = loaded(["check", join(dir, "bad.star")]);
    assert.equal(bad.status, 1);
    assert.deepEqual(heavy(bad.modules), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the usage codes a compile's exit status reads are exactly those every layer's catalog marks `usage`", () => {
  const every = new Set(allCodes().flatMap((e) => (e.usage ? [e.code] : [])));
  assert.ok(every.size > 0);
  assert.deepEqual([...USAGE_CODES].sort(), [...every].sort());
});

/** The decision layer's router and what only it uses: the routing, the providers, the HTTP client. */
const router = (modules: string[]) =>
  modules.filter((m) => /\/dist\/src\/decide\/(router|routing\/|providers\/(?!terminal-turns)|http\.js|systemone)/.test(m));

test("a run whose routes are all output-decided does not load the decision layer's router; one with a model-decided route does", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-modules-route-"));
  try {
    const head = `def prepare(input):
    return {"members": ["a", "b", "c"], "lanes": {"a": {"lane": "left"}, "b": {"lane": "right"}, "c": {"lane": "left"}}}

prep = evaluate(name = "prepare", fn = prepare, emits = {"members": "list", "lanes": "object"})
`;
    const gate = (how: string, drop: string) =>
      `gate = route(name = "gate", depends_on = [prep], over = prep.members, max_fanout = 3, ${how}
             questions = {"lane": choice(ask = "Which step?", options = {"left": "the left step", "right": "the right step"}${drop})})
done = command(name = "done", depends_on = [gate], over = prep.members, max_fanout = 3, when = gate.lane, answers = ["left", "right"], run = "true")
`;
    writeFileSync(join(dir, "output.star"), head + gate(`decide = "output", source = prep.lanes,`, ""));
    writeFileSync(join(dir, "model.star"), head + gate("", `, drop = ["uncertain"]`));
    const output = loaded(["run", join(dir, "output.star"), "--state-dir", join(dir, "state"), "--quiet"]);
    assert.equal(output.status, 0);
    assert.ok(
      output.modules.some((m) => m.endsWith("/dist/src/run/engine/engine.js")),
      "it ran",
    );
    assert.deepEqual(router(output.modules), []);
    // The model-decided route needs the router for its preflight, which refuses here: the host is the
    // terminal (no machine config) and the test has none.
    const model = loaded(["run", join(dir, "model.star"), "--state-dir", join(dir, "state"), "--quiet"]);
    assert.equal(model.status, 2);
    assert.ok(
      model.modules.some((m) => m.endsWith("/dist/src/decide/router.js")),
      model.modules.join("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
