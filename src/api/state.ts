// openState: a state folder (and its store) as the library sees it: start, resume and rerun runs,
// and read them back (`show --json`'s shape, `runs --json`'s rows). Each method goes through the
// same admitting, wiring and launching code as the CLI's commands.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  admitRun,
  claimRun,
  DecisionLayerRefused,
  openStore,
  planRerun,
  recordRerun,
  RunNotFound,
  showRun,
  type AdmitOptions,
  type RerunRequest,
  type RunRow,
  type ShowJson,
  type Store,
} from "../run/index.js";
import type { Plan } from "../plan/index.js";
import { compile, type Compiled, type CompileOptions } from "./compile.js";
import { launch, type LaunchOptions, type Run } from "./run-handle.js";
import { wiringInput, type RunOptions } from "./options.js";
import { judgementTypes, wireRun, type Wiring } from "./wiring.js";
import { ApiOptionError } from "./api-error.js";

/** Where the runs are kept: a state folder, and optionally a store in it or elsewhere (`sqlite:PATH`, `postgres://…`). */
export type StateOptions = { stateDir: string; store?: string } | { store: string; stateDir?: string };

/** What to run again (as `switchyard rerun`): tasks, optionally only some keys or the failed ones, and what read them. */
export interface RerunOptions extends RunOptions {
  tasks: string[];
  keys?: string[];
  failed?: boolean;
  downstream?: boolean;
  redecide?: boolean;
}

/** A run's row as `switchyard runs --json` lists it. */
export type RunSummary = RunRow;

export { judgementTypes } from "./wiring.js";

/** Refuses a plan whose model-decided routes the decision layer cannot serve (D-30), before anything is admitted; closes the wiring then. */
export async function decisionPreflight(plan: Plan, wiring: Wiring): Promise<void> {
  const types = judgementTypes(plan);
  await wiring.ready(plan);
  const problems = types.length ? (wiring.engineDeps.judge?.preflight?.(types) ?? []) : [];
  if (problems.length === 0) return;
  await wiring.close();
  throw new DecisionLayerRefused("preflight", `the decision layer refused this run (D-30):\n  ${problems.join("\n  ")}`, {
    hint: "fix the machine config or the decisions option",
  });
}

/** Every agent task's runner (revise bodies and reviewers included) that neither the options nor the machine config define. */
function missingRunners(plan: Plan, wiring: Wiring): string[] {
  const tasks = plan.tasks.flatMap((t) => (t.revise ? [t, t.revise.body, t.revise.reviewer] : [t]));
  const missing = tasks.flatMap((t) =>
    t.agent && !Object.hasOwn(wiring.config.agents, t.agent.runner) ? [`${t.name} (runner "${t.agent.runner}")`] : [],
  );
  return [...new Set(missing)];
}

/** Refuses a plan whose agent tasks name a runner nobody defined (D-40), before anything is admitted; closes the wiring then. */
async function runnerPreflight(plan: Plan, wiring: Wiring): Promise<void> {
  const missing = missingRunners(plan, wiring);
  if (missing.length === 0) return;
  await wiring.close();
  throw new ApiOptionError(
    `no agent runner for ${missing.join(", ")}: give it in the runners option or as [agents.NAME] in the machine config (D-40)`,
    `runners defined: ${Object.keys(wiring.config.agents).join(", ") || "none"}`,
  );
}

/** What a new run records about where it came from: the repository of worktree agents and the agent tools' versions (the CLI's preflight reads them). */
export interface AdmitExtras {
  repo?: AdmitOptions["repo"];
  agentVersions?: Record<string, string>;
}

/** Admits a compiled plan as a new run with the wiring's overrides, and returns its id; closes the wiring when that fails. */
export async function admit(
  store: Store,
  compiled: Pick<Compiled, "plan" | "packRoot">,
  source: string,
  wiring: Wiring,
  extras: AdmitExtras = {},
): Promise<string> {
  try {
    return admitRun(store, {
      plan: compiled.plan,
      packDir: compiled.packRoot,
      sourcePath: source,
      overrides: wiring.engineDeps.overrides,
      ...extras,
    });
  } catch (err) {
    await wiring.close();
    throw err;
  }
}

/** A state folder and its store, open: runs start, resume and are read through it. */
export class State {
  /** @internal Use openState. */
  constructor(private readonly store: Store) {}

  /** The state folder. */
  get stateDir(): string {
    return this.store.stateDir;
  }

  /** Compiles and admits a pack, .star playbook or plan .toml as a new run, and starts it. Throws DiagnosticError when it does not compile. */
  async run(pack: string, opts: RunOptions & CompileOptions = {}): Promise<Run> {
    const compiled = compile(pack, opts.playbook === undefined ? {} : { playbook: opts.playbook });
    const wiring = wireRun(wiringInput(opts, this.store));
    await decisionPreflight(compiled.plan, wiring);
    await runnerPreflight(compiled.plan, wiring);
    let run: string;
    try {
      run = admitRun(this.store, {
        plan: compiled.plan,
        packDir: compiled.packRoot,
        sourcePath: pack,
        overrides: wiring.engineDeps.overrides,
      });
    } catch (err) {
      await wiring.close();
      throw err;
    }
    return launch(this.store, run, { resume: false, wiring });
  }

  /** Continues a stopped, cancelled, failed or interrupted run: what passed is kept, recorded decisions are never asked again. */
  async resume(id: string, opts: RunOptions = {}): Promise<Run> {
    this.known(id);
    return launch(this.store, id, { resume: true, wiring: wireRun(wiringInput(opts, this.store)), ...this.forced(opts) });
  }

  /** Clears the chosen instances of a run and resumes it, so they run again (as `switchyard rerun`). */
  async rerun(id: string, opts: RerunOptions): Promise<Run> {
    this.known(id);
    const input = wiringInput(opts, this.store); // wrong options fail before anything is recorded
    const owner = claimRun(this.store, id, opts.force === undefined ? {} : { force: opts.force });
    let wiring: Wiring | undefined;
    try {
      const req: RerunRequest = {
        tasks: opts.tasks,
        keys: opts.keys ?? [],
        failed: !!opts.failed,
        downstream: !!opts.downstream,
        redecide: !!opts.redecide,
        refresh_pack: false,
      };
      const planned = planRerun(this.store, id, req);
      wiring = wireRun(input);
      recordRerun(this.store, id, req, planned);
    } catch (err) {
      owner.release();
      await wiring?.close();
      throw err;
    }
    return launch(this.store, id, { resume: true, wiring, owner, onSettled: async () => owner.release() });
  }

  /** A run as `switchyard show --json` prints it (docs/cli.md). Throws RunNotFound for an unknown id. */
  show(id: string): ShowJson {
    const shown = showRun(this.store, id);
    if (!shown) throw this.notFound(id);
    return shown;
  }

  /** Every run, newest first, as `switchyard runs --json` lists them. */
  runs(): RunSummary[] {
    return this.store.runs();
  }

  /** Closes the store. Runs still executing must be awaited first. */
  close(): void {
    this.store.close();
  }

  private forced(opts: RunOptions): Pick<LaunchOptions, "force"> {
    return opts.force === undefined ? {} : { force: opts.force };
  }

  private known(id: string): void {
    if (!this.store.run(id)) throw this.notFound(id);
  }

  private notFound(id: string): RunNotFound {
    return new RunNotFound("unknown-run", `no run ${id} in ${this.store.stateDir}`, { hint: "state.runs() lists the runs" });
  }
}

/** Opens a state folder (made if missing, with a .gitignore) and its store. */
export function openState(opts: StateOptions): State {
  const dir = resolve(opts.stateDir ?? ".switchyard");
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ".gitignore"), "# switchyard's state (runs, events, labs): never committed\n*\n");
  }
  return new State(openStore(opts.store, dir));
}
