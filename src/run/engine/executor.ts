// Where command, agent and revise attempts run. The engine decides what starts
// and records every event; an executor only runs one attempt and hands its outcome back. The local
// executor runs it here, with today's launcher and workspace code; the queue executor
// (queue/queue-executor.ts) enqueues it for `switchyard worker` processes on other machines.

import type { TaskOf } from "../../plan/plan.js";
import type { Usage } from "../kinds/index.js";
import type { AttemptContext, InstanceInput, Outcome } from "../kinds/index.js";
import { runCommand, type AttemptFiles } from "../kinds/index.js";
import { runAgent } from "../kinds/index.js";
import { runRevise, type ReviseRound } from "../kinds/index.js";

/** The tasks whose attempts an executor runs: command, agent and revise. */
export type WorkTask = TaskOf<"command"> | TaskOf<"agent"> | TaskOf<"revise">;

/** One attempt of a command, agent or revise instance, as the engine hands it over. */
export interface AttemptRequest {
  ctx: AttemptContext<WorkTask>;
  input: InstanceInput;
  attempt: number;
  /** The attempt's files when the engine already started preparing them (local only). */
  prepared?: Promise<AttemptFiles>;
  /** A revise loop's rounds recorded so far (its attempt continues after them). */
  rounds: ReviseRound[];
  /** Records a finished revise round (a revise_round event) before the next starts. */
  recordRound: (r: ReviseRound, usage: Usage | undefined) => void;
  /** Whether a revise loop may start another round (the run's ceilings, R-6). */
  mayStartRound: () => boolean;
}

/** Where attempts run: in this process, or on workers through the queue. */
export interface InstanceExecutor {
  /** True when attempts run in this process (the engine prepares command files ahead, see prefetch). */
  readonly local: boolean;
  run(req: AttemptRequest): Promise<Outcome>;
  /** Called once the engine has appended the events of `req`'s outcome (the queue marks its report consumed). */
  recorded?(req: AttemptRequest): void;
  /**
   * On resume: whether the attempt the log shows started and unfinished is still alive elsewhere
   * (a queued or running job, or an unconsumed result), so the engine waits for it instead of
   * starting a new attempt — never a second job for a running turn.
   */
  adopts?(task: string, key: string | null, attempt: number): boolean;
  /** A ceiling was reached: attempts not yet begun may be withdrawn (reported interrupted). */
  halted?(): void;
}

/** Runs every attempt in this process (the default, and the single-machine mode). */
export const localExecutor: InstanceExecutor = {
  local: true,
  run(req) {
    const { ctx, input } = req;
    const task = ctx.task;
    if (task.kind === "command") return runCommand({ ...ctx, task }, input, req.prepared);
    if (task.kind === "agent") return runAgent({ ...ctx, task }, input);
    return runRevise({ ...ctx, task }, input, req.rounds, req.recordRound, req.mayStartRound);
  },
};
