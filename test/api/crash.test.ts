// R-4 for runners and providers given as code, across a real crash: a program using the library
// API is killed with SIGKILL while one agent turn is running and two are recorded; resuming the
// run from another process runs only the interrupted turn and asks no decision again.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TempDir } from "../run/helpers.js";
import { PACK } from "./support/pack.js";
import { until } from "../support/assertions.js";
import { openState, type AgentFunction, type DecisionProvider } from "../../src/api/index.js";

/** The work instances whose passed turn is committed to the state folder's database. */
function committedTurns(stateDir: string): string[] {
  const file = join(stateDir, "switchyard.db");
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("SELECT key FROM events WHERE type = 'instance_finished' AND task = 'work' AND payload LIKE '%\"passed\"%'")
      .all() as {
      key: string;
    }[];
    return rows.map((r) => r.key).sort();
  } catch {
    return []; // the schema is not there yet
  } finally {
    db.close();
  }
}

test(
  "R-4: a program running code runners is killed with SIGKILL; resume runs only the interrupted turn and asks nothing again",
  { timeout: 120_000 },
  async () => {
    const dir = new TempDir("sy-api-crash-");
    try {
      const pack = join(dir.path, "pack");
      dir.file("pack/main.star", PACK);
      const config = dir.file("config.toml", `[decisions]\nhost = "tty"\n`);
      const stateDir = join(dir.path, "state");
      const log = join(dir.path, "calls.log");
      const child = spawn(process.execPath, [join("dist", "test", "api", "support", "crash-child.js"), pack, stateDir, config, log], {
        stdio: "ignore",
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      const calls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
      await until("b's turn running and the other two recorded", () => calls().includes("turn b") && committedTurns(stateDir).length === 2);
      child.kill("SIGKILL");
      assert.equal(await exited, "SIGKILL");
      assert.deepEqual(committedTurns(stateDir), ["a", "c"]);
      assert.deepEqual(
        calls()
          .filter((l) => l.startsWith("asked"))
          .sort(),
        ["asked a", "asked b", "asked c"],
      );

      const ran: string[] = [];
      const asked: string[] = [];
      const coder: AgentFunction = async (turn) => (ran.push(turn.key ?? ""), { output: { text: "again" } });
      const mine: DecisionProvider = {
        async decide(request) {
          asked.push(request.key ?? "");
          return { answers: {} };
        },
      };
      const state = openState({ stateDir });
      try {
        const [id] = state.runs().map((r) => r.run);
        const run = await state.resume(id!, { config, decisions: { default: "mine/m1" }, providers: { mine }, runners: { coder } });
        assert.equal((await run.done).status, "passed");
        assert.deepEqual(ran, ["b"]);
        assert.deepEqual(asked, []);
        const work = state.show(id!).tasks.work!.instances!;
        assert.deepEqual(
          Object.entries(work).map(([k, i]) => [k, i.status]),
          [
            ["a", "passed"],
            ["b", "passed"],
            ["c", "passed"],
          ],
        );
      } finally {
        state.close();
      }
    } finally {
      dir.cleanup();
    }
  },
);
