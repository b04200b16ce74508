// H-1: the lab stays true across crashes. A shadow-mode run (a real System One server,
// the scripted host) is killed with SIGKILL at random moments and resumed each time; a pair
// written before its decision was committed is written again when the element is asked again on
// resume. Harvest counts each decision once (its dedupe drops the second pair of the same state).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startSystemOneServer, systemOneProviderToml } from "../support/systemone-server.js";
import { E2E, tickets } from "../e2e/support/harness.js";

const KEYS = Array.from({ length: 12 }, (_, i) => `T${i + 1}`);
const KEY_ENV = "E2E_SYSTEMONE_KEY";

function pairBytes(state: string): number {
  const labs = join(state, "labs");
  if (!existsSync(labs)) return 0;
  let n = 0;
  for (const lab of readdirSync(labs).filter((f) => f !== "current")) {
    const file = join(labs, lab, "pairs.jsonl");
    if (existsSync(file)) n += statSync(file).size;
  }
  return n;
}

function pairLines(state: string): Array<{ run: string; task: string; key: string; question: { id: string } }> {
  const labs = join(state, "labs");
  if (!existsSync(labs)) return [];
  const out = [];
  for (const lab of readdirSync(labs).filter((f) => f !== "current")) {
    const file = join(labs, lab, "pairs.jsonl");
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const at = line.lastIndexOf('{"lab":');
      if (at < 0) continue;
      try {
        out.push(JSON.parse(line.slice(at)));
      } catch {
        // a torn last line
      }
    }
  }
  return out;
}

test("shadow pairs after kill -9 and resume: harvest counts each decision once", { timeout: 180000 }, async () => {
  const server = await startSystemOneServer({ latencyMs: 40 });
  const e = new E2E(tickets(KEYS));
  e.host({});
  try {
    const config = e.config(
      `${systemOneProviderToml(server.url, KEY_ENV, `models = ["jev-1"]\nmax_retries = 1\ntimeout = "5s"\n`)}\n[decisions]\nhost = "default"\ndefault = "shadow:s1/jev-1"\n`,
    );
    const env = { [KEY_ENV]: "sk-lab-crash-0123456789" };
    let kills = 0;
    let args = ["run", e.pack, "--config", config, "--quiet"];
    for (let round = 0; round < 30 && kills < 6; round++) {
      const c = e.start(args, env);
      args = ["resume", "latest", "--quiet"];
      // Killed the moment a new pair is written: before its decision is committed (the engine
      // commits decisions within ~15 ms), so that element is asked again on resume. Looked for
      // every millisecond (a timer, not a spin of this process, which would take a core from the
      // CLI it waits for).
      const before = pairBytes(e.state);
      const t0 = Date.now();
      while (c.child.exitCode === null && pairBytes(e.state) <= before && Date.now() - t0 < 60000)
        await new Promise((r) => setTimeout(r, 1));
      if (c.child.exitCode !== null) {
        const r = await c.done;
        assert.equal(r.code, 0, `${r.out}\n${r.err}`);
        break;
      }
      c.child.kill("SIGKILL");
      await c.done;
      kills++;
    }
    const last = await e.sy(["resume", "latest", "--quiet"], env);
    assert.equal(last.code, 0, last.err + last.out);
    const show = await e.show();

    // The decisions the run recorded: one per element and question of each model-decided route.
    const decided = new Set<string>();
    for (const [task, t] of Object.entries(show.tasks)) {
      for (const [key, i] of Object.entries(t.instances ?? {})) {
        if (i.status !== "passed" || !i.output || typeof i.output !== "object") continue;
        for (const [q, d] of Object.entries(i.output as Record<string, { mode?: string }>))
          if (d && d.mode === "shadow") decided.add(`${task}[${key}].${q}`);
      }
    }
    assert.ok(decided.size >= KEYS.length, `decisions recorded: ${decided.size}`);
    const lines = pairLines(e.state);
    const distinct = new Set(lines.map((p) => `${p.run}/${p.task}[${p.key}].${p.question.id}`));
    assert.equal(distinct.size, decided.size, "every recorded decision has a pair");

    const h = await e.here(["lab", "harvest", "--json"]);
    assert.equal(h.code, 0, h.err);
    const report = JSON.parse(h.out) as { overall: { pairs: number }; duplicates: number };
    assert.equal(
      report.overall.pairs,
      decided.size,
      `harvest counts each decision once (${lines.length} lines for ${decided.size} decisions after ${kills} kills)`,
    );
    const dupes = lines.length - distinct.size;
    assert.ok(dupes > 0, "the kills left pairs of decisions that were asked again");
    assert.equal(report.duplicates, dupes);
    // Each pair says which attempt of its instance asked.
    assert.ok(lines.every((p) => typeof (p as { attempt?: unknown }).attempt === "number"));
  } finally {
    await server.close();
    e.cleanup();
  }
});
