// the pack snapshot copies every file except hidden folders and node_modules, and refuses a
// pack over 50 MB before copying anything.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TempDir, plan, command, runPlan, writeJson } from "./helpers.js";
import { SqliteStore } from "../../src/run/index.js";
import { snapshotPack, SnapshotError } from "../../src/run/engine/snapshot.js";

test("R-1: the snapshot holds every pack file but hidden folders and node_modules", () => {
  const dir = new TempDir("sy-snap-");
  try {
    dir.file("pack/main.star", "x = 1\n");
    dir.file("pack/lib/util.star", "y = 2\n");
    dir.file("pack/.hidden", "kept: a hidden file, not a folder\n");
    dir.file("pack/.git/config", "skipped\n");
    dir.file("pack/node_modules/m/index.js", "skipped\n");
    dir.file("pack/data/deep/rows.json", "[]\n");
    const info = snapshotPack(join(dir.path, "pack"), join(dir.path, "copy"));
    assert.equal(info.files, 4);
    assert.equal(readFileSync(join(dir.path, "copy", "lib", "util.star"), "utf8"), "y = 2\n");
    assert.ok(existsSync(join(dir.path, "copy", ".hidden")));
    assert.ok(existsSync(join(dir.path, "copy", "data", "deep", "rows.json")));
    assert.ok(!existsSync(join(dir.path, "copy", ".git")));
    assert.ok(!existsSync(join(dir.path, "copy", "node_modules")));
  } finally {
    dir.cleanup();
  }
});

test("R-1: a pack over 50 MB is an error naming the size and the largest files, and nothing is copied", () => {
  const dir = new TempDir("sy-snap-");
  try {
    dir.file("pack/main.star", "x = 1\n");
    const big = join(dir.path, "pack", "big.bin");
    writeFileSync(big, "");
    truncateSync(big, 51 * 1024 * 1024); // sparse: no 51 MB written to the disk
    assert.throws(
      () => snapshotPack(join(dir.path, "pack"), join(dir.path, "copy")),
      (e: unknown) =>
        e instanceof SnapshotError &&
        e.code === "pack-too-large" &&
        /^the pack .* holds 51\.0 MB, over the 50 MB snapshot limit \(R-1\); largest files: big\.bin \(51\.0 MB\)/.test(e.message),
    );
    assert.ok(!existsSync(join(dir.path, "copy")));
  } finally {
    dir.cleanup();
  }
});

test("R-1: a switchyard state folder inside the pack, whatever its name, is never snapshotted", async () => {
  const dir = new TempDir("sy-snap-");
  // The state folder is the pack's non-hidden "runs-here": each run would otherwise copy every
  // earlier snapshot and the live database.
  const store = new SqliteStore(join(dir.path, "pack", "runs-here"));
  try {
    dir.file("pack/main.star", "x = 1\n");
    const h = { dir, state: join(dir.path, "pack", "runs-here"), pack: join(dir.path, "pack"), store };
    const p = plan([command("hello", writeJson({ ok: true }), { emits: { ok: "bool" } })]);
    const first = await runPlan(h, p);
    const second = await runPlan(h, p);
    assert.equal(second.outcome.status, "passed");
    const info = (run: string) =>
      [...store.events(run)].find((e) => e.type === "plan_admitted")!.payload as { snapshot: { files: number; dir: string } };
    assert.equal(info(first.run).snapshot.files, 1);
    assert.equal(info(second.run).snapshot.files, 1, "the second run's snapshot holds no part of the first run");
    assert.ok(!existsSync(join(info(second.run).snapshot.dir, "runs-here")));
  } finally {
    store.close();
    dir.cleanup();
  }
});

test("R-1: with the pack folder itself as the state folder, snapshots keep the pack's files and leave out the state's", async () => {
  const dir = new TempDir("sy-snap-");
  const pack = join(dir.path, "pack");
  const store = new SqliteStore(pack);
  try {
    dir.file("pack/main.star", "x = 1\n");
    dir.file("pack/scripts/go.sh", "true\n");
    const h = { dir, state: pack, pack, store };
    const p = plan([command("hello", writeJson({ ok: true }), { emits: { ok: "bool" } })]);
    const first = await runPlan(h, p);
    const second = await runPlan(h, p);
    assert.equal(second.outcome.status, "passed");
    const info = (run: string) =>
      [...store.events(run)].find((e) => e.type === "plan_admitted")!.payload as { snapshot: { files: number; dir: string } };
    for (const run of [first.run, second.run]) {
      assert.equal(info(run).snapshot.files, 2, "main.star and scripts/go.sh, nothing of the state");
      assert.ok(existsSync(join(info(run).snapshot.dir, "scripts", "go.sh")));
      for (const entry of ["switchyard.db", "switchyard.db-wal", "runs"])
        assert.ok(!existsSync(join(info(run).snapshot.dir, entry)), entry);
    }
  } finally {
    store.close();
    dir.cleanup();
  }
});
