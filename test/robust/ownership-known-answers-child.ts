// Asking the ownership checks from a child process: as another user, or on a machine without
// /proc. The child loads the compiled checks, computes an answer and prints it as JSON, with the
// mutants it reached. Under StrykerJS the child inherits the environment that names the active
// mutant, so the mutant is switched on in the child too; but Stryker learns which test file reaches
// which mutant from the test's own process only, so the mutants the child reached are added to this
// process's count: without that, a mutant only a child reaches is reported as not covered and never
// run against the test that would kill it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const modules = {
  store: new URL("../../src/run/store/index.js", import.meta.url).href,
  process: new URL("../../src/run/process/index.js", import.meta.url).href,
};

interface StrykerCoverage {
  mutantCoverage?: { static: Record<string, number>; perTest: Record<string, Record<string, number>> };
}

/**
 * The value of `expression` (JavaScript, awaited) in a child Node started through `launcher` (a
 * command that ends by running its arguments, e.g. `unshare … sh -c 'mount …; exec "$@"' sh`).
 * The expression sees `store` and `proc` (the doors of src/run/store and src/run/process); `setup`
 * runs before it, after the modules are loaded (e.g. to become another user).
 */
export function answerInChild(opts: { launcher?: string[]; setup?: string; expression: string }): unknown {
  const code = [
    `const store = await import(${JSON.stringify(modules.store)});`,
    `const proc = await import(${JSON.stringify(modules.process)});`,
    opts.setup ?? "",
    `const answer = await (${opts.expression});`,
    `const reached = globalThis.__stryker__?.mutantCoverage?.static ?? {};`,
    `process.stdout.write(JSON.stringify({ answer, reached }));`,
  ].join("\n");
  const [command, ...args] = [...(opts.launcher ?? []), process.execPath, "--input-type=module", "-e", code];
  const r = spawnSync(command!, args, { encoding: "utf8" });
  assert.equal(r.status, 0, `the child failed: ${r.stderr}`);
  const { answer, reached } = JSON.parse(r.stdout) as { answer: unknown; reached: Record<string, number> };
  const ns = (globalThis as { __stryker__?: StrykerCoverage }).__stryker__;
  if (ns) {
    const seen = (ns.mutantCoverage ??= { static: {}, perTest: {} }).static;
    for (const [id, n] of Object.entries(reached)) seen[id] = (seen[id] ?? 0) + n;
  }
  return answer;
}
