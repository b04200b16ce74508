// Labs' pairs in PostgreSQL: two machines (two state folders) run the triage
// example — whose `triage.judge.supported` runs in shadow — on one PostgreSQL store; their pairs
// land in one lab in the store, not in either folder, and `lab list` / `lab harvest` from a third
// state folder see every pair: twice the shadow pairs one run of the example writes (16: one per
// ticket that reaches `judge`, as a single-machine run writes them to its pairs.jsonl).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TempDir } from "../run/helpers.js";
import { freshPgUrl, testPg } from "../support/test-store.js";

const skip = testPg ? false : "SWITCHYARD_TEST_PG is not set (no PostgreSQL server for the tests)";
const BIN = resolve("bin/switchyard.js");
const PACK = resolve("examples/cve-triage");
const CONFIG = join(PACK, "switchyard.toml");

function sy(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Lines of every pairs.jsonl under a state folder's labs/. */
function folderPairs(state: string): string[] {
  const labs = join(state, "labs");
  if (!existsSync(labs)) return [];
  return readdirSync(labs)
    .filter((n) => n.startsWith("lab-"))
    .flatMap((n) => {
      const f = join(labs, n, "pairs.jsonl");
      return existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : [];
    });
}

test(
  "on a PostgreSQL store the lab and its pairs are shared — two machines' shadow pairs in one lab, read from a third",
  { skip, timeout: 180000 },
  () => {
    const dir = new TempDir("sy-lab-shared-");
    try {
      const env = { ...process.env, SWITCHYARD_STORE: "", XDG_CONFIG_HOME: join(dir.path, "xdg") };
      // The shadow type's pairs are one per element that reaches it, the same in every run: the
      // example's decider and host are deterministic, and 16 of its 40 tickets reach `judge` (a
      // single-machine run of the example writes 16 such pairs to its pairs.jsonl; the audit pairs
      // of the turned-on type are a sample drawn by run id: their number differs).
      const shadow = (lines: string[]) => lines.filter((l) => (JSON.parse(l) as { type: string }).type === "triage.judge.supported");
      const perRun = 16;

      const url = freshPgUrl();
      for (const machine of ["machine-a", "machine-b"]) {
        const r = sy(["run", PACK, "--config", CONFIG, "--store", url, "--state-dir", join(dir.path, machine), "-q"], env);
        assert.ok(r.code === 0 || r.code === 1, r.err);
        assert.deepEqual(folderPairs(join(dir.path, machine)), [], `${machine} kept no pairs of its own`);
      }

      const third = join(dir.path, "machine-c");
      const list = sy(["lab", "list", "--json", "--store", url, "--state-dir", third], env);
      assert.equal(list.code, 0, list.err);
      const labs = JSON.parse(list.out) as { id: string; current: boolean }[];
      assert.equal(labs.length, 1, "both machines used one lab");
      assert.equal(labs[0]!.current, true);
      const pairs = folderPairs(third);
      assert.equal(shadow(pairs).length, 2 * perRun, "every shadow pair of both runs, once");
      assert.equal(new Set(pairs).size, pairs.length, "no pair twice");
      assert.ok(pairs.every((l) => (JSON.parse(l) as { lab: string }).lab === labs[0]!.id));
      assert.equal(new Set(pairs.map((l) => (JSON.parse(l) as { run: string }).run)).size, 2);

      const harvest = sy(["lab", "harvest", "--json", "--all", "--store", url, "--state-dir", third], env);
      assert.equal(harvest.code, 0, harvest.err);
      assert.equal(
        (JSON.parse(harvest.out) as { overall: { pairs: number } }).overall.pairs,
        2 * perRun,
        "the harvest counts every shadow pair",
      );

      // `lab new` on the store makes the next pairs go to a new lab, for every machine.
      const made = sy(["lab", "new", "--note", "next model", "--store", url, "--state-dir", join(dir.path, "machine-a")], env);
      assert.equal(made.code, 0, made.err);
      const again = JSON.parse(sy(["lab", "list", "--json", "--store", url, "--state-dir", third], env).out) as {
        id: string;
        current: boolean;
      }[];
      assert.deepEqual(
        again.map((l) => l.current),
        [false, true],
      );
    } finally {
      dir.cleanup();
    }
  },
);
