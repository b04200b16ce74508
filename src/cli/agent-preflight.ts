// Preflight of a pack's agent work, before any decision is asked or turn taken, for
// `run` (and `resume`) and `config check PACK`: every agent task names a runner the machine
// config defines; every runner's executable can be found; a host of "tty" has a terminal when a
// type is answered by the host (host or shadow mode); a `worktree` task has a usable repository.
// Each problem names the fix. Also warns when budget_usd cannot be enforced for a runner whose
// tool reports no cost and that has no price table. Each preset runner's `--version` is read once:
// a version known not to work is refused, one outside the verified range warned about.

import { accessSync, closeSync, constants, openSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { nearestName } from "../lang/diagnostic.js";
import type { Plan, TaskOf } from "../plan/plan.js";
import type { JudgementMode, MachineConfig } from "../decide/config-types.js";
import type { AgentRunnerConfig } from "../run/agents/index.js";
import { canReportCost, presetOf } from "../run/agents/index.js";
import { checkVersion, readToolVersion } from "../run/agents/index.js";
import type { RunRepository } from "../run/store/index.js";
import { probeRepository, recordedRepositoryProblem } from "../run/agents/index.js";

/** What the agent preflight may use beyond the plans and config: the repository of worktree tasks, and the environment. */
export interface AgentPreflightOptions {
  /** --repo: where the repository of `worktree` tasks is (default: the working directory). */
  repo?: string;
  keepBranches?: boolean;
  /** The mode of each judgement type, as the run will use it. */
  modeOf: (type: string) => JudgementMode;
  budgetUsd?: number;
  env?: NodeJS.ProcessEnv;
  /** Whether a person can be asked at a terminal; by default, whether /dev/tty opens. */
  hasTerminal?: () => boolean;
  /**
   * Whether to refuse a "tty" host without a terminal (default true). Resume does not: most of a
   * resumed run's decisions are usually recorded, and one that is not fails as it would have.
   */
  checkTerminal?: boolean;
  /** Resume: the repository recorded when the run was admitted; it must still hold its base. */
  recorded?: RunRepository;
  /** Whether to run each preset runner's `--version` (default true; `config check` too). */
  readVersions?: boolean;
}

/** What the agent preflight found: problems (those local to this machine marked), warnings, and the repository to record. */
export interface AgentPreflight {
  problems: string[];
  /**
   * Of `problems`, those that depend on this machine and moment rather than on the config and
   * pack (an executable not on PATH, no terminal, the repository's state): `config check` reports
   * them as warnings, since the run may happen elsewhere; `run` refuses them all.
   */
  local: string[];
  warnings: string[];
  /** The repository and base commit to record, when a task works in a worktree. */
  repo?: RunRepository;
  /** Each preset runner's tool version (`TOOL --version`, read once), to record with the run. */
  versions: Record<string, string>;
}

/** Every agent of the plan, revise bodies and reviewers included. */
function agentTasks(plan: Plan): TaskOf<"agent">[] {
  const out: TaskOf<"agent">[] = [];
  for (const t of plan.tasks) {
    for (const x of t.revise ? [t.revise.body, t.revise.reviewer] : [t]) if (x.kind === "agent" && x.agent) out.push(x);
  }
  return out;
}

function terminalOpens(): boolean {
  try {
    closeSync(openSync("/dev/tty", "r+"));
    return true;
  } catch {
    return false;
  }
}

/** Why `argv0` cannot be run, or undefined. Bare names are looked up on PATH. */
function executableProblem(argv0: string, env: NodeJS.ProcessEnv): string | undefined {
  const runnable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (argv0.includes("/")) return runnable(argv0) ? undefined : `${argv0} does not exist or is not executable`;
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir !== "" && runnable(join(dir, argv0))) return undefined;
  return `"${argv0}" is not on PATH`;
}

/** Each runner the pack uses: found and runnable, its tool's version in range, its cost reportable under a budget. Returns the versions read. */
function checkRunners(
  runners: Iterable<AgentRunnerConfig>,
  env: NodeJS.ProcessEnv,
  opts: AgentPreflightOptions,
  local: string[],
  warnings: string[],
): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const runner of runners) {
    const why = executableProblem(runner.command[0]!, env);
    if (!why && opts.readVersions !== false && presetOf(runner).versions) {
      const read = readToolVersion(runner, env);
      if (read.version === undefined)
        warnings.push(
          `agent runner "${runner.name}" (${presetOf(runner).tool}): its version could not be read (${read.why}); it was not checked`,
        );
      else {
        versions[runner.name] = read.version;
        const check = checkVersion(runner, read.version);
        if (check.problem) local.push(check.problem);
        if (check.warning) warnings.push(check.warning);
      }
    }
    if (why) {
      const preset = presetOf(runner);
      const fix =
        preset.name === "generic"
          ? `fix command in [agents.${runner.name}]`
          : `install ${preset.tool}, or set command = ["/path/to/${preset.executable}"] in [agents.${runner.name}]`;
      local.push(`agent runner "${runner.name}"${preset.name === "generic" ? "" : ` (${preset.tool})`} cannot be started: ${why}; ${fix}`);
    }
    if (opts.budgetUsd !== undefined && !canReportCost(runner)) {
      warnings.push(
        `budget_usd cannot be enforced for agent runner "${runner.name}": ${presetOf(runner).tool} reports tokens but no cost; add price = { input_per_mtok = …, output_per_mtok = … } to [agents.${runner.name}] to charge its turns`,
      );
    }
  }
  return versions;
}

/** Checks a pack's agent work before anything is asked or run: runners defined and found, the host's terminal, worktree repositories, budgets and tool versions. */
export function agentPreflight(plans: Plan[], config: MachineConfig, opts: AgentPreflightOptions): AgentPreflight {
  const env = opts.env ?? process.env;
  const problems: string[] = [];
  const local: string[] = [];
  const warnings: string[] = [];
  const used = new Map<string, AgentRunnerConfig>();
  const names = Object.keys(config.agents);
  let worktreeTask: string | undefined;
  for (const plan of plans) {
    for (const t of agentTasks(plan)) {
      const spec = t.agent;
      if (spec.workspace === "worktree") worktreeTask ??= t.name;
      const runner = Object.hasOwn(config.agents, spec.runner) ? config.agents[spec.runner] : undefined;
      if (!runner) {
        const near = nearestName(spec.runner, names);
        problems.push(
          `agent task ${t.name} uses runner "${spec.runner}", which the machine config does not define${near ? ` (did you mean "${near}"?)` : ""}; add [agents.${spec.runner}] with preset = "claude-code" (or "codex", "gemini", "aider") or command = [...]${names.length ? `, or use one of: ${names.join(", ")}` : ""}`,
        );
      } else used.set(runner.name, runner);
    }
  }

  const types = new Set<string>();
  for (const plan of plans)
    for (const t of plan.tasks) if (t.route?.decide === "model") for (const q of t.route.questions) types.add(q.type);
  const hostAsked = [...types].filter((ty) => opts.modeOf(ty).kind === "host" || opts.modeOf(ty).kind === "shadow").sort();
  const host = config.decisions.host;
  const hostRunner = host !== "tty" && Object.hasOwn(config.agents, host) ? config.agents[host] : undefined;
  if (types.size > 0 && hostRunner !== undefined) used.set(host, hostRunner);
  if (hostAsked.length > 0 && host === "tty" && opts.checkTerminal !== false && !(opts.hasTerminal ?? terminalOpens)()) {
    const list = hostAsked.slice(0, 3).join(", ") + (hostAsked.length > 3 ? `, … (${hostAsked.length} types)` : "");
    local.push(
      `the host answers judgement type${hostAsked.length > 1 ? "s" : ""} ${list} (host or shadow mode), and the host is "tty", but switchyard has no terminal to ask at; set [decisions] host = "NAME" to an [agents.NAME] runner, or route the type to a model (--decide TYPE=PROVIDER/MODEL)`,
    );
  }

  const versions = checkRunners(used.values(), env, opts, local, warnings);

  let repo: RunRepository | undefined;
  if (worktreeTask !== undefined && opts.recorded) {
    const why = recordedRepositoryProblem(opts.recorded);
    if (why)
      local.push(
        `agent task ${worktreeTask} works in a git worktree at the run's recorded base, but ${why}; restore the repository, or start a new run`,
      );
  } else if (worktreeTask !== undefined) {
    const probe = probeRepository(opts.repo ?? process.cwd());
    if (!probe.ok)
      local.push(
        `agent task ${worktreeTask} works in a git worktree (workspace = "worktree"), but ${probe.problem}; ${opts.repo === undefined ? "run from inside the repository or pass --repo PATH" : "fix --repo"}`,
      );
    else repo = { path: probe.path, base: probe.head, keep_branches: opts.keepBranches === true };
  }
  return { problems: [...problems, ...local], local, warnings, versions, ...(repo ? { repo } : {}) };
}
