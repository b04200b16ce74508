// Semver for the library API (docs/api.md, "Versioning"): the package's exports, with each one's
// kind and signature or members, are listed in api/surface.txt. Adding, removing or changing an
// export without updating that file (node scripts/api-surface.mjs --write) fails here, so every
// change to the surface is a reviewed line in a commit.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface SurfaceScript {
  apiSurface(): string;
  committedSurface(): string;
}

const script = (): Promise<SurfaceScript> =>
  import(pathToFileURL(join(process.cwd(), "scripts", "api-surface.mjs")).href) as Promise<SurfaceScript>;

test("the library API's exports are exactly the ones api/surface.txt lists, with the same signatures", async () => {
  const { apiSurface, committedSurface } = await script();
  const now = apiSurface().split("\n");
  const committed = committedSurface().split("\n");
  const added = now.filter((l) => !committed.includes(l));
  const removed = committed.filter((l) => !now.includes(l));
  assert.deepEqual(
    { added, removed },
    { added: [], removed: [] },
    "the API surface changed: if on purpose, run `node scripts/api-surface.mjs --write` and commit api/surface.txt (a removal or a changed signature is a breaking change: a major version)",
  );
});

test("the surface lists the entry points docs/api.md documents (a known answer, written by hand)", async () => {
  const { committedSurface } = await script();
  const names = committedSurface()
    .split("\n")
    .filter((l) => /^(function|class) /.test(l))
    .map((l) => l.split(/[ (<]/)[1]);
  for (const name of ["check", "compile", "openState", "Run", "State"]) assert.ok(names.includes(name), `${name} is exported`);
});
