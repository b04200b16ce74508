// `revise` loops (T-5): body, then reviewer on the body's output, until the reviewer accepts or
// max_rounds rounds have run. Each finished round is recorded (revise_round) before the next
// starts, so a resumed loop continues after the last finished round instead of starting over.
// A round is new work: the run's ceilings are checked before each one, and a reached
// ceiling ends the attempt as interrupted, so the run stops and `resume` picks up the next round.

import type { TaskOf, TaskPlan } from "../../plan/plan.js";
import { sumUsage, type Usage } from "./judge.js";
import { failedOutcome, type AttemptContext, type InstanceInput, type Outcome } from "./context.js";
import { runCommand } from "./command.js";
import { runAgent } from "./agent.js";
import { runEvaluate } from "./evaluate.js";
import { isPlainObject } from "../values/index.js";

/** One round of a revise loop: the body's draft and the reviewer's verdict and feedback. */
export interface ReviseRound {
  round: number;
  body: unknown;
  verdict: string;
  feedback?: unknown;
}

async function runLeaf(ctx: AttemptContext, input: InstanceInput): Promise<Outcome> {
  const task = ctx.task;
  switch (task.kind) {
    case "command":
      return runCommand({ ...ctx, task }, input);
    case "agent":
      return runAgent({ ...ctx, task }, input);
    case "evaluate":
      return runEvaluate(ctx, input);
    default:
      return failedOutcome("revise-failed", `${task.name} is a ${task.kind}, which cannot run inside a revise loop (T-5)`);
  }
}

function withOutput(body: unknown, rounds: number): Record<string, unknown> {
  return { ...(isPlainObject(body) ? body : {}), rounds };
}

/** Runs a revise loop from where earlier rounds left off, until the reviewer accepts or the rounds run out. */
export async function runRevise(
  ctx: AttemptContext<TaskOf<"revise">>,
  input: InstanceInput,
  prior: ReviseRound[],
  recordRound: (r: ReviseRound, usage: Usage | undefined) => void,
  mayStartRound: () => boolean = () => true,
): Promise<Outcome> {
  const spec = ctx.task.revise;
  const last = prior[prior.length - 1];
  if (last?.verdict === "accept") return { status: "passed", output: withOutput(last.body, last.round) };
  let feedback = last?.feedback;
  for (let round = prior.length + 1; round <= spec.max_rounds; round++) {
    if (!mayStartRound()) return { status: "interrupted" };
    const bodyInput: InstanceInput = round > 1 ? { ...input, feedback: feedback ?? null, round } : input;
    const sub = (task: TaskPlan, part: string): AttemptContext => ({ ...ctx, task, dir: `${ctx.dir}-r${round}-${part}` });
    const body = await runLeaf(sub(spec.body, "body"), bodyInput);
    if (body.status !== "passed") return body;
    const reviewInput: InstanceInput = {
      ...(input.key !== undefined ? { key: input.key } : {}),
      inputs: { ...input.inputs, [spec.body.name]: body.output },
      round,
    };
    const review = await runLeaf(sub(spec.reviewer, "review"), reviewInput);
    const usage = sumUsage(body.usage, review.usage);
    if (review.status !== "passed") return { ...review, usage };
    const out = isPlainObject(review.output) ? review.output : {};
    const verdict = out.verdict;
    if (verdict !== "accept" && verdict !== "revise") {
      return failedOutcome(
        "revise-failed",
        `reviewer ${spec.reviewer.name} emitted verdict ${JSON.stringify(verdict)}; it must be "accept" or "revise" (T-5)`,
        usage,
      );
    }
    const r: ReviseRound = { round, body: body.output, verdict, ...(out.feedback !== undefined ? { feedback: out.feedback } : {}) };
    recordRound(r, usage);
    if (verdict === "accept") return { status: "passed", output: withOutput(body.output, round) };
    feedback = out.feedback;
  }
  return failedOutcome("revise-failed", `the reviewer did not accept within max_rounds = ${spec.max_rounds} rounds (T-5)`);
}
