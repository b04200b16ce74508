// What a job carries from the coordinator to a worker: everything one attempt
// needs besides the run's plan and pack snapshot, which a worker fetches once per run.

import type { InstanceInput } from "../kinds/index.js";
import type { ReviseRound } from "../kinds/index.js";
import type { WorkTask } from "../engine/index.js";

/** A queue job: one attempt of an instance, with its task plan, input and earlier rounds. */
export interface JobPayload {
  run: string;
  /** The task name the instance is recorded under. */
  task: string;
  key: string | null;
  attempt: number;
  /** The task as planned, its timeout capped below the queue's lock (names.ts). */
  plan: WorkTask;
  /** The instance input, final when the job is enqueued; shared outputs are null here. */
  input: InstanceInput;
  /** Dependency name → hash of its output in `queue_inputs` (shared-inputs.ts). */
  shared?: Record<string, string>;
  /** A revise loop's rounds recorded before this attempt. */
  rounds: ReviseRound[];
}
