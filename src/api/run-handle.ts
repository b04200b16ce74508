// One invocation of a run (started, resumed or rerun) as a handle: its id, its events as they are
// recorded, the outcome, and cancel. The only place a RunEngine is made: the CLI's `run`, `resume`
// and `rerun` and the library's State.run/resume/rerun all come through `launch`.

import {
  RunEngine,
  type EngineOptions,
  type RunEvent,
  type RunOutcome,
  type RunOwnership,
  type Store,
  type TaskProgress,
} from "../run/index.js";
import { StorageFault } from "../run/store/index.js";
import type { InstanceExecutor } from "../run/engine/index.js";
import type { Plan } from "../plan/index.js";
import { EventFeed } from "./event-feed.js";
import type { Wiring } from "./wiring.js";

/** How `launch` starts an invocation: new or resumed, its wiring, and what the CLI adds. */
export interface LaunchOptions {
  resume: boolean;
  wiring: Wiring;
  /** Take over a run whose recorded owner cannot be verified (`--force`). */
  force?: boolean;
  /** A claim already made (rerun claims before it records anything). */
  owner?: RunOwnership;
  /** Where attempts run (the CLI's workers executor); here by default. */
  executor?: InstanceExecutor;
  /** Called with each event as it is recorded, before the events iterator sees it. */
  onEvent?: (e: RunEvent) => void;
  /** Awaited after the engine is made and before it starts (the workers executor publishes the snapshot). */
  prepare?: (engine: RunEngine) => Promise<void>;
  /** The review queue's hooks (D-62, D-66): end as `waiting` when only reviews are left, and who hears of the queue. */
  reviews?: Pick<EngineOptions, "detachReviews" | "onOnlyWaiting" | "onReviewQueue">;
  /** Closed when the invocation settles, after the wiring (the workers executor). */
  onSettled?: () => Promise<void>;
}

/** A run being executed: its id, its recorded events as they land, its outcome, and cancel. */
export class Run {
  /** The run id (as `switchyard runs` lists it). */
  readonly id: string;
  /** The outcome of this invocation: passed, failed, stopped (a ceiling) or cancelled. Rejects only for a storage fault. */
  readonly done: Promise<RunOutcome>;
  /** Every event this invocation records, in order, from its first; ends when the invocation settles. */
  readonly events: AsyncIterable<RunEvent>;
  private readonly engine: RunEngine;

  /** @internal Made by `launch`. */
  constructor(id: string, engine: RunEngine, done: Promise<RunOutcome>, events: AsyncIterable<RunEvent>) {
    this.id = id;
    this.engine = engine;
    this.done = done;
    this.events = events;
  }

  /** Cancels the run: running instances are stopped and recorded as interrupted; it can be resumed. */
  cancel(reason = "cancelled"): void {
    this.engine.cancel(reason);
  }

  /** The plan the run executes (as admitted). */
  get plan(): Plan {
    return this.engine.plan;
  }

  /** Each task's counts now (what the live progress shows). */
  progress(): TaskProgress[] {
    return this.engine.progress();
  }

  /** Wall-clock milliseconds of the run over all its invocations. */
  elapsedMs(): number {
    return this.engine.elapsedMs();
  }

  /** Dollars charged to the run's budget so far. */
  spentUsd(): number {
    return this.engine.spentUsd();
  }

  /** The pack snapshot the run uses. */
  get packDirectory(): string {
    return this.engine.packDirectory;
  }
}

/** Closes what an invocation holds: the wiring (judge, lab), then what the caller added. */
async function settle(opts: LaunchOptions): Promise<void> {
  try {
    await opts.wiring.close();
  } finally {
    await opts.onSettled?.();
  }
}

/**
 * Makes the engine of an admitted run, runs `prepare` (the workers executor's setup), and starts
 * the run after the caller's current turn of the event loop, so that listeners it sets up after
 * awaiting this miss no event.
 */
export async function launch(store: Store, run: string, opts: LaunchOptions): Promise<Run> {
  const feed = new EventFeed<RunEvent>();
  let engine: RunEngine;
  try {
    engine = new RunEngine({
      store,
      run,
      resume: opts.resume,
      ...opts.wiring.engineDeps,
      ...(opts.executor ? { executor: opts.executor } : {}),
      ...(opts.force !== undefined ? { force: opts.force } : {}),
      ...(opts.owner ? { owner: opts.owner } : {}),
      ...opts.reviews,
      evaluators: (task) => opts.wiring.evaluators(engine.packDirectory, engine.plan)(task),
      onEvent: (e) => {
        opts.onEvent?.(e);
        feed.push(e);
      },
    });
    await opts.wiring.ready(engine.plan);
    await opts.prepare?.(engine);
  } catch (err) {
    await settle(opts);
    throw err;
  }
  const started = engine;
  const done = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => started.execute())
    .catch((err: unknown) => {
      if (err instanceof StorageFault) err.run = run;
      throw err;
    })
    .finally(async () => {
      feed.close();
      await settle(opts);
    });
  return new Run(run, started, done, feed);
}
