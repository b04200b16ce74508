import pg from "pg";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness, plan, command, mapped, ref, writeJson } from "../run/helpers.js";
import { admitRun, RunEngine, showRun } from "../../src/run/index.js";
import { QueueExecutor } from "../../src/run/queue/queue-executor.js";
import { startWorker } from "../../src/run/queue/worker.js";
import { freshDatabase } from "../support/postgres.js";

const db = await freshDatabase();
const h = harness();
const p = pg.Pool ? new pg.Pool({ connectionString: db.url }) : null!;
let chain: Promise<unknown> = Promise.resolve();
const commits = {
  addToNextCommit(st: { text: string; values?: unknown[] }) {
    chain = chain.then(() => p.query(st.text, st.values)).catch((e) => console.error("commit", e.message));
  },
  flush() {},
};
const N = Number(process.env.N ?? 50);
const keys = Array.from({ length: N }, (_, i) => `k${i}`);
const pl = plan(
  [
    command("list", writeJson({ keys }), { emits: { keys: "list" } }),
    command("each", `sleep \${SLEEP:-0}; printf '{"k":"%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT"`, { depends_on: ["list"], ...mapped(ref("list", "keys")), emits: { k: "string" } }),
  ],
  { concurrency: 16 },
);
const run = admitRun(h.store, { plan: pl, packDir: h.pack, sourcePath: h.pack });
const ex = new QueueExecutor({ connectionString: db.url, schema: "switchyard", run, commits });
const engine = new RunEngine({ store: h.store, run, resume: false, executor: ex });
await ex.open(engine.plan, engine.repository);
const workers = await Promise.all(
  [1, 2].map((i) =>
    startWorker({
      connectionString: db.url,
      schema: "switchyard",
      stateDir: mkdtempSync(join(tmpdir(), "sy-w")),
      concurrency: 8,
      tags: [],
      packs: async (_r, dest) => cpSync(engine.packDirectory, dest, { recursive: true }),
    }),
  ),
);
const t0 = Date.now();
if (process.env.CANCEL_MS) setTimeout(() => engine.cancel("test"), Number(process.env.CANCEL_MS));
const out = await engine.execute();
console.log(out, Date.now() - t0, "ms", (N / ((Date.now() - t0) / 1000)).toFixed(0), "/s");
const show = showRun(h.store, run)!;
console.log(Object.values(show.tasks.each!.instances ?? {}).filter((i) => i.status === "passed").length, JSON.stringify(show.tasks).slice(0, 600));
const st = await p.query("select kind, extract(epoch from created)*1000 as t, key from switchyard.inbox order by id");
const rows = st.rows as { kind: string; t: number; key: string }[];
const t00 = rows[0]!.t;
console.log(rows.slice(0, 60).map((r) => `${r.kind[0]}${r.key}@${Math.round(r.t - t00)}`).join(" "));
const jobs = await p.query("select count(*) from graphile_worker.jobs");
console.log("jobs left", jobs.rows);
await ex.close();
await Promise.all(workers.map((w) => w.drain()));
await p.end();
await db.drop();
