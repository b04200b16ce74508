// `switchyard test PACK --cassette FILE`: runs the pack with every agent runner and the
// decision layer replaced by a cassette recorded from a real run (docs/testing-playbooks.md).
// The engine runs as for `switchyard run` — commands and evaluates for real, the same ceilings,
// records and gating — in a state folder of its own; agent turns are answered in the engine's own
// process by CassetteAgents (a replay on each runner, run/cassette/agent-replay.ts) and decisions
// by the CassetteJudge. Nothing outside is contacted unless --allow-live: a request the cassette
// does not hold is a miss, listed per element with why and a short diff, and the test fails (exit 1).

import type { Command } from "commander";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compilePath, loadEvaluator } from "../plan/index.js";
import type { Plan, TaskPlan } from "../plan/plan.js";
import { admitRun, RunEngine, SqliteStore, type InstanceRow, type Store } from "../run/index.js";
import { probeRepository, type AgentRunnerConfig } from "../run/agents/index.js";
import {
  CassetteAgents,
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  cassetteFromRun,
  CassetteJudge,
  cassetteText,
  readCassette,
  readMisses,
  replayIndex,
  type Cassette,
  type Miss,
} from "../run/cassette/index.js";
import { compileFailureExit, EXIT_FAILED, examples, printDiagnostics, setExitCode, UsageError } from "./common.js";
import { wire, type Wiring } from "./run-wiring.js";
import { reportingCassetteErrors } from "./cassette-errors.js";
import { cassetteSummary } from "./cassette.js";
import { junitXml, missLines } from "./junit.js";
import { compareExpectations, readExpectations, writeExpectations } from "./expectations.js";

interface TestFlags {
  cassette: string;
  config?: string;
  junit?: string;
  expect?: string;
  update?: boolean;
  allowLive?: boolean;
  playbook?: string;
  repo?: string;
  stateDir?: string;
  decide: string[];
}

/** The agent leaves of a plan: agent tasks, and the agent body or reviewer of a revise loop. */
function agentLeaves(plan: Plan): TaskPlan[] {
  return plan.tasks.flatMap((t) => (t.kind === "revise" ? [t.revise.body, t.revise.reviewer] : [t])).filter((t) => t.kind === "agent");
}

/** Every runner the plan names, answered from the cassette (with the real one behind it for --allow-live). */
function replayRunners(plan: Plan, agents: CassetteAgents, live: Wiring | undefined): Record<string, AgentRunnerConfig> {
  const out: Record<string, AgentRunnerConfig> = {};
  for (const t of agentLeaves(plan)) {
    if (t.kind !== "agent" || out[t.agent.runner]) continue;
    const name = t.agent.runner;
    const real = live?.engineDeps.agentRunners?.[name];
    if (live && !real)
      throw new UsageError("usage", `--allow-live: agent runner "${name}" is not configured in the machine config`, {
        hint: `add [agents.${name}] to the config --config names, or leave out --allow-live to replay only`,
      });
    // The whole runner (a preset's argv, environment and price table): a missed turn is run as `switchyard run` runs it.
    out[name] = agents.runner(name, real);
  }
  return out;
}

function readOrStart(path: string, update: boolean): Cassette {
  if (update && !existsSync(path))
    return { header: { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, run: "", playbook: "", written: "" }, entries: [] };
  return readCassette(path);
}

/** `::error` lines GitHub Actions shows on the pull request (its escaping of %, CR and LF). */
function annotation(title: string, text: string): string {
  const esc = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  return `::error title=${esc(title).replace(/[,:]/g, " ")}::${esc(text)}\n`;
}

async function replay(pack: string, flags: TestFlags, state: string): Promise<void> {
  const compiled = compilePath(pack, { playbook: flags.playbook });
  const errors = compiled.diagnostics.filter((d) => d.severity === "error");
  if (!compiled.plan || errors.length) {
    printDiagnostics(compiled.diagnostics);
    setExitCode(compileFailureExit(compiled.diagnostics));
    return;
  }
  const plan = compiled.plan;
  const cassette = readOrStart(flags.cassette, flags.update === true);
  const store: Store = new SqliteStore(state);
  const live = flags.allowLive ? wire({ config: flags.config, decide: flags.decide }, state, store) : undefined;
  try {
    const index = replayIndex(join(state, "cassette"), cassette);
    const overs = Object.fromEntries(plan.tasks.map((t) => [t.name, t.over]));
    const runDir = (r: string) => store.runDir(r);
    const agents = new CassetteAgents(index, runDir, overs);
    const agentRunners = replayRunners(plan, agents, live);
    let repo;
    if (agentLeaves(plan).some((t) => t.kind === "agent" && t.agent.workspace === "worktree")) {
      const probe = probeRepository(flags.repo ?? process.cwd());
      if (!probe.ok)
        throw new UsageError("usage", `a task works in a git worktree, but ${probe.problem}`, {
          hint: "run from inside the repository or pass --repo PATH",
        });
      repo = { path: probe.path, base: probe.head, keep_branches: false };
    }
    const run = admitRun(store, { plan, packDir: compiled.packRoot, sourcePath: pack, ...(repo ? { repo } : {}) });
    await live?.ready(plan);
    const judge = new CassetteJudge(index, runDir, overs, live?.engineDeps.judge);
    const engine: RunEngine = new RunEngine({
      store,
      run,
      resume: false,
      agentRunners,
      judge,
      secretEnv: live?.engineDeps.secretEnv ?? [],
      // A miss fails the same way every time: retries are not waited for.
      retryBaseMs: 1,
      evaluators: (task) => loadEvaluator(engine.packDirectory, engine.plan, task),
    });
    const outcome = await engine.execute();
    const misses = readMisses(index.dir);
    const hits = { agent: agents.answered, decision: judge.answered };
    report(plan.playbook, run, outcome.status, misses, hits, state, flags);
    if (flags.junit !== undefined) writeFileSync(flags.junit, junitXml(plan.playbook, store.tasks(run), store.instances(run), misses));
    if (process.env.GITHUB_ACTIONS === "true") {
      for (const m of misses) process.stdout.write(annotation("cassette miss", missLines(m).join("\n")));
      if (outcome.status !== "passed" && !misses.length)
        process.stdout.write(annotation("switchyard test", `the replayed run ${outcome.status}`));
    }
    const unmet = expectations(flags, store.instances(run));
    if (flags.update && flags.allowLive) {
      const updated = cassetteFromRun(store, run);
      const text = cassetteText(updated);
      writeFileSync(flags.cassette, text);
      process.stdout.write(`updated ${flags.cassette}: ${cassetteSummary(updated, Buffer.byteLength(text))}\n`);
    }
    if (outcome.status !== "passed" || unmet > 0 || (misses.length > 0 && !flags.allowLive)) setExitCode(EXIT_FAILED);
  } finally {
    await live?.close();
    store.close();
  }
}

/** --expect: writes the file from the run (--update) or compares; returns how many expectations failed. */
function expectations(flags: TestFlags, instances: InstanceRow[]): number {
  if (flags.expect === undefined) return 0;
  if (flags.update) {
    writeExpectations(flags.expect, instances);
    process.stdout.write(`updated ${flags.expect}\n`);
    return 0;
  }
  const unmet = compareExpectations(readExpectations(flags.expect), instances);
  if (unmet.length)
    process.stdout.write(
      `${unmet.length} expectation${unmet.length === 1 ? "" : "s"} of ${flags.expect} not met:\n${unmet.map((l) => `  ${l}\n`).join("")}`,
    );
  return unmet.length;
}

function report(
  playbook: string,
  run: string,
  status: string,
  misses: Miss[],
  hits: { agent: number; decision: number },
  state: string,
  flags: TestFlags,
): void {
  const out: string[] = [];
  const live = flags.allowLive === true;
  if (misses.length) {
    out.push(`${misses.length} miss${misses.length === 1 ? "" : "es"} (not in the cassette${live ? "; run and asked live" : ""}):`);
    for (const m of misses) out.push(...missLines(m).map((l) => `  ${l}`));
  }
  out.push(
    `test ${playbook}: ${status === "passed" && (live || !misses.length) ? "passed" : "FAILED"}: ${hits.agent} agent turn${hits.agent === 1 ? "" : "s"} and ${hits.decision} decision${hits.decision === 1 ? "" : "s"} answered from the cassette, ${misses.length} miss${misses.length === 1 ? "" : "es"}; the run ${status}`,
  );
  if (flags.stateDir !== undefined) out.push(`records: switchyard show ${run} --state-dir ${state}`);
  process.stdout.write(out.join("\n") + "\n");
}

/** Adds `switchyard test`: runs a pack with its agents and decisions answered from a cassette, and reports misses. */
export function register(program: Command): void {
  program
    .command("test")
    .description("run a pack with its agent turns and decisions answered from a cassette; nothing outside is contacted")
    .argument("<pack>", "pack folder, .star playbook or compiled plan .toml")
    .requiredOption("--cassette <file>", "the cassette (`switchyard cassette RUN -o FILE`)")
    .option("--playbook <name>", "which playbook of a pack with several")
    .option("--config <file>", "the machine config, for --allow-live (default: as for `switchyard run`)")
    .option("--junit <file>", "write a JUnit XML report: one test case per element")
    .option("--expect <file>", "check the run against a TOML file of expected counts per task, label and element")
    .option("--allow-live", "run or ask what the cassette does not hold, for real")
    .option("--update", "write the --expect file from this run; with --allow-live, also the cassette")
    .option("--repo <path>", "the git repository of worktree agents (default: the one containing the working directory)")
    .option("--state-dir <dir>", "keep the test run's records in this state folder (default: a temporary folder, removed)")
    .option(
      "--decide <type=mode>",
      "with --allow-live: route a judgement type, as for `switchyard run` (repeatable)",
      (v: string, acc: string[]) => [...acc, v],
      new Array<string>(),
    )
    .addHelpText(
      "after",
      examples([
        ["switchyard test examples/cve-triage --cassette examples/cve-triage/cassette.jsonl"],
        ["switchyard test . --cassette cassette.jsonl --junit junit.xml", "in CI"],
        ["switchyard test . --cassette cassette.jsonl --allow-live --update", "record what a change re-asks"],
      ]),
    )
    .action(async (pack: string, flags: TestFlags) => {
      if (flags.update && !flags.allowLive && flags.expect === undefined)
        throw new UsageError("usage", "--update writes the answers of the misses, which only --allow-live asks for, or the --expect file", {
          hint: "add --allow-live (it runs and asks the misses for real), or --expect FILE",
        });
      const state = flags.stateDir !== undefined ? resolve(flags.stateDir) : mkdtempSync(join(tmpdir(), "switchyard-test-"));
      try {
        await reportingCassetteErrors(() => replay(pack, flags, state));
      } finally {
        if (flags.stateDir === undefined) rmSync(state, { recursive: true, force: true });
      }
    });
}
