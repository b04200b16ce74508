// The door of src/run/kinds: running one instance of each task kind (command, agent, evaluate,
// revise, route), the Judge port a route asks, and an instance's templates and shared JSON.
// Files outside this room import only this file (eslint.config.js; docs/architecture.md).

export { runAgent } from "./agent.js";
export { type AttemptFiles, prepareAttempt, runCommand } from "./command.js";
export { type AttemptContext, type EvaluatorFactory, failedOutcome, type InstanceInput, type KindEnv, type Outcome } from "./context.js";
export { OptionsError } from "./dynamic-options.js";
export { runEvaluate } from "./evaluate.js";
export {
  DecisionFailure,
  type DecisionRecord,
  type Judge,
  type JudgeRequest,
  type QuestionDecision,
  type Receipt,
  type ResolvedQuestion,
  type ReviewAnswer,
  type ReviewedPair,
  ReviewNeeded,
  type ReviewQuestion,
  sumUsage,
  type Usage,
} from "./judge.js";
export { type ReviseRound, runRevise } from "./revise.js";
export { outputDecision, resolveQuestions, RouteError } from "./route.js";
export { stateJson } from "./shared-json.js";
export { renderPrompt } from "./template.js";
