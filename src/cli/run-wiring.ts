// What `run` and `resume` share: the overriding flags, the machine config and decision layer,
// the evaluate functions of the snapshot, Ctrl-C, live progress and the exit code.

import type { Command } from "commander";
import { parseModeOverrides } from "../decide/mode.js";
import { parseDuration } from "../plan/index.js";
import { parseStoreSpec } from "../run/store/index.js";
import { publishSnapshot } from "../run/store/index.js";
import { addStoreOption, namedStore, openNamed } from "./store-option.js";
import { EXECUTOR_HELP, executorChoice, queueExecutor } from "./executor-option.js";
import { watchCancelRequests, type Store, type RunOutcome, type RunOwnership, type SettingsOverrides } from "../run/index.js";
import { launch, type LaunchOptions, type Run } from "../api/run-handle.js";
import { wireRun, type Wiring } from "../api/wiring.js";
import { EXIT_FAILED, UsageError, setExitCode } from "./common.js";
import { locateConfig, locateState, prepareStateFolder } from "./state-discovery.js";
import { liveDrawing, Progress, progressMode, type LiveDrawing } from "./run-progress.js";
import { RunTally } from "./run-summary.js";
import { endSummary } from "./run-failures.js";
import { reviewNotifier } from "./review-notify.js";
import type { MachineConfig } from "../decide/config-types.js";
import { shareTerminal } from "../decide/providers/terminal-turns.js";

/** The flags `run`, `resume` and `rerun` share. */
export interface RunFlags {
  stateDir?: string;
  config?: string;
  concurrency?: string;
  decisionConcurrency?: string;
  decide: string[];
  maxDuration?: string;
  budgetUsd?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** false with --no-color. */
  color?: boolean;
  /** resume and rerun: take over a run whose recorded process cannot be verified. */
  force?: boolean;
  /** --store: the store of the runs' records (store-option.ts). */
  store?: string;
  /** --executor: local or workers (executor-option.ts). */
  executor?: string;
  /** --detach-reviews: end as `waiting` when only elements waiting for review are left (D-62). */
  detachReviews?: boolean;
}

/** Adds the flags `run`, `resume` and `rerun` share to a command. */
export function addRunFlags(cmd: Command): Command {
  return addStoreOption(
    cmd.option("--state-dir <dir>", "the state folder (default: $SWITCHYARD_HOME, else the nearest .switchyard/ here or above)"),
  )
    .option(
      "--config <file>",
      "the machine config (default: $SWITCHYARD_CONFIG, else .switchyard/config.toml, else $XDG_CONFIG_HOME/switchyard/config.toml)",
    )
    .option("--concurrency <n>", "most command/agent/evaluate instances at once")
    .option("--decision-concurrency <n>", "most decision requests at once")
    .option("--executor <where>", EXECUTOR_HELP)
    .option(
      "--decide <type=mode>",
      "route a judgement type: host, review, shadow:PROVIDER/MODEL[,PROVIDER/MODEL…] or PROVIDER/MODEL (repeatable)",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option("--max-duration <duration>", "the run's wall-clock ceiling, e.g. 90m or 2h")
    .option("--budget-usd <usd>", "the run's ceiling on agents' reported cost")
    .option("--json", "print events as JSON lines and a JSON summary")
    .option("-q, --quiet", "print only the summary at the end")
    .option("-v, --verbose", "on a terminal, also print each event above the live progress")
    .option("--no-color", "no colour (also: NO_COLOR=1, or output that is not a terminal)")
    .option(
      "--detach-reviews",
      "when only elements waiting for review are left, end the run as `waiting` (continue it with `resume` after answering) instead of staying up",
    );
}

/** `--force` of resume and rerun. */
export const FORCE_HELP =
  "take the run over when the process recorded as executing it cannot be verified (another host, or no /proc to compare its start time); never needed for a process that is gone";

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError("usage", `${flag} must be a whole number of at least 1, got ${JSON.stringify(v)}`);
  return n;
}

/** The playbook settings the flags override (--concurrency …), checked. */
export function overridesFrom(f: RunFlags): SettingsOverrides {
  const o: SettingsOverrides = {};
  const c = positiveInt("--concurrency", f.concurrency);
  if (c !== undefined) o.concurrency = c;
  const d = positiveInt("--decision-concurrency", f.decisionConcurrency);
  if (d !== undefined) o.decision_concurrency = d;
  if (f.maxDuration !== undefined) {
    const s = parseDuration(f.maxDuration);
    if (s === undefined)
      throw new UsageError("usage", `--max-duration must be a duration like 90s, 1.5h, 10m or 1h30m, got ${JSON.stringify(f.maxDuration)}`);
    o.max_duration_seconds = s;
  }
  if (f.budgetUsd !== undefined) {
    const b = Number(f.budgetUsd);
    if (!Number.isFinite(b) || b < 0)
      throw new UsageError("usage", `--budget-usd must be a number of dollars, got ${JSON.stringify(f.budgetUsd)}`);
    o.budget_usd = b;
  }
  return o;
}

/** $SWITCHYARD_MAX_FILE_MB: the most megabytes read from one file an instance leaves. */
export function maxFileBytesFrom(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.SWITCHYARD_MAX_FILE_MB;
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 4096)
    throw new UsageError(
      "usage",
      `SWITCHYARD_MAX_FILE_MB must be a number of megabytes above 0 and at most 4096, got ${JSON.stringify(v)}`,
    );
  return Math.round(n * 1024 * 1024);
}

/** The state folder for `run` (a new run may start a `./.switchyard/`) or for resume and rerun. */
export function openStore(flag: string | undefined, opts: { forNewRun?: boolean; store?: string } = {}): Store {
  const { dir } = locateState(flag, opts);
  prepareStateFolder(dir);
  return openNamed(namedStore(opts.store, dir) ?? parseStoreSpec(undefined, dir), dir, false)!;
}

/** What a run is wired to (src/api/wiring.ts), re-exported for the commands that wire runs. */
export type { Wiring } from "../api/wiring.js";
export { judgementTypes } from "../api/state.js";

/** Machine config (D-50), --decide overrides, the decision layer (D-1) and the lab sink (H-1). */
export function wire(flags: RunFlags, state: string, store?: Store): Wiring {
  const maxFileBytes = maxFileBytesFrom(process.env);
  return wireRun({
    configPath: locateConfig(flags.config),
    stateDir: state,
    ...(store ? { store } : {}),
    overrides: overridesFrom(flags),
    decide: parseModeOverrides(flags.decide),
    ...(maxFileBytes !== undefined ? { maxFileBytes } : {}),
  });
}

/** With `--executor workers`, the queue executor, set up once the engine is made and closed when the run settles. */
async function executorFor(flags: RunFlags, store: Store, run: string): Promise<Pick<LaunchOptions, "executor" | "prepare" | "onSettled">> {
  if (executorChoice(flags.executor, store) !== "workers") return {};
  const queue = await queueExecutor(store, run);
  return {
    executor: queue,
    // Workers need the plan, the repository and the pack snapshot before the first job.
    prepare: async (engine) => {
      publishSnapshot(store, run, engine.packDirectory, { ifMissing: true });
      await queue.open(engine.plan, engine.repository);
    },
    onSettled: () => queue.close(),
  };
}

/** The engine's review queue options (D-62, D-66): detach, the stderr line when only waiting is left, and the notifier. */
function reviewOptions(run: string, flags: RunFlags, config: MachineConfig): NonNullable<LaunchOptions["reviews"]> {
  const notify = reviewNotifier(config.decisions.review_notify);
  return {
    detachReviews: flags.detachReviews === true,
    onOnlyWaiting: (n) =>
      process.stderr.write(
        `switchyard: only ${n} element(s) waiting for review are left; the run stays up until they are answered (\`switchyard review ${run}\`), or Ctrl-C and resume later\n`,
      ),
    ...(notify ? { onReviewQueue: notify } : {}),
  };
}

/** The live progress (or JSON lines) of a run on stdout, sharing the terminal with host turns. */
function showProgress(handle: Run, flags: RunFlags, drawing: LiveDrawing | null): Progress {
  const progress = new Progress(progressMode(flags.json, flags.quiet), () => handle.progress(), process.stdout, {
    drawing,
    verbose: flags.verbose,
    color: flags.color,
    figures: { run: handle.id, elapsedMs: () => handle.elapsedMs(), spentUsd: () => handle.spentUsd() },
  });
  shareTerminal({ pause: () => progress.pause(), resume: () => progress.resume() });
  return progress;
}

/**
 * Ctrl-C, SIGTERM and SIGHUP (the terminal closed) all cancel: running instances are stopped and
 * recorded as interrupted, so nothing is left running and the run can be resumed; a second signal
 * exits at once. `switchyard cancel` from another machine asks through the store
 * (cancel-request.ts). Returns what stops listening.
 */
function cancelOnRequest(handle: Run, store: Store, tally: RunTally, progress: Progress): () => void {
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts += 1;
    if (sig === "SIGHUP") {
      // The terminal is gone: writing to it fails from now on, which must not end the process.
      process.stdout.on("error", () => undefined);
      process.stderr.on("error", () => undefined);
    }
    if (interrupts === 1) {
      const by = sig === "SIGINT" ? "Ctrl-C" : sig === "SIGHUP" ? "SIGHUP (the terminal closed)" : sig;
      process.stderr.write(
        `\nswitchyard: cancelling: stopping running instances (${sig === "SIGINT" ? "Ctrl-C" : "the signal"} again to exit at once)\n`,
      );
      tally.cancelling();
      handle.cancel(`cancelled by ${by}`);
    } else {
      store.flush();
      progress.flush();
      process.exit(130);
    }
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const sig of signals) process.on(sig, onSignal);
  const stopWatching = watchCancelRequests(store, handle.id, (reason) => {
    if (interrupts++ === 0) {
      process.stderr.write(`\nswitchyard: ${reason}: stopping running instances\n`);
      tally.cancelling();
      handle.cancel(reason);
    }
  });
  return () => {
    for (const sig of signals) process.off(sig, onSignal);
    stopWatching();
  };
}

/** Starts (or resumes) a run through the library API, with Ctrl-C handling and progress; sets the exit code from the outcome. */
export async function execute(
  store: Store,
  run: string,
  resume: boolean,
  flags: RunFlags,
  wiring: Wiring,
  owner?: RunOwnership,
): Promise<RunOutcome> {
  const tally = new RunTally();
  let progress: Progress | undefined;
  const drawing = await liveDrawing(progressMode(flags.json, flags.quiet));
  const handle = await launch(store, run, {
    resume,
    wiring,
    ...(flags.force !== undefined ? { force: flags.force } : {}),
    ...(owner ? { owner } : {}),
    ...(await executorFor(flags, store, run)),
    reviews: reviewOptions(run, flags, wiring.config),
    onEvent: (e) => {
      tally.event(e);
      progress?.event(e);
    },
  });
  tally.plan(handle.plan);
  const shown = (progress = showProgress(handle, flags, drawing));
  const stopCancelling = cancelOnRequest(handle, store, tally, shown);
  try {
    const outcome = await handle.done;
    const tasks = handle.progress();
    shown.finish(outcome, tasks, endSummary(tally, store, outcome, handle.spentUsd(), tasks));
    if (outcome.status !== "passed") setExitCode(EXIT_FAILED);
    return outcome;
  } finally {
    stopCancelling();
    shareTerminal(null);
  }
}
