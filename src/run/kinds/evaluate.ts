// `evaluate` instances (T-4): the playbook function called in the engine with the input dict.
// No process: the function's language gives determinism and the step budget.

import { failedOutcome, type AttemptContext, type InstanceInput, type Outcome } from "./context.js";
import { checkEmits, errorText, isPlainObject } from "../values/index.js";

/** Runs an `evaluate` instance: calls its function on the input in the engine and checks what it emits. */
export function runEvaluate(ctx: AttemptContext, input: InstanceInput): Outcome {
  let output: unknown;
  try {
    const fn = ctx.env.evaluatorFor(ctx.task);
    output = fn(input);
  } catch (err) {
    return failedOutcome("evaluate-failed", `${ctx.task.evaluate?.function ?? ctx.task.name}: ${errorText(err)}`);
  }
  if (!isPlainObject(output)) {
    return failedOutcome("evaluate-failed", `${ctx.task.evaluate?.function ?? ctx.task.name} must return a dict (T-4)`);
  }
  const bad = checkEmits(output, ctx.task.emits);
  if (bad) return failedOutcome("output-invalid", bad);
  return { status: "passed", output };
}
