// What an instance kind receives to run one attempt, and what it hands back.

import type { Plan, TaskPlan } from "../../plan/plan.js";
import type { AgentRunnerConfig } from "../agents/index.js";
import type { Usage } from "./judge.js";
import type { Launcher } from "../process/index.js";
import type { RunRepository } from "../store/index.js";
import type { GroupHooks } from "../process/index.js";
import { codedText } from "../../shared/coded-error.js";

/** The instance's input. */
export interface InstanceInput {
  key?: string;
  inputs: Record<string, unknown>;
  statuses?: Record<string, string>;
  feedback?: unknown;
  round?: number;
}

/** Makes the evaluator function of an `evaluate` task. */
export type EvaluatorFactory = (task: TaskPlan) => (input: unknown) => unknown;

/** What every attempt of a run may use: its plan, pack, environment, agent runners, launcher and limits. */
export interface KindEnv {
  run: string;
  plan: Plan;
  packDir: string;
  /** The environment processes inherit, secrets already removed. */
  baseEnv: NodeJS.ProcessEnv;
  agentRunners: Record<string, AgentRunnerConfig>;
  /** The run's recorded repository, for `worktree` agents. */
  repo?: RunRepository;
  evaluatorFor: (task: TaskPlan) => (input: unknown) => unknown;
  /** The launcher shells for commands, or null where `setsid` is missing (spawn directly). */
  launcher?: () => Launcher | null;
  /** Most bytes read from one file an instance leaves (untrusted-file.ts; default 16 MB). */
  maxFileBytes?: number;
}

/** `T` narrows the task to the kind that runs it (e.g. TaskOf<"command"> for runCommand). */
export interface AttemptContext<T extends TaskPlan = TaskPlan> {
  env: KindEnv;
  /** The task as declared (for revise: the inline body or reviewer). */
  task: T;
  /** The task name and key the instance is recorded under. */
  recordTask: string;
  key: string | null;
  /** Folder for this attempt's files (workspace, input, output, log). */
  dir: string;
  signal: AbortSignal;
  /** Records the attempt's process group while it runs (process-groups.ts). */
  groups?: GroupHooks;
}

/** How an attempt ended: passed with its output, failed with a code, or interrupted (not a result). */
export type Outcome =
  | { status: "passed"; output: unknown; usage?: Usage; runnerConcurrency?: RunnerConcurrency }
  | { status: "failed"; error: string; code: string; usage?: Usage; rateLimit?: RateLimited }
  /** Cancelled while running: not a result; the instance runs again on resume. */
  | { status: "interrupted"; usage?: Usage };

/** An agent runner's concurrency raised again after a quiet period (null: no limit of its own). */
export interface RunnerConcurrency {
  runner: string;
  limit: number | null;
}

/** A turn ended in the tool's rate-limit report: try again after `delay_ms`, not a failed attempt. */
export interface RateLimited {
  runner: string;
  delay_ms: number;
  /** The runner's concurrency after this limit. */
  concurrency: number;
}

/**
 * A failed outcome. `message` says what went wrong without the code; the record's `error` text is
 * rendered from both (`CODE: message`), so a log read on its own still names the code.
 */
export function failedOutcome(code: string, message: string, usage?: Usage): Outcome & { status: "failed" } {
  return { status: "failed", code, error: codedText({ code, message }), ...(usage !== undefined ? { usage } : {}) };
}
