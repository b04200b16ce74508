// R-4 crash safety: a 200-element run killed with SIGKILL at random moments, resumed each time,
// ends with the same records as an uninterrupted run, and no evaluate or route instance whose
// finish was recorded ever runs again.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { TempDir } from "./helpers.js";
import { openStore } from "../../src/run/index.js";
import { testStoreSpec } from "../support/test-store.js";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "crash-child.js");

/** Each state folder's store: its own switchyard.db, or a fresh PostgreSQL schema on the PostgreSQL pass. */
const stores = new Map<string, string | undefined>();
const storeOf = (state: string) => {
  if (!stores.has(state)) stores.set(state, testStoreSpec());
  return stores.get(state);
};

function start(
  state: string,
  log: string,
  which: string,
): { child: ReturnType<typeof spawn>; run: Promise<string>; exit: Promise<number | null> } {
  const spec = storeOf(state);
  const child = spawn(process.execPath, [CHILD, state, log, which, "20"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, CRASH_STORE: spec ?? "" },
  });
  let out = "";
  const run = new Promise<string>((resolve) => {
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.on("exit", () => resolve(out.split("\n")[0] ?? ""));
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, run, exit };
}

function records(state: string, run: string) {
  const store = openStore(storeOf(state), state);
  try {
    return store.instances(run).map((i) => ({ task: i.task, key: i.key, status: i.status, output: i.output, label: i.label }));
  } finally {
    store.close();
  }
}

/** Keys whose finish is recorded: score instances that passed, gate decisions recorded. */
function finished(state: string, run: string): { score: Set<string>; gate: Set<string> } {
  const store = openStore(storeOf(state), state);
  try {
    const score = new Set<string>();
    const gate = new Set<string>();
    for (const e of store.events(run)) {
      if (e.task === "score" && e.type === "instance_finished") score.add(e.key!);
      if (e.task === "gate" && e.type === "decision_recorded") {
        assert.ok(!gate.has(e.key!), `gate[${e.key}] recorded twice`);
        gate.add(e.key!);
      }
    }
    return { score, gate };
  } finally {
    store.close();
  }
}

const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

test(
  "R-4: kill -9 at random moments (10+ times) and resume: same records as an uninterrupted run, no recorded evaluate/route ran twice",
  { timeout: 600_000 },
  async () => {
    const dir = new TempDir("sy-crash-");
    try {
      // The reference: one uninterrupted run.
      const refState = join(dir.path, "ref", "state");
      const ref = start(refState, join(dir.path, "ref.log"), "new");
      const refRun = await ref.run;
      assert.equal(await ref.exit, 0);
      const expected = records(refState, refRun);
      assert.equal(expected.filter((r) => r.task === "score").length, 200);

      const state = join(dir.path, "crash", "state");
      const log = join(dir.path, "crash.log");
      let kills = 0;
      let run = "";
      let which = "new";
      let seed = 12345;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let round = 0; round < 40 && kills < 10; round++) {
        const before = run ? finished(state, run) : { score: new Set<string>(), gate: new Set<string>() };
        const seen = lines(log).length;
        const c = start(state, log, which);
        run = await c.run;
        which = run;
        await new Promise((r) => setTimeout(r, 80 + random() * 250));
        const alive = c.child.exitCode === null;
        if (alive) {
          c.child.kill("SIGKILL");
          kills++;
        }
        await c.exit;
        for (const line of lines(log).slice(seen)) {
          const [task, key] = line.split(" ") as [string, string];
          if (task === "score") assert.ok(!before.score.has(key), `score[${key}] ran again after its finish was recorded`);
          if (task === "gate") assert.ok(!before.gate.has(key), `gate[${key}] was asked again after its decision was recorded`);
        }
        if (!alive) break;
      }
      assert.ok(kills >= 10, `only ${kills} kills landed`);
      const last = start(state, log, run);
      await last.run;
      assert.equal(await last.exit, 0);
      finished(state, run); // asserts no decision recorded twice
      assert.deepEqual(records(state, run), expected);
    } finally {
      dir.cleanup();
    }
  },
);
