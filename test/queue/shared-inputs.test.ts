// Performance: a dependency output that every instance of a mapped task reads travels
// once per run (shared-inputs.ts), not once per job. Each instance still sees the same input,
// byte for byte, as on one machine: here each writes the sha256 of its $SWITCHYARD_INPUT, and the
// records of a local run and of a run on workers must be equal.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import type { ShowJson } from "../../src/run/index.js";
import { freshDatabase, pgSkip } from "../support/postgres.js";
import { cli, lastJson, records, startWorkerProc, tempDir } from "./support.js";

// Enough elements that a copy per job would be many copies; the producer's output is over the
// 2 KB at which an output is shared (its 3,000-character note alone), whatever the count, and
// max_fanout is exactly N.
const N = 60;

function pack(): string {
  const p = join(tempDir("sy-shared-"), "pack");
  mkdirSync(p);
  writeFileSync(
    join(p, "main.star"),
    `playbook(description = "a producer every instance reads", concurrency = 16)
items = command(name = "items", run = """python3 -c 'import json; print(json.dumps({"keys": ["element-%04d" % i for i in range(${N})], "note": "x" * 3000}))' > "$SWITCHYARD_OUTPUT" """, emits = {"keys": "list", "note": "string"})
side = command(name = "side", run = """python3 -c 'import json; print(json.dumps({"blob": "y" * 4000}))' > "$SWITCHYARD_OUTPUT" """, emits = {"blob": "string"})
work = command(name = "work", depends_on = [items, side], over = items.keys, max_fanout = ${N}, emits = {"sha": "string"}, run = """printf '{"sha": "%s"}' "$(sha256sum < "$SWITCHYARD_INPUT" | cut -c1-64)" > "$SWITCHYARD_OUTPUT" """)
`,
  );
  return p;
}

test(
  "performance: outputs every instance reads go through the queue once per run; each instance's input is byte-identical to one machine's",
  pgSkip,
  async () => {
    const db = await freshDatabase();
    const p = pack();
    try {
      const localState = tempDir("sy-local-");
      const local = cli(["run", p, "--state-dir", localState, "--json"]);
      assert.equal(local.status, 0, local.stderr);
      const want = records(
        JSON.parse(cli(["show", lastJson<{ run: string }>(local.stdout).run, "--json", "--state-dir", localState]).stdout) as ShowJson,
      );
      const workers = await Promise.all([1, 2].map(() => startWorkerProc(db.url, ["--concurrency", "4"])));
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        // Every job's payload size, as graphile-worker stores it (the workers created its schema).
        await c.query(`create table public.job_sizes (key text, bytes int);
        create function public.log_job_size() returns trigger language plpgsql as $$
          begin insert into public.job_sizes values (new.key, length(new.payload::text)); return new; end $$;
        create trigger log_job_size after insert on graphile_worker._private_jobs for each row execute function public.log_job_size()`);
        const coordState = tempDir("sy-coord-");
        const dist = cli(["run", p, "--store", db.url, "--executor", "workers", "--state-dir", coordState, "--json"]);
        assert.equal(dist.status, 0, dist.stderr);
        const run = lastJson<{ run: string }>(dist.stdout).run;
        const shown = JSON.parse(cli(["show", run, "--json", "--store", db.url, "--state-dir", coordState]).stdout) as ShowJson;
        assert.deepEqual(records(shown), want);
        const shared = await c.query<{ n: number }>("select count(*)::int as n from switchyard.queue_inputs where run = $1", [run]);
        assert.equal(shared.rows[0]!.n, 2, "the list's producer and the other dependency, each stored once");
        const sizes = await c.query<{ jobs: number; largest: number }>(
          "select count(*)::int as jobs, max(bytes)::int as largest from public.job_sizes where key like $1",
          [`${run}/work/%`],
        );
        assert.equal(sizes.rows[0]!.jobs, N);
        assert.ok(sizes.rows[0]!.largest < 2048, `a work job carried ${sizes.rows[0]!.largest} bytes: the shared outputs rode along`);
      } finally {
        await c.end();
        for (const w of workers) w.proc.kill("SIGTERM");
        await Promise.all(workers.map((w) => w.exited));
      }
    } finally {
      await db.drop();
    }
  },
);
