import pg from "pg";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plan, command, mapped, ref, writeJson } from "../run/helpers.js";
import { admitRun, RunEngine, showRun, Store } from "../../src/run/index.js";
import { QueueExecutor } from "../../src/run/queue/queue-executor.js";
import { startWorker } from "../../src/run/queue/worker.js";

const url = process.env.URL!;
const state = process.env.STATE!;
const mode = process.argv[2];
const store = new Store(state);
const p = new pg.Pool({ connectionString: url });
let chain: Promise<unknown> = Promise.resolve();
const commits = {
  addToNextCommit(st: { text: string; values?: unknown[] }) {
    chain = chain.then(() => p.query(st.text, st.values)).catch((e) => console.error("commit", e.message));
  },
  flush() {},
};
if (mode === "worker") {
  const w = await startWorker({
    connectionString: url, schema: "switchyard", stateDir: mkdtempSync(join(tmpdir(), "sy-w")), concurrency: 8, tags: [],
    packs: async (_r, dest) => cpSync(process.env.PACK!, dest, { recursive: true }),
  });
  await w.done;
} else {
  const N = Number(process.env.N ?? 50);
  const keys = Array.from({ length: N }, (_, i) => `k${i}`);
  const pl = plan(
    [
      command("list", writeJson({ keys }), { emits: { keys: "list" } }),
      command("each", `sleep 1; echo "$SWITCHYARD_KEY" >> ${state}/ran.txt; printf '{"k":"%s"}' "$SWITCHYARD_KEY" > "$SWITCHYARD_OUTPUT"`, { depends_on: ["list"], ...mapped(ref("list", "keys")), emits: { k: "string" } }),
    ],
    { concurrency: 8 },
  );
  const pack = mkdtempSync(join(tmpdir(), "sy-pack"));
  const run = mode === "start" ? admitRun(store, { plan: pl, packDir: pack, sourcePath: pack }) : process.argv[3]!;
  console.log("RUN", run);
  const ex = new QueueExecutor({ connectionString: url, schema: "switchyard", run, commits });
  const engine = new RunEngine({ store, run, resume: mode !== "start", executor: ex, force: true });
  await ex.open(engine.plan, engine.repository);
  const out = await engine.execute();
  await chain;
  console.log(JSON.stringify(out));
  const show = showRun(store, run)!;
  console.log("passed", Object.values(show.tasks.each!.instances ?? {}).filter((i) => i.status === "passed").length);
  await ex.close();
  await p.end();
}
