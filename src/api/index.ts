// switchyard as a library (docs/api.md): the package's one entry point. Everything a program
// needs to check, compile, run, watch, cancel, resume and read runs is exported here, typed; the
// list is api/surface.txt, and test/api/surface checks that it changes only on purpose.

export { check, compile, type CheckResult, type Compiled, type CompileOptions } from "./compile.js";
export { openState, State, type StateOptions, type RerunOptions, type RunSummary } from "./state.js";
export { Run } from "./run-handle.js";
export type { RunOptions } from "./options.js";
export type { DecisionProvider, DecisionRequest, DecisionAnswer, DecisionAnswers } from "./code-provider.js";
export type { AgentFunction, AgentTurn, AgentResult, AgentUsage } from "../run/agents/index.js";
export type { RunEvent, EventType, EventPayloads, RunOutcome, RunStatus, InstanceStatus, ShowJson, TaskProgress } from "../run/index.js";
export type { ResolvedQuestion, Usage } from "../run/kinds/index.js";
export type { Diagnostic } from "../lang/diagnostic.js";
export type { Plan } from "../plan/index.js";
export { CodedError } from "../shared/coded-error.js";
export { DiagnosticError } from "../lang/diagnostic.js";
export { ApiOptionError } from "./api-error.js";
export { RunRefused, RunNotFound, DecisionLayerRefused } from "../run/index.js";
