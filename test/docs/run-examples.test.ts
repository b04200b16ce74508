// Every complete example playbook of the docs (README.md and docs/*.md) does not only
// compile, it runs to `passed`. Each block is written to a pack as it stands; the pack's scripts
// the example names ($SWITCHYARD_PACK/NAME), the agent runner and the decision model are stand-ins
// that write outputs fitting the plan (each declared field with its declared type, objects keyed
// by the elements the tasks map over, labels a route's source or options must hold). Real child
// processes, a real SQLite store, the run engine, and evaluate functions run from the snapshot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePath } from "../../src/plan/index.js";
import { loadEvaluator } from "../../src/plan/evaluator.js";
import type { FieldType, Plan, TaskPlan } from "../../src/plan/plan.js";
import { admitRun, RunEngine, SqliteStore } from "../../src/run/index.js";
import { FakeJudge } from "../run/fake-judge.js";
import { runner, TempDir } from "../run/helpers.js";
import { allBlocks, expectedCode, isPlaybookBlock, type CodeBlock } from "./blocks.js";

/** The elements every list holds: the keys of every mapped task. */
const MEMBERS = ["alpha", "beta"];

/** Example-specific shapes no declaration says: the evaluate example reads each finding's severity. */
const RECORDS: Record<string, unknown[]> = { findings: [{ severity: "high" }, { severity: "low" }] };

/** What each element of an `object` field must hold, when a route reads it as its source or options. */
function perElement(plan: Plan, producer: string, field: string): unknown {
  for (const t of plan.tasks) {
    const r = t.route;
    if (!r) continue;
    if (r.source?.task === producer && r.source.field === field)
      return Object.fromEntries(r.questions.map((q) => [q.name, q.labels[q.labels.length - 1]]));
    if (r.questions.some((q) => q.dynamic?.task === producer && q.dynamic.field === field)) return ["pkg_one", "pkg_two"];
  }
  return { note: `facts of ${producer}` };
}

function value(plan: Plan, task: string, field: string, type: FieldType): unknown {
  switch (type) {
    case "string":
      return "a short text";
    case "number":
      return 2;
    case "bool":
      return true;
    case "list":
      return RECORDS[field] ?? MEMBERS;
    case "object":
      return Object.fromEntries(MEMBERS.map((m) => [m, perElement(plan, task, field)]));
    case "any":
      return "anything";
  }
}

/** A shell script that writes the output of `t` (and the files an agent must leave). */
function outputScript(plan: Plan, t: TaskPlan): string {
  const files = t.agent?.files ?? [];
  const fields = Object.entries(t.emits).filter(([f]) => !(f === "files" && files.length > 0));
  const output = JSON.stringify(Object.fromEntries(fields.map(([f, type]) => [f, value(plan, t.name, f, type)])));
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  return (
    ["cat > /dev/null", `printf '%s' ${quote(output)} > "$SWITCHYARD_OUTPUT"`, ...files.map((f) => `printf '{}' > ${quote(f)}`)].join(
      "\n",
    ) + "\n"
  );
}

function tasksOf(plan: Plan): TaskPlan[] {
  return plan.tasks.flatMap((t) => (t.revise ? [t, t.revise.body, t.revise.reviewer] : [t]));
}

async function runBlock(b: CodeBlock): Promise<string | undefined> {
  const pack = mkdtempSync(join(tmpdir(), "sy-docrun-pack-"));
  const state = new TempDir("sy-docrun-");
  const store = new SqliteStore(join(state.path, "state"));
  const savedPath = process.env.PATH;
  // Tools an inline command calls (npm audit) are stand-ins on PATH: no network, no project.
  state.file("bin/npm", "#!/bin/sh\nexit 1\n", 0o755);
  process.env.PATH = `${join(state.path, "bin")}:${savedPath}`;
  try {
    writeFileSync(join(pack, "main.star"), b.text);
    const compiled = compilePath(pack);
    if (!compiled.plan) return `does not compile: ${compiled.diagnostics.map((d) => d.message).join("; ")}`;
    const plan = compiled.plan;
    // Each task's stand-in output, chosen by $SWITCHYARD_TASK from outside the pack.
    for (const t of tasksOf(plan)) state.file(`outputs/${t.name}.sh`, outputScript(plan, t));
    const play = `"${state.path}/outputs/$SWITCHYARD_TASK.sh"`;
    // The scripts the example names in the pack, as the example's author would ship them.
    for (const t of tasksOf(plan)) {
      for (const [, name] of (t.command?.run ?? "").matchAll(/\$SWITCHYARD_PACK\/([A-Za-z0-9_.-]+)/g)) {
        const body = name!.endsWith(".mjs")
          ? `import { execFileSync } from "node:child_process";\nexecFileSync("sh", ["${state.path}/outputs/" + process.env.SWITCHYARD_TASK + ".sh"], { stdio: "inherit" });\n`
          : `#!/bin/sh\nexec sh ${play}\n`;
        writeFileSync(join(pack, name!), body);
        chmodSync(join(pack, name!), 0o755);
      }
    }
    const agent = state.file("agent.sh", `#!/bin/sh\nexec sh ${play}\n`, 0o755);
    // The decision model answers each element with another label, so several gates open.
    const judge = new FakeJudge((key, q) => q.labels[(key === null ? 0 : Math.max(0, MEMBERS.indexOf(key))) % q.labels.length]!);
    const run = admitRun(store, { plan, packDir: pack, sourcePath: pack });
    const engine = new RunEngine({
      store,
      run,
      resume: false,
      judge,
      agentRunners: runner("default", [agent]),
      evaluators: (task) => loadEvaluator(store.runDir(run) + "/pack", plan, task),
    });
    const outcome = await engine.execute();
    if (outcome.status === "passed") return undefined;
    const failures = [...store.events(run)].filter(
      (e) => e.type === "instance_finished" && (e.payload as { status?: string }).status !== "passed",
    );
    return `ended ${outcome.status}: ${JSON.stringify(failures.map((e) => [e.task, e.key, e.payload]))}`;
  } finally {
    process.env.PATH = savedPath;
    store.close();
    state.cleanup();
    rmSync(pack, { recursive: true, force: true });
  }
}

test("T-1 … T-5: every complete example playbook in the docs runs to passed", async () => {
  const blocks = allBlocks(process.cwd()).filter((b) => isPlaybookBlock(b) && expectedCode(b) === undefined);
  assert.ok(blocks.length >= 15, `found only ${blocks.length} example playbooks`);
  for (const page of ["README.md", "docs/gating.md", "docs/playbooks.md"])
    assert.ok(
      blocks.some((b) => b.file === page),
      `no example playbook found in ${page}`,
    );
  const problems: string[] = [];
  for (const b of blocks) {
    const problem = await runBlock(b);
    if (problem) problems.push(`${b.file}:${b.line}: ${problem}`);
  }
  assert.deepEqual(problems, []);
});
