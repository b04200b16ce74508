// Issue 18: the revise example of docs/playbooks.md does not only compile, it runs and passes —
// its reviewer reads the body's output where the run puts it (input["inputs"]["draft"]).
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compilePath } from "../../src/plan/index.js";
import { loadEvaluator } from "../../src/plan/evaluator.js";
import { admitRun, RunEngine, Store } from "../../src/run/index.js";
import { writePack } from "../plan/helpers.js";
import { runner, TempDir } from "../run/helpers.js";

test("T-5 (issue 18): the revise example of docs/playbooks.md runs to passed with a scripted agent", async () => {
  const doc = readFileSync("docs/playbooks.md", "utf8");
  const block = [...doc.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => /\brevise\(/.test(b) && !b.startsWith("# expect"));
  assert.ok(block, "docs/playbooks.md has a revise example");
  // The example's `./stage.sh` stands for the user's own scripts; commands run in their workspace,
  // so the scripts the test supplies are named by their place in the pack snapshot.
  const main = block.replace(/"\.\/([a-z]+\.sh)"/g, '"$SWITCHYARD_PACK/$1"');
  assert.notEqual(main, block);
  const pack = writePack({ "main.star": main, "stage.sh": `#!/bin/sh\nprintf '{"facts":{"cve":"CVE-1"}}' > "$SWITCHYARD_OUTPUT"\n`, "publish.sh": "#!/bin/sh\ntrue\n" });
  const state = new TempDir("sy-docrun-");
  const store = new Store(join(state.path, "state"));
  try {
    for (const f of ["stage.sh", "publish.sh"]) chmodSync(join(pack, f), 0o755);
    const agent = join(state.path, "agent.sh");
    writeFileSync(agent, `#!/bin/sh\ncat > /dev/null\nprintf '{"text":"a short summary"}' > "$SWITCHYARD_OUTPUT"\n`, { mode: 0o755 });
    const compiled = compilePath(pack);
    assert.ok(compiled.plan, compiled.diagnostics.map((d) => d.message).join("\n"));
    const run = admitRun(store, { plan: compiled.plan, packDir: pack, sourcePath: pack });
    const outcome = await new RunEngine({ store, run, resume: false, agentRunners: runner("default", [agent]), evaluators: (task) => loadEvaluator(pack, compiled.plan!, task) }).execute();
    assert.equal(outcome.status, "passed", JSON.stringify([...store.events(run)].filter((e) => e.type === "instance_finished").map((e) => e.payload)));
  } finally {
    store.close();
    state.cleanup();
    rmSync(pack, { recursive: true, force: true });
  }
});
