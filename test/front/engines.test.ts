// The Node versions switchyard declares (package.json `engines`) are ones every
// dependency declares it supports, so `npm install -g` never warns (openai 7 declares Node >= 22:
// we use openai 6, see src/decide/providers/openai.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";

const ROOT = process.cwd();
const pkg = (dir: string) =>
  JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    engines?: { node?: string };
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

test("install: every dependency's declared engines accept the oldest Node switchyard declares", () => {
  const own = pkg(ROOT);
  const range = own.engines!.node!;
  const oldest = semver.minVersion(range)!.version;
  assert.ok(
    semver.satisfies(process.version, range),
    `the Node running the tests (${process.version}) is one switchyard declares (${range})`,
  );
  const names = [...Object.keys(own.dependencies ?? {}), ...Object.keys(own.devDependencies ?? {})];
  assert.ok(names.includes("openai"));
  const refused: string[] = [];
  for (const name of names) {
    const theirs = pkg(join(ROOT, "node_modules", name)).engines?.node;
    if (theirs && !semver.satisfies(oldest, theirs)) refused.push(`${name} declares node ${theirs}`);
  }
  assert.deepEqual(refused, [], `dependencies refuse Node ${oldest}`);
});
