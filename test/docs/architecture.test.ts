// docs/architecture.md is drawn from the tree: every folder or file of src/ it names exists, and
// every room of src/run (a folder with its own door) is named and described on the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";

const page = readFileSync("docs/architecture.md", "utf8");

/** Every `src/…` path the page names: folders end in `/`, files in an extension. */
function namedPaths(text: string): string[] {
  return [...new Set([...text.matchAll(/\bsrc\/[\w./-]*[\w/]/g)].map((m) => m[0]))].sort();
}

test("every src/ folder and file docs/architecture.md names exists", () => {
  const named = namedPaths(page);
  assert.ok(named.length > 30, `found ${named.length} paths`);
  const missing = named.filter((p) => !existsSync(p) || (p.endsWith("/") && !statSync(p).isDirectory()));
  assert.deepEqual(missing, []);
});

test("the path finder sees a folder that is not there (src/run/scheduler/ is no room)", () => {
  const named = namedPaths("the scheduler lives in `src/run/scheduler/` and `src/run/engine/engine.ts`.");
  assert.deepEqual(named, ["src/run/engine/engine.ts", "src/run/scheduler/"]);
  assert.equal(existsSync("src/run/scheduler/"), false);
});

test("every room of src/run is on docs/architecture.md: in the table of what belongs where, and in the picture", () => {
  const rooms = readdirSync("src/run", { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  assert.ok(rooms.length >= 7, rooms.join(", "));
  for (const room of rooms) {
    assert.ok(existsSync(`src/run/${room}/index.ts`), `src/run/${room}/ has no index.ts door`);
    assert.match(page, new RegExp(`\\| \`src/run/${room}/\` \\| .{20,}\\|`), `no table row for src/run/${room}/`);
    assert.match(page, new RegExp(`^ {2}${room}/ +index\\.ts `, "m"), `src/run/${room}/ is not in the picture`);
  }
});
