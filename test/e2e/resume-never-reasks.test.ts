// R-4, end to end: the appendix playbook run by the CLI, killed with SIGKILL twice after
// some decisions were recorded (the state DB is polled), resumed each time with `switchyard
// resume`. The System One server sees each element at most once per route, plus at most one
// request per kill: the one in flight when the process died (asked, maybe answered, its record
// not committed — see docs/runs.md, "Resume guarantees"). Whatever was recorded before a kill is
// never asked again, and the finished log holds exactly one decision per element and route.

import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startSystemOneServer } from "../support/systemone-server.js";
import { E2E, systemOneCounts, tickets, until } from "./support/harness.js";

const KEYS = Array.from({ length: 40 }, (_, i) => `K${String(i).padStart(2, "0")}`);

function recorded(state: string): string[] {
  const path = join(state, "switchyard.db");
  if (!existsSync(path)) return [];
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("SELECT task, key FROM events WHERE type = 'decision_recorded' AND task IN ('match', 'gate', 'judge')")
      .all() as { task: string; key: string }[];
    return rows.map((r) => `${r.task === "match" ? "package" : r.task === "gate" ? "depth" : "supported"}:${r.key}`);
  } catch {
    return []; // the schema is not there yet
  } finally {
    db.close();
  }
}

test(
  "R-4: kill -9 twice after decisions were recorded, resume: no recorded decision is asked again; at most one re-ask per kill",
  { timeout: 90000 },
  async () => {
    // Every element matches p1 and gates `settled` (dropped): two decisions per element, no agent turn.
    // One decision request at a time, each taking ~15 ms at the server, so the kills land mid-run
    // and at most one request is in flight at each kill.
    const server = await startSystemOneServer({ latencyMs: 15 });
    const e = new E2E(tickets(KEYS));
    try {
      const config = e.config(
        `[providers.s1]\nkind = "systemone"\nvendor = "typesafe"\nbase_url = "${server.url}"\nmodels = ["jev-1"]\nmax_retries = 0\n\n[decisions]\nhost = "default"\ndefault = "s1/jev-1"\n`,
      );
      const flags = ["--config", config, "--decision-concurrency", "1"];
      const kills: { before: Set<string>; requestsAtKill: number }[] = [];

      const killAfter = async (args: string[], n: number) => {
        const { child, done } = e.start(args);
        await until(`${n} recorded decisions`, () => recorded(e.state).length >= n || child.exitCode !== null);
        assert.equal(child.exitCode, null, "the run was still going when killed");
        child.kill("SIGKILL");
        const r = await done;
        assert.equal(r.signal, "SIGKILL");
        kills.push({ before: new Set(recorded(e.state)), requestsAtKill: server.requests.length });
      };

      await killAfter(["run", e.pack, ...flags], 8);
      await killAfter(["resume", "latest", ...flags], 40);
      const last = await e.sy(["resume", "latest", ...flags]);
      assert.equal(last.code, 0, `the resumed run passes\n${last.out}\n${last.err}`);

      // Whatever a kill left recorded is never asked again afterwards.
      for (const [i, k] of kills.entries()) {
        assert.ok(k.before.size >= (i === 0 ? 8 : 40), `kill ${i + 1} landed after its decisions were recorded`);
        const later = systemOneCounts(server.requests.slice(k.requestsAtKill));
        for (const asked of Object.keys(later))
          assert.ok(!k.before.has(asked), `${asked} was recorded before kill ${i + 1} and asked again`);
      }
      // Each element at most once per route, plus at most one per kill.
      const counts = systemOneCounts(server.requests);
      const expected = KEYS.flatMap((k) => [`package:${k}`, `depth:${k}`]).sort();
      assert.deepEqual(Object.keys(counts).sort(), expected);
      const extra = Object.values(counts).reduce((a, b) => a + b, 0) - expected.length;
      assert.ok(
        extra <= kills.length,
        `${extra} re-asked requests for ${kills.length} kills: ${JSON.stringify(Object.entries(counts).filter(([, c]) => c > 1))}`,
      );
      assert.ok(Object.values(counts).every((c) => c <= 1 + kills.length));

      // One record per element and route in the log; the records are the scripted ones.
      const final = recorded(e.state).sort();
      assert.deepEqual(final, expected);
      const show = await e.show();
      assert.equal(show.status, "passed");
      for (const k of KEYS) assert.equal(show.tasks.quick!.instances![k]!.label, "settled");
      assert.deepEqual(e.hostCalls(), []);
    } finally {
      await server.close();
      e.cleanup();
    }
  },
);
